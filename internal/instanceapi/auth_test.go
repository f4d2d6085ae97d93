package instanceapi

import (
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/golang-jwt/jwt/v5"
)

const mdPath = MetadataPrefix + "/runner-metadata"

func TestTokenAcceptance(t *testing.T) {
	e := newEnv(t, envConfig{})
	inst, good := e.addInstance("garm-a", nil)
	_, other := e.addInstance("garm-b", nil)
	agent := signClaims(t, auth.InstanceClaims{Name: inst.Name, CreateAttempt: 1, IsAgent: true}, jwt.SigningMethodHS256, "test secret")
	tests := []struct {
		name, authz string
		ok          bool
	}{
		{"bearer", "Bearer " + good, true},
		{"bearer lower case", "bearer " + good, true},
		{"BEARER", "BEARER " + good, true},
		{"no header", "", false},
		{"other scheme", "Token " + good, false},
		{"no scheme", good, false},
		{"double space", "Bearer  " + good, false},
		{"three parts", "Bearer " + good + " x", false},
		{"garbage", "Bearer not.a.jwt", false},
		{"bad signature", "Bearer " + signClaims(t, auth.InstanceClaims{Name: inst.Name, CreateAttempt: 1}, jwt.SigningMethodHS256, "other secret"), false},
		{"wrong alg HS512", "Bearer " + signClaims(t, auth.InstanceClaims{Name: inst.Name, CreateAttempt: 1}, jwt.SigningMethodHS512, "test secret"), false},
		{"alg none", "Bearer " + noneToken(t, inst.Name), false},
		{"is_agent", "Bearer " + agent, false},
		{"unknown instance", "Bearer " + e.mint(garrison.Instance{Name: "garm-zzz"}, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.doAuth("GET", mdPath, tt.authz, "", "")
			if tt.ok {
				r.want(t, http.StatusOK, "application/json", "*")
				return
			}
			r.wantAuthFailed(t)
		})
	}
	// The other instance's token reads the other instance: a token only ever acts on the
	// instance it names, whatever the request says.
	r := e.do("GET", mdPath, other, "")
	if !strings.Contains(r.body, `"runner_name":"garm-b"`) {
		t.Fatalf("token of garm-b served %s", r.body)
	}
	e.do("POST", CallbackPrefix+"/status", other, `{"status":"installing"}`).want(t, 200, "application/json", "")
	if got := e.instance("garm-a").RunnerStatus; got != garrison.RunnerPending {
		t.Fatalf("garm-b's token changed garm-a to %s", got)
	}
}

func TestTokenCookieIgnored(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	req, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+mdPath, nil)
	req.AddCookie(&http.Cookie{Name: "garm_token", Value: tok})
	resp, err := e.srv.Client().Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("cookie accepted: %d", resp.StatusCode)
	}
}

func TestTokenExpires(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	e.clock.add(time.Duration(garrison.DefaultRunnerBootstrapTimeout)*time.Minute + auth.InstanceTokenGrace - time.Second)
	e.do("GET", mdPath, tok, "").want(t, http.StatusOK, "application/json", "*")
	e.clock.add(2 * time.Second)
	e.do("GET", mdPath, tok, "").wantAuthFailed(t)
}

func TestTokenInstanceState(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*garrison.Instance)
		ok   bool
	}{
		{"creating pending", func(*garrison.Instance) {}, true},
		{"running installing", func(i *garrison.Instance) {
			i.Status, i.RunnerStatus = garrison.InstanceRunning, garrison.RunnerInstalling
		}, true},
		{"runner idle", func(i *garrison.Instance) { i.RunnerStatus = garrison.RunnerIdle }, false},
		{"runner failed", func(i *garrison.Instance) { i.RunnerStatus = garrison.RunnerFailed }, false},
		{"runner active", func(i *garrison.Instance) { i.RunnerStatus = garrison.RunnerActive }, false},
		{"pending_create", func(i *garrison.Instance) { i.Status = garrison.InstancePendingCreate }, false},
		{"pending_delete", func(i *garrison.Instance) { i.Status = garrison.InstancePendingDelete }, false},
		{"error", func(i *garrison.Instance) { i.Status = garrison.InstanceError }, false},
		{"later create attempt", func(i *garrison.Instance) { i.CreateAttempt = 2 }, false},
	}
	e := newEnv(t, envConfig{})
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst, tok := e.addInstance("garm-s"+string(rune('a'+n)), nil)
			e.setInstance(inst.Name, tt.mod)
			r := e.do("GET", MetadataPrefix+"/install-script/", tok, "")
			if tt.ok {
				r.want(t, http.StatusOK, "text/plain", "*")
				return
			}
			r.wantAuthFailed(t)
		})
	}
}

func TestTokenEarlierAttempt(t *testing.T) {
	e := newEnv(t, envConfig{})
	inst, _ := e.addInstance("garm-a", func(i *garrison.Instance) { i.CreateAttempt = 2 })
	e.do("GET", mdPath, e.mint(inst, 1), "").wantAuthFailed(t)
	e.do("GET", mdPath, e.mint(inst, 2), "").want(t, 200, "application/json", "*")
}

