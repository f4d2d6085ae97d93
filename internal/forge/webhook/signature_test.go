package webhook

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestVerifySignature(t *testing.T) {
	secret := []byte("It's a Secret to Everybody")
	body := []byte("Hello, World!")
	const vector = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	tests := []struct {
		name string
		sig  string
		want error
		code garrison.ErrorCode
	}{
		{"test vector", vector, nil, ""},
		{"upper-case hex", "sha256=" + strings.ToUpper(vector[7:]), nil, ""},
		{"sha1", Signature1(body, secret), nil, ""},
		{"missing", "", ErrMissingSignature, garrison.EUnauthorized},
		{"no equals", "sha256" + vector[7:], ErrInvalidSignature, garrison.EInvalid},
		{"unknown algo", "md5=abcdef", ErrUnknownSignatureType, garrison.EInvalid},
		{"mismatch", "sha256=" + strings.Repeat("0", 64), ErrSignatureMismatch, garrison.EUnauthorized},
		{"not hex", "sha256=zz", ErrSignatureMismatch, garrison.EUnauthorized},
		{"sha1 digest under sha256", "sha256=" + Signature1(body, secret)[5:], ErrSignatureMismatch, garrison.EUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifySignature(tt.sig, body, secret)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("VerifySignature(%q) = %v, want %v", tt.sig, err, tt.want)
			}
			if err != nil && garrison.CodeOf(err) != tt.code {
				t.Fatalf("code = %s, want %s", garrison.CodeOf(err), tt.code)
			}
		})
	}
	if Signature256(body, secret) != vector {
		t.Fatalf("Signature256 = %s", Signature256(body, secret))
	}
}

func TestVerifyHeaders(t *testing.T) {
	secret, body := []byte("s"), []byte(`{"a":1}`)
	tests := []struct {
		name string
		h    http.Header
		want error
	}{
		{"sha256 header", http.Header{HeaderSignature256: {Signature256(body, secret)}}, nil},
		{"legacy header only", http.Header{HeaderSignature: {Signature1(body, secret)}}, nil},
		{"sha256 preferred", http.Header{HeaderSignature256: {"sha256=00"}, HeaderSignature: {Signature1(body, secret)}}, ErrSignatureMismatch},
		{"none", http.Header{}, ErrMissingSignature},
		{"wrong secret", http.Header{HeaderSignature256: {Signature256(body, []byte("x"))}}, ErrSignatureMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Verify(tt.h, body, secret); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func FuzzVerifySignature(f *testing.F) {
	f.Add([]byte("Hello, World!"), []byte("It's a Secret to Everybody"), "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
	f.Add([]byte(""), []byte(""), "")
	f.Add([]byte("{}"), []byte("k"), "sha1=00")
	f.Add([]byte("x"), []byte("k"), "=")
	f.Add([]byte("x"), []byte("k"), "SHA256=ZZ")
	f.Fuzz(func(t *testing.T, body, secret []byte, sig string) {
		err := VerifySignature(sig, body, secret)
		if err != nil && garrison.CodeOf(err) == garrison.EInternal {
			t.Fatalf("unclassified error %v", err)
		}
		if err := VerifySignature(Signature256(body, secret), body, secret); err != nil {
			t.Fatalf("own sha256 signature rejected: %v", err)
		}
		if err := VerifySignature(Signature1(body, secret), body, secret); err != nil {
			t.Fatalf("own sha1 signature rejected: %v", err)
		}
	})
}
