package forgesim

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// principal is who sent a request.
type principal struct {
	cred         string // credential name in Calls and budgets
	app          int64  // App id when authenticated with an App JWT
	installation int64  // installation id when authenticated with an installation token
}

const anonymous = "anonymous"

// bearer returns the token of an "Authorization: Bearer|token X" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	for _, p := range []string{"Bearer ", "bearer ", "token ", "Token "} {
		if t, ok := strings.CutPrefix(h, p); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// authenticate identifies the caller of a forge route; a nil reply means success.
func (s *Sim) authenticate(r *http.Request) (principal, *reply) {
	tok := bearer(r)
	if tok == "" {
		rp := ghError(http.StatusUnauthorized, "Requires authentication")
		return principal{cred: anonymous}, &rp
	}
	if strings.Count(tok, ".") == 2 {
		return s.authJWT(tok)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.pats[tok] {
		return principal{cred: tok}, nil
	}
	if it := s.st.instTokens[tok]; it != nil && s.now().Before(it.expires) {
		return principal{cred: "installation:" + strconv.FormatInt(it.installation, 10), installation: it.installation}, nil
	}
	rp := ghError(http.StatusUnauthorized, "Bad credentials")
	return principal{cred: anonymous}, &rp
}

type jwtClaims struct {
	Iat int64           `json:"iat"`
	Exp int64           `json:"exp"`
	Iss json.RawMessage `json:"iss"`
}

// authJWT verifies an RS256 App JWT against the registered Apps.
func (s *Sim) authJWT(tok string) (principal, *reply) {
	fail := func(msg string) (principal, *reply) {
		rp := ghError(http.StatusUnauthorized, msg)
		return principal{cred: anonymous}, &rp
	}
	parts := strings.Split(tok, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c jwtClaims
	if err != nil || json.Unmarshal(payload, &c) != nil {
		return fail("A JSON web token could not be decoded")
	}
	appID, err := strconv.ParseInt(strings.Trim(string(c.Iss), `"`), 10, 64)
	s.mu.Lock()
	a := s.st.apps[appID]
	s.mu.Unlock()
	if err != nil || a == nil {
		return fail("A JSON web token could not be decoded")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || rsa.VerifyPKCS1v15(a.key, crypto.SHA256, digest[:], sig) != nil {
		return fail("A JSON web token could not be decoded")
	}
	now := s.now().Unix()
	switch {
	case c.Exp-c.Iat > 600:
		return fail("'Expiration time' claim ('exp') is too far in the future")
	case c.Iat > now+5:
		return fail("'Issued at' claim ('iat') is in the future")
	case c.Exp < now:
		return fail("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	}
	return principal{cred: "app:" + strconv.FormatInt(appID, 10), app: appID}, nil
}

// installationToken serves POST /app/installations/{id}/access_tokens.
func (s *Sim) installationToken(r *http.Request, p principal) reply {
	if p.app == 0 {
		return ghError(http.StatusUnauthorized, "A JSON web token could not be decoded")
	}
	id := pathID(r, "id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.apps[p.app].installations[id] {
		return ghError(http.StatusNotFound, "Not Found")
	}
	tok := "ghs_" + randomHex(18)
	exp := s.now().Add(time.Hour)
	s.st.instTokens[tok] = &instToken{installation: id, expires: exp}
	return ok(http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           exp.UTC().Format(time.RFC3339),
		"permissions":          map[string]string{"administration": "write", "organization_self_hosted_runners": "write"},
		"repository_selection": "all",
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("forgesim: crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
