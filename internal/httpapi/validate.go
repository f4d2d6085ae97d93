package httpapi

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/garrison-ci/garrison"
)

// errBadID is the 400 of a malformed id in the path (observed GARM text).
var errBadID = invalid("error parsing id: invalid request")

// isUUID reports whether s is a UUID in canonical 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// pathUUID returns the UUID path value key, or errBadID.
func pathUUID(r *http.Request, key string) (string, error) {
	v := r.PathValue(key)
	if !isUUID(v) {
		return "", errBadID
	}
	return v, nil
}

// pathUint returns the unsigned integer path value key, or errBadID.
func pathUint(r *http.Request, key string) (uint, error) {
	n, err := strconv.ParseUint(r.PathValue(key), 10, 0)
	if err != nil || n == 0 {
		return 0, errBadID
	}
	return uint(n), nil
}

// queryBool parses an optional boolean query parameter.
func queryBool(r *http.Request, key string) (bool, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalid("invalid value for %s: expected true or false", key)
	}
	return b, nil
}

// MaxNameLen is the longest endpoint or credentials name accepted.
const MaxNameLen = 64

// validateName checks an endpoint or credentials name: 1 to MaxNameLen letters, digits,
// '.', '-' or '_' (names appear in URL paths and in CLI tables).
func validateName(name string) error {
	if name == "" {
		return invalid("missing name")
	}
	if utf8.RuneCountInString(name) > MaxNameLen {
		return invalid("name is longer than %d characters", MaxNameLen)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' && r != '_' {
			return invalid("invalid name: only letters, digits, '.', '-' and '_' are allowed")
		}
	}
	return nil
}

// checkURL requires an absolute http(s) URL with a host; key names the field.
func checkURL(key, raw string) error {
	if raw == "" {
		return invalid("missing %s", key)
	}
	if !garrison.ValidURL(raw) {
		return invalid("invalid %s", key)
	}
	return nil
}

// parseCABundle checks that bundle is PEM and every block a parsable certificate, and
// returns it with duplicate certificates removed.
func parseCABundle(key string, bundle []byte) ([]byte, error) {
	var out bytes.Buffer
	seen := map[string]bool{}
	rest := bundle
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, invalid("invalid %s: PEM block of type %q is not a certificate", key, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, invalid("invalid %s: a certificate does not parse", key)
		}
		if !seen[string(block.Bytes)] {
			seen[string(block.Bytes)] = true
			_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: block.Bytes})
		}
	}
	if len(seen) == 0 || len(bytes.TrimSpace(rest)) != 0 {
		return nil, invalid("invalid %s: expected PEM-encoded certificates", key)
	}
	return out.Bytes(), nil
}

// checkAppKey requires a PEM RSA private key in PKCS#1 form.
func checkAppKey(key []byte) error {
	block, _ := pem.Decode(key)
	if block == nil {
		return invalid("invalid private key: not PEM")
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
		return invalid("invalid private key: expected an RSA private key in PKCS#1 form (BEGIN RSA PRIVATE KEY)")
	}
	return nil
}
