package webhook

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // legacy X-Hub-Signature support, required by the forges
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
)

// Signature headers.
const (
	HeaderSignature256 = "X-Hub-Signature-256" // sha256=<hex>
	HeaderSignature    = "X-Hub-Signature"     // legacy sha1=<hex>
)

// Signature errors (W-8). Each is a *garrison.Error: the missing and mismatch cases are
// EUnauthorized (401), the malformed cases EInvalid (400).
var (
	ErrMissingSignature     = &garrison.Error{Code: garrison.EUnauthorized, Message: "missing signature"}
	ErrInvalidSignature     = &garrison.Error{Code: garrison.EInvalid, Message: "invalid signature format"}
	ErrUnknownSignatureType = &garrison.Error{Code: garrison.EInvalid, Message: "unknown signature type"}
	ErrSignatureMismatch    = &garrison.Error{Code: garrison.EUnauthorized, Message: "signature mismatch"}
)

// Verify checks the HMAC signature of a raw webhook body. It reads X-Hub-Signature-256 and
// falls back to the legacy X-Hub-Signature when the former is absent.
func Verify(h http.Header, body, secret []byte) error {
	sig := h.Get(HeaderSignature256)
	if sig == "" {
		sig = h.Get(HeaderSignature)
	}
	return VerifySignature(sig, body, secret)
}

// VerifySignature checks one signature header value of the form <algo>=<hex>, where algo is
// sha256 or sha1, against the HMAC of body under secret, in constant time.
func VerifySignature(sig string, body, secret []byte) error {
	if sig == "" {
		return ErrMissingSignature
	}
	algo, digest, ok := strings.Cut(sig, "=")
	if !ok {
		return ErrInvalidSignature
	}
	var newHash func() hash.Hash
	switch strings.ToLower(algo) {
	case "sha256":
		newHash = sha256.New
	case "sha1":
		newHash = sha1.New
	default:
		return ErrUnknownSignatureType
	}
	want := Sign(newHash, body, secret)
	got, err := hex.DecodeString(strings.ToLower(digest))
	if err != nil || !hmac.Equal(got, want) {
		return ErrSignatureMismatch
	}
	return nil
}

// Sign returns the raw HMAC of body under secret with the given hash.
func Sign(newHash func() hash.Hash, body, secret []byte) []byte {
	m := hmac.New(newHash, secret)
	m.Write(body)
	return m.Sum(nil)
}

// Signature256 returns the X-Hub-Signature-256 value for body: "sha256=<hex>".
func Signature256(body, secret []byte) string {
	return "sha256=" + hex.EncodeToString(Sign(sha256.New, body, secret))
}

// Signature1 returns the legacy X-Hub-Signature value for body: "sha1=<hex>".
func Signature1(body, secret []byte) string {
	return "sha1=" + hex.EncodeToString(Sign(sha1.New, body, secret))
}
