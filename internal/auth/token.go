package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/golang-jwt/jwt/v5"
)

// Issuer is the "iss" claim of every token garrison mints (the value GARM uses).
const Issuer = "garm"

// MinTokenTTL is the shortest lifetime of admin and metrics tokens.
const MinTokenTTL = 24 * time.Hour

// Token verification errors. Verify and its siblings wrap exactly one of them.
var (
	ErrTokenMalformed  = errors.New("auth: malformed token")
	ErrTokenSignature  = errors.New("auth: invalid token signature")
	ErrTokenAlgorithm  = errors.New("auth: unexpected token signing algorithm")
	ErrTokenExpired    = errors.New("auth: token expired")
	ErrTokenClaims     = errors.New("auth: invalid token claims")
	ErrUserDisabled    = errors.New("auth: user disabled")
	ErrUserMismatch    = errors.New("auth: token is not for this user")
	ErrStaleGeneration = errors.New("auth: token generation is stale (password was reset)")
)

// AdminClaims are the claims of admin API tokens and of metrics tokens (which have an
// empty User, ReadMetrics set, and the admin's Generation when they were issued).
type AdminClaims struct {
	User        string `json:"user"`
	TokenID     string `json:"token_id"`
	FullName    string `json:"full_name"`
	IsAdmin     bool   `json:"is_admin"`
	ReadMetrics bool   `json:"read_metrics"`
	Generation  uint   `json:"generation"`
	jwt.RegisteredClaims
}

// Tokens mints and verifies HS256 tokens with one secret.
type Tokens struct {
	secret []byte
	ttl    time.Duration
	now    Clock
}

// NewTokens returns a Tokens for secret. A ttl below MinTokenTTL is raised to it; now may
// be nil.
func NewTokens(secret []byte, ttl time.Duration, now Clock) (*Tokens, error) {
	if len(secret) == 0 {
		return nil, errors.New("auth: empty JWT secret")
	}
	return &Tokens{secret: append([]byte(nil), secret...), ttl: max(ttl, MinTokenTTL), now: now}, nil
}

// TTL is the lifetime of admin and metrics tokens.
func (t *Tokens) TTL() time.Duration { return t.ttl }

// MintAdmin returns a token for u valid for TTL.
func (t *Tokens) MintAdmin(u garrison.User) (string, error) {
	return t.mintAdminClaims(AdminClaims{
		User:       u.ID,
		FullName:   u.FullName,
		IsAdmin:    u.IsAdmin,
		Generation: u.Generation,
	})
}

// MintMetrics returns a token that may only read /metrics, issued by an admin whose
// token generation is generation: a password reset (which bumps it) revokes the token, as
// it revokes the admin's own tokens. See CheckMetrics.
func (t *Tokens) MintMetrics(generation uint) (string, error) {
	return t.mintAdminClaims(AdminClaims{ReadMetrics: true, Generation: generation})
}

func (t *Tokens) mintAdminClaims(c AdminClaims) (string, error) {
	id, err := RandomAlnum(16)
	if err != nil {
		return "", err
	}
	c.TokenID = id
	c.Issuer = Issuer
	c.ExpiresAt = jwt.NewNumericDate(t.now.now().Add(t.ttl))
	return t.sign(&c)
}

// VerifyAdmin checks the signature, algorithm and expiry of an admin or metrics token and
// returns its claims. It does not look at the user; see CheckUser.
func (t *Tokens) VerifyAdmin(token string) (*AdminClaims, error) {
	var c AdminClaims
	if err := t.parse(token, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// CheckUser applies the acceptance rules that need the stored user: the token names u,
// u is enabled, and the token's generation is u's current one.
func CheckUser(c *AdminClaims, u garrison.User) error {
	switch {
	case c.User == "" || c.User != u.ID:
		return ErrUserMismatch
	case !u.Enabled:
		return ErrUserDisabled
	case c.Generation != u.Generation:
		return ErrStaleGeneration
	}
	return nil
}

// CheckMetrics applies the acceptance rules of a metrics token that need the stored
// admin: the token is a metrics token (ReadMetrics, no user), the admin is enabled, and
// the token's generation is the admin's current one. GARM's metrics tokens carry
// generation 0: they hold while the admin's generation is 0.
func CheckMetrics(c *AdminClaims, admin garrison.User) error {
	switch {
	case !c.ReadMetrics || c.User != "":
		return ErrTokenClaims
	case !admin.Enabled:
		return ErrUserDisabled
	case c.Generation != admin.Generation:
		return ErrStaleGeneration
	}
	return nil
}

func (t *Tokens) sign(c jwt.Claims) (string, error) {
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.secret)
	if err != nil {
		return "", fmt.Errorf("auth: signing token: %w", err)
	}
	return s, nil
}

// parse verifies token into claims, accepting HS256 only, and maps the library's errors
// to this package's.
func (t *Tokens) parse(token string, claims jwt.Claims) error {
	keyFunc := func(tok *jwt.Token) (any, error) {
		if tok.Method != jwt.SigningMethodHS256 {
			return nil, ErrTokenAlgorithm
		}
		return t.secret, nil
	}
	_, err := jwt.ParseWithClaims(token, claims, keyFunc,
		jwt.WithTimeFunc(t.now.now), jwt.WithExpirationRequired())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrTokenAlgorithm), errors.Is(err, jwt.ErrTokenUnverifiable):
		return fmt.Errorf("%w: %w", ErrTokenAlgorithm, err)
	case errors.Is(err, jwt.ErrTokenMalformed):
		return fmt.Errorf("%w: %w", ErrTokenMalformed, err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return fmt.Errorf("%w: %w", ErrTokenSignature, err)
	case errors.Is(err, jwt.ErrTokenExpired):
		return fmt.Errorf("%w: %w", ErrTokenExpired, err)
	}
	return fmt.Errorf("%w: %w", ErrTokenClaims, err)
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// RandomAlnum returns n random ASCII letters and digits, uniformly chosen.
func RandomAlnum(n int) (string, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("auth: random: %w", err)
		}
		for _, b := range buf {
			// 248 = 4*62: reject the top values so every character is equally likely.
			if b < 248 && len(out) < n {
				out = append(out, alnum[int(b)%len(alnum)])
			}
		}
	}
	return string(out), nil
}
