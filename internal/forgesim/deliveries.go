package forgesim

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // the forges still send the legacy X-Hub-Signature
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
)

// DeliveryFaults make workflow_job deliveries unreliable. Each probability is in [0, 1]
// and drawn from the Sim's seeded RNG in event order, so a run is reproducible. Pings and
// redeliveries are never faulted.
type DeliveryFaults struct {
	Drop      float64 // recorded as a failed delivery (redeliverable), never sent
	Duplicate float64 // sent twice with the same GUID
	Delay     float64 // sent after DelayFor (default 200 ms), so later events may overtake it
	Reorder   float64 // held back until the next delivery was sent (or ReorderWindow passed)
	DelayFor  time.Duration
	// ReorderWindow bounds how long a reordered delivery waits for a successor (default 100 ms).
	ReorderWindow time.Duration
}

// SetDeliveryFaults replaces the delivery faults.
func (s *Sim) SetDeliveryFaults(f DeliveryFaults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
}

// Delivery is one recorded webhook delivery attempt.
type Delivery struct {
	ID          int64
	GUID        string // X-GitHub-Delivery; unchanged on redelivery and duplicates
	HookID      int64
	Event       string
	Action      string
	JobID       int64
	Redelivery  bool
	Dropped     bool // by DeliveryFaults.Drop: never sent
	DeliveredAt time.Time
	Duration    time.Duration
	StatusCode  int    // 0 when no response
	Status      string // "OK" for a 2xx answer
	Header      http.Header
	Payload     []byte
	Response    string
}

// OK reports whether the receiver answered 2xx.
func (d Delivery) OK() bool { return d.Status == "OK" }

// Deliveries returns the recorded deliveries, oldest first.
func (s *Sim) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.st.deliveries))
	for i, d := range s.st.deliveries {
		out[i] = *d
	}
	return out
}

// WaitDeliveries blocks until no delivery is queued, held back, delayed or in flight.
func (s *Sim) WaitDeliveries(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for !s.out.idle() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// outgoing is a delivery waiting to be sent. Hook fields are copied at enqueue time.
type outgoing struct {
	hookID     int64
	url        string
	secret     string
	forge      garrison.ForgeType
	target     string
	targetID   int64
	event      string
	action     string
	guid       string
	jobID      int64
	body       []byte
	redelivery bool
	dup        bool
	delay      time.Duration
	reorder    bool
}

// emitLocked sends a workflow_job event for j to every hook that covers its repository.
func (s *Sim) emitLocked(j *job, action string) {
	for _, id := range sortedIDs(s.st.hooks) {
		h := s.st.hooks[id]
		if !h.active || !h.wants("workflow_job") || !s.st.coversLocked(h.scope, j.repo) {
			continue
		}
		o := s.outgoingLocked(h, "workflow_job", s.workflowJobPayloadLocked(h, j, action))
		o.action, o.jobID = action, j.id
		s.applyFaultsLocked(o)
	}
}

func (s *Sim) outgoingLocked(h *hook, event string, body []byte) *outgoing {
	return &outgoing{
		hookID: h.id, url: h.url, secret: h.secret, forge: h.forge, target: targetType(h),
		targetID: s.st.scopeIDLocked(h.scope), event: event, guid: newGUID(), body: body,
	}
}

// applyFaultsLocked draws the faults for o and queues it, or records it dropped.
func (s *Sim) applyFaultsLocked(o *outgoing) {
	f := s.faults
	if s.rng.Float64() < f.Drop {
		s.recordLocked(o, &Delivery{Dropped: true, Status: "Dropped by forgesim", DeliveredAt: s.now()})
		return
	}
	o.dup = s.rng.Float64() < f.Duplicate
	if s.rng.Float64() < f.Delay {
		o.delay = cmpOr(f.DelayFor, 200*time.Millisecond)
	}
	o.reorder = s.rng.Float64() < f.Reorder
	s.out.enqueue(o, cmpOr(f.ReorderWindow, 100*time.Millisecond))
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// recordLocked stores a delivery attempt of o.
func (s *Sim) recordLocked(o *outgoing, d *Delivery) {
	d.ID, d.GUID, d.HookID, d.Event, d.Action = s.st.id(), o.guid, o.hookID, o.event, o.action
	d.JobID, d.Redelivery, d.Payload = o.jobID, o.redelivery, o.body
	s.st.deliveries = append(s.st.deliveries, d)
}

// deliver POSTs o to its hook URL and records the attempt.
func (s *Sim) deliver(ctx context.Context, o *outgoing) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(o.body))
	d := &Delivery{DeliveredAt: s.now()}
	if err == nil {
		setDeliveryHeaders(req.Header, o)
		d.Header = req.Header.Clone()
		start := time.Now()
		var resp *http.Response
		resp, err = s.client.Do(req)
		d.Duration = time.Since(start)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
			d.StatusCode, d.Response = resp.StatusCode, string(b)
			d.Status = "Invalid HTTP Response: " + strconv.Itoa(resp.StatusCode)
			if resp.StatusCode/100 == 2 {
				d.Status = "OK"
			}
		}
	}
	if err != nil {
		d.Status = "failed: " + err.Error()
	}
	s.mu.Lock()
	s.recordLocked(o, d)
	s.mu.Unlock()
}

func setDeliveryHeaders(h http.Header, o *outgoing) {
	h.Set("Content-Type", "application/json")
	h.Set("X-GitHub-Event", o.event)
	h.Set("X-GitHub-Delivery", o.guid)
	h.Set("X-GitHub-Hook-ID", strconv.FormatInt(o.hookID, 10))
	h.Set("X-GitHub-Hook-Installation-Target-Type", o.target)
	h.Set("X-GitHub-Hook-Installation-Target-ID", strconv.FormatInt(o.targetID, 10))
	h.Set("User-Agent", "GitHub-Hookshot/forgesim")
	if o.forge == garrison.Gitea {
		h.Set("User-Agent", "Go-http-client/1.1")
		for _, p := range []string{"X-Gitea-", "X-Gogs-"} {
			h.Set(p+"Event", o.event)
			h.Set(p+"Event-Type", o.event)
			h.Set(p+"Delivery", o.guid)
		}
		h.Set("X-GitHub-Event-Type", o.event)
		h.Set("X-Gitea-Hook-Installation-Target-Type", o.target)
	}
	if o.secret == "" {
		return
	}
	h.Set("X-Hub-Signature-256", "sha256="+hmacHex(sha256.New, o.secret, o.body))
	h.Set("X-Hub-Signature", "sha1="+hmacHex(sha1.New, o.secret, o.body))
	if o.forge == garrison.Gitea {
		h.Set("X-Gitea-Signature", hmacHex(sha256.New, o.secret, o.body))
		h.Set("X-Gogs-Signature", hmacHex(sha256.New, o.secret, o.body))
	}
}

func hmacHex(newHash func() hash.Hash, secret string, body []byte) string {
	m := hmac.New(newHash, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func newGUID() string {
	h := randomHex(16)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
