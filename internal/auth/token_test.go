package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/golang-jwt/jwt/v5"
)

var epoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// stepClock is a clock tests move by hand.
type stepClock struct{ t time.Time }

func (c *stepClock) now() time.Time { return c.t }

func newTokens(t *testing.T, ttl time.Duration) (*Tokens, *stepClock) {
	t.Helper()
	c := &stepClock{t: epoch}
	tk, err := NewTokens([]byte("s3cret-s3cret-s3cret"), ttl, c.now)
	if err != nil {
		t.Fatal(err)
	}
	return tk, c
}

// payload decodes a JWT's claims without verifying it.
func payload(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMintAdminClaims(t *testing.T) {
	tk, _ := newTokens(t, time.Hour) // raised to 24h
	u := garrison.User{ID: "0b7c6f1e-1111-4222-8333-444455556666", FullName: "Ada L", IsAdmin: true, Generation: 3, Enabled: true}
	tok, err := tk.MintAdmin(u)
	if err != nil {
		t.Fatal(err)
	}
	m := payload(t, tok)
	want := map[string]any{
		"user": u.ID, "full_name": "Ada L", "is_admin": true, "read_metrics": false,
		"generation": float64(3), "iss": "garm", "exp": float64(epoch.Add(24 * time.Hour).Unix()),
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("claim %s = %v (%T), want %v", k, m[k], m[k], v)
		}
	}
	id, _ := m["token_id"].(string)
	if len(id) != 16 || strings.Trim(id, alnum) != "" {
		t.Errorf("token_id = %q, want 16 alnum", id)
	}
	if len(m) != len(want)+1 {
		t.Errorf("claims = %v, want exactly %d keys", m, len(want)+1)
	}
	c, err := tk.VerifyAdmin(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckUser(c, u); err != nil {
		t.Fatal(err)
	}
}

func TestMintMetricsClaims(t *testing.T) {
	tk, _ := newTokens(t, 48*time.Hour)
	tok, err := tk.MintMetrics(4)
	if err != nil {
		t.Fatal(err)
	}
	m := payload(t, tok)
	if m["user"] != "" || m["is_admin"] != false || m["read_metrics"] != true || m["iss"] != "garm" ||
		m["generation"] != float64(4) {
		t.Errorf("claims = %v", m)
	}
	if m["exp"] != float64(epoch.Add(48*time.Hour).Unix()) {
		t.Errorf("exp = %v", m["exp"])
	}
	c, err := tk.VerifyAdmin(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckUser(c, garrison.User{ID: "", Enabled: true}); !errors.Is(err, ErrUserMismatch) {
		t.Errorf("metrics token passed CheckUser: %v", err)
	}
}

func TestVerifyAdminErrors(t *testing.T) {
	tk, clock := newTokens(t, 24*time.Hour)
	good, _ := tk.MintAdmin(garrison.User{ID: "u", Enabled: true})
	other, _ := NewTokens([]byte("another secret"), 0, clock.now)
	forged, _ := other.MintAdmin(garrison.User{ID: "u"})
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"user": "u", "exp": epoch.Add(time.Hour).Unix()}).
		SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"user": "u", "exp": epoch.Add(time.Hour).Unix()}).
		SignedString([]byte("s3cret-s3cret-s3cret"))
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"user": "u"}).
		SignedString([]byte("s3cret-s3cret-s3cret"))
	tests := []struct {
		name  string
		token string
		want  error
	}{
		{"garbage", "not.a.jwt", ErrTokenMalformed},
		{"empty", "", ErrTokenMalformed},
		{"other secret", forged, ErrTokenSignature},
		{"alg none", none, ErrTokenAlgorithm},
		{"alg HS512", hs512, ErrTokenAlgorithm},
		{"no exp", noExp, ErrTokenClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tk.VerifyAdmin(tt.token); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("expired", func(t *testing.T) {
		clock.t = epoch.Add(24*time.Hour + time.Second)
		defer func() { clock.t = epoch }()
		if _, err := tk.VerifyAdmin(good); !errors.Is(err, ErrTokenExpired) {
			t.Errorf("err = %v, want expired", err)
		}
	})
	t.Run("just before expiry", func(t *testing.T) {
		clock.t = epoch.Add(24*time.Hour - time.Second)
		defer func() { clock.t = epoch }()
		if _, err := tk.VerifyAdmin(good); err != nil {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCheckUser(t *testing.T) {
	u := garrison.User{ID: "u1", Enabled: true, Generation: 2}
	tests := []struct {
		name string
		c    AdminClaims
		u    func(garrison.User) garrison.User
		want error
	}{
		{"ok", AdminClaims{User: "u1", Generation: 2}, nil, nil},
		{"generation mismatch", AdminClaims{User: "u1", Generation: 1}, nil, ErrStaleGeneration},
		{"disabled", AdminClaims{User: "u1", Generation: 2}, func(u garrison.User) garrison.User { u.Enabled = false; return u }, ErrUserDisabled},
		{"other user", AdminClaims{User: "u2", Generation: 2}, nil, ErrUserMismatch},
		{"empty user", AdminClaims{Generation: 2}, nil, ErrUserMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uu := u
			if tt.u != nil {
				uu = tt.u(u)
			}
			if err := CheckUser(&tt.c, uu); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCheckMetrics(t *testing.T) {
	admin := garrison.User{ID: "u1", Enabled: true, IsAdmin: true, Generation: 2}
	metrics := AdminClaims{ReadMetrics: true, Generation: 2}
	tests := []struct {
		name string
		edit func(*AdminClaims, *garrison.User)
		want error
	}{
		{"ok", nil, nil},
		{"password reset since", func(_ *AdminClaims, u *garrison.User) { u.Generation++ }, ErrStaleGeneration},
		{"from GARM, admin never reset", func(c *AdminClaims, u *garrison.User) { c.Generation, u.Generation = 0, 0 }, nil},
		{"from GARM, admin reset", func(c *AdminClaims, _ *garrison.User) { c.Generation = 0 }, ErrStaleGeneration},
		{"admin disabled", func(_ *AdminClaims, u *garrison.User) { u.Enabled = false }, ErrUserDisabled},
		{"admin token", func(c *AdminClaims, _ *garrison.User) { c.ReadMetrics, c.User = false, "u1" }, ErrTokenClaims},
		{"metrics flag on a user token", func(c *AdminClaims, _ *garrison.User) { c.User = "u1" }, ErrTokenClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, u := metrics, admin
			if tt.edit != nil {
				tt.edit(&c, &u)
			}
			if err := CheckMetrics(&c, u); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNewTokensEmptySecret(t *testing.T) {
	if _, err := NewTokens(nil, time.Hour, nil); err == nil {
		t.Fatal("empty secret accepted")
	}
}

func TestInstanceToken(t *testing.T) {
	tk, clock := newTokens(t, 0)
	in := garrison.InstanceIdentity{ID: "iid", Name: "garm-abc", PoolID: "pid", Scope: garrison.Repository,
		Entity: "o/r", CreateAttempt: 1, ForgeType: garrison.GitHub}
	tok, err := tk.MintInstance(in, 20*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	m := payload(t, tok)
	want := map[string]any{"id": "iid", "name": "garm-abc", "provider_id": "pid", "scope": "repository",
		"entity": "o/r", "create_attempt": float64(1), "forge_type": "github", "is_agent": false,
		"iss": "garm", "exp": float64(epoch.Add(25 * time.Minute).Unix())}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("claim %s = %v, want %v", k, m[k], v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("claims = %v", m)
	}
	got, err := tk.VerifyInstance(tok)
	if err != nil || got.Identity() != in {
		t.Fatalf("VerifyInstance = %+v, %v", got, err)
	}
	agent, _ := tk.mintInstance(InstanceClaims{Name: "x", IsAgent: true}, time.Minute)
	if _, err := tk.VerifyInstance(agent); !errors.Is(err, ErrTokenClaims) {
		t.Errorf("agent token: %v", err)
	}
	clock.t = epoch.Add(26 * time.Minute)
	if _, err := tk.VerifyInstance(tok); !errors.Is(err, ErrTokenExpired) {
		t.Errorf("expired instance token: %v", err)
	}
	if _, err := tk.MintInstance(garrison.InstanceIdentity{}, time.Minute); err == nil {
		t.Error("nameless instance token minted")
	}
}

func TestRandomAlnum(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		s, err := RandomAlnum(16)
		if err != nil || len(s) != 16 || strings.Trim(s, alnum) != "" {
			t.Fatalf("RandomAlnum = %q, %v", s, err)
		}
		if seen[s] {
			t.Fatalf("duplicate %q", s)
		}
		seen[s] = true
	}
}
