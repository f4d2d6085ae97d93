package auth

import (
	"container/list"
	"sync"
	"time"
)

// LimiterConfig configures a Limiter. Zero fields take the defaults below.
type LimiterConfig struct {
	// Burst is how many failed attempts a client may make before it is held back.
	Burst int
	// Every is how long it takes to earn back one attempt.
	Every time.Duration
	// MaxClients bounds the memory: beyond it the least recently seen client is forgotten.
	MaxClients int
}

// Limiter defaults: 10 failures in a row, then one attempt every 6 s; 10k clients.
const (
	DefaultLimiterBurst      = 10
	DefaultLimiterEvery      = 6 * time.Second
	DefaultLimiterMaxClients = 10000
)

// Limiter holds back clients (keyed by their address) that fail to log in too often. Each
// client has a token bucket of Burst tokens refilled one per Every. Every attempt takes a
// token when it starts, before the password is checked, so parallel attempts cannot
// overdraw the bucket; an attempt with no token left is refused; a success forgets the
// client. Memory is bounded by MaxClients (least recently seen evicted first). Safe for
// concurrent use.
type Limiter struct {
	cfg LimiterConfig
	now Clock

	mu      sync.Mutex               // guards clients and lru
	clients map[string]*list.Element // of *bucket
	lru     *list.List               // front = most recently seen
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time // when tokens was last computed
}

// NewLimiter returns a Limiter; now may be nil.
func NewLimiter(cfg LimiterConfig, now Clock) *Limiter {
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultLimiterBurst
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultLimiterEvery
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultLimiterMaxClients
	}
	return &Limiter{cfg: cfg, now: now, clients: make(map[string]*list.Element), lru: list.New()}
}

// Take starts an attempt by key: it takes one of key's tokens and reports true, or, when
// none is left, reports false and how long until one is.
func (l *Limiter) Take(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refillLocked(key)
	if b == nil {
		b = l.insertLocked(key)
	}
	if b.tokens < 1 {
		wait := time.Duration((1 - b.tokens) * float64(l.cfg.Every))
		return false, max(wait, time.Second)
	}
	b.tokens--
	return true, 0
}

// Refund gives back the token of an attempt by key that was never decided (the password
// was not checked).
func (l *Limiter) Refund(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.refillLocked(key); b != nil {
		b.tokens = min(b.tokens+1, float64(l.cfg.Burst))
	}
}

// Succeed forgets key's failures.
func (l *Limiter) Succeed(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.clients[key]; ok {
		l.lru.Remove(e)
		delete(l.clients, key)
	}
}

// Len is the number of clients remembered.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// refillLocked returns key's bucket brought up to now (nil if unknown), marking it seen.
// A bucket that is full again is forgotten, as it carries no information.
func (l *Limiter) refillLocked(key string) *bucket {
	e, ok := l.clients[key]
	if !ok {
		return nil
	}
	b := e.Value.(*bucket)
	now := l.now.now()
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(b.tokens+float64(d)/float64(l.cfg.Every), float64(l.cfg.Burst))
	}
	b.at = now
	if b.tokens >= float64(l.cfg.Burst) {
		l.lru.Remove(e)
		delete(l.clients, key)
		return nil
	}
	l.lru.MoveToFront(e)
	return b
}

func (l *Limiter) insertLocked(key string) *bucket {
	for len(l.clients) >= l.cfg.MaxClients {
		oldest := l.lru.Back()
		l.lru.Remove(oldest)
		delete(l.clients, oldest.Value.(*bucket).key)
	}
	b := &bucket{key: key, tokens: float64(l.cfg.Burst), at: l.now.now()}
	l.clients[key] = l.lru.PushFront(b)
	return b
}