func TestTokenDeadAfterIdle(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	cb := CallbackPrefix + "/status"
	e.do("POST", cb, tok, `{"status":"installing","message":"go"}`).want(t, 200, "application/json", "")
	e.do("POST", cb, tok, `{"status":"idle","message":"done"}`).want(t, 200, "application/json", "")
	e.do("GET", mdPath, tok, "").wantAuthFailed(t)
	e.do("POST", cb, tok, `{"status":"installing"}`).wantAuthFailed(t)
}

func TestRegistrationTokenOnce(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	p := MetadataPrefix + "/runner-registration-token/"
	e.do("GET", p, tok, "").want(t, http.StatusOK, "text/plain", "reg-token-1")
	e.do("GET", p, tok, "").want(t, http.StatusUnauthorized, "application/json", `{"error":"Not Authorized","details":""}`)
	i := e.instance("garm-a")
	if !i.TokenFetched {
		t.Fatal("token_fetched not set")
	}
	found := false
	for _, ev := range i.StatusMessages {
		found = found || (ev.Type == garrison.EventFetchToken && ev.Level == garrison.LevelInfo && ev.Message == fetchTokenMessage)
	}
	if !found {
		t.Fatalf("no fetchToken event in %+v", i.StatusMessages)
	}
}

func TestRegistrationTokenConcurrent(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	const n = 8
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for k := range n {
		wg.Go(func() { statuses[k] = e.do("GET", MetadataPrefix+"/runner-registration-token", tok, "").status })
	}
	wg.Wait()
	okCount := 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			okCount++
		case http.StatusUnauthorized:
		default:
			t.Fatalf("status %d", s)
		}
	}
	if okCount != 1 {
		t.Fatalf("%d fetches succeeded: %v", okCount, statuses)
	}
}

func TestRegistrationTokenForgeFailureReleases(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", nil)
	e.forge.fail = errForge
	p := MetadataPrefix + "/runner-registration-token"
	e.do("GET", p, tok, "").want(t, 500, "application/json", `{"error":"Server error","details":""}`)
	e.forge.fail = nil
	e.do("GET", p, tok, "").want(t, 200, "text/plain", "reg-token-1")
}

func TestRegistrationTokenJIT(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, tok := e.addInstance("garm-a", func(i *garrison.Instance) { i.JITConfig = jitConfig() })
	e.do("GET", MetadataPrefix+"/runner-registration-token", tok, "").
		want(t, 401, "application/json", `{"error":"Not Authorized","details":""}`)
}

func TestCredentials(t *testing.T) {
	e := newEnv(t, envConfig{})
	_, jit := e.addInstance("garm-a", func(i *garrison.Instance) { i.JITConfig = jitConfig() })
	_, plain := e.addInstance("garm-b", nil)
	for _, f := range []string{"runner", "credentials", "credentials_rsaparams"} {
		for range 2 { // F-3: repeatable
			r := e.do("GET", MetadataPrefix+"/credentials/"+f, jit, "")
			r.want(t, 200, "application/octet-stream", "content of ."+f)
			if cd := r.header.Get("Content-Disposition"); cd != "attachment; filename=."+f {
				t.Fatalf("Content-Disposition %q", cd)
			}
			if cl := r.header.Get("Content-Length"); cl != itoa(len("content of ."+f)) {
				t.Fatalf("Content-Length %q", cl)
			}
		}
	}
	e.do("GET", MetadataPrefix+"/credentials/nope/", jit, "").
		want(t, 404, "application/json", `{"error":"Not Found","details":"could not find file \".nope\""}`)
	e.do("GET", MetadataPrefix+"/credentials/runner", plain, "").
		want(t, 404, "application/json", `{"error":"Not Found","details":"instance not configured for JIT"}`)
}

func jitConfig() map[string]string {
	m := map[string]string{}
	for _, f := range []string{".runner", ".credentials", ".credentials_rsaparams"} {
		m[f] = base64.StdEncoding.EncodeToString([]byte("content of " + f))
	}
	return m
}

// signClaims signs c with method and secret, bypassing auth.Tokens.
func signClaims(t *testing.T, c auth.InstanceClaims, m jwt.SigningMethod, secret string) string {
	t.Helper()
	c.Issuer = auth.Issuer
	c.ExpiresAt = jwt.NewNumericDate(epoch.Add(time.Hour))
	s, err := jwt.NewWithClaims(m, c).SignedString([]byte(secret))
	must(t, err)
	return s
}

// noneToken is an unsigned token (alg none).
func noneToken(t *testing.T, name string) string {
	t.Helper()
	c := auth.InstanceClaims{Name: name, CreateAttempt: 1}
	c.ExpiresAt = jwt.NewNumericDate(epoch.Add(time.Hour))
	s, err := jwt.NewWithClaims(jwt.SigningMethodNone, c).SignedString(jwt.UnsafeAllowNoneSignatureType)
	must(t, err)
	return s
}
