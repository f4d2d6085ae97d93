package github

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// FuzzDecodeJIT: encoded_jit_config comes from the forge. Whatever it holds, decoding
// never panics, fails only with ErrUnprocessable, and a decoded map encodes back to a
// config that decodes to the same map.
func FuzzDecodeJIT(f *testing.F) {
	good, _ := json.Marshal(map[string]string{".runner": "eyJhIjoxfQ==", ".credentials": "e30=", ".credentials_rsaparams": "e30="})
	for _, s := range []string{base64.StdEncoding.EncodeToString(good), "", "e30=", "bnVsbA==", "W10=", "!!!", "eyJhIjoxfQ",
		base64.StdEncoding.EncodeToString([]byte(`{"a":1}`)), base64.StdEncoding.EncodeToString([]byte(`{"a":"\u0000"}`))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, encoded string) {
		files, err := decodeJIT(encoded)
		if err != nil {
			if !errors.Is(err, garrison.ErrUnprocessable) {
				t.Fatalf("error %v is not ErrUnprocessable", err)
			}
			return
		}
		raw, err := json.Marshal(files)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeJIT(base64.StdEncoding.EncodeToString(raw))
		if err != nil || !maps.Equal(again, files) {
			t.Fatalf("round trip of %q: %v %v, want %v", encoded, again, err, files)
		}
	})
}

// FuzzParseRateHeaders: x-ratelimit-* headers come from the forge. A budget read from
// them has no negative field, and a budget written as headers reads back the same.
func FuzzParseRateHeaders(f *testing.F) {
	f.Add("core", "5000", "4999", "1", "1700000000")
	f.Add("", "5000", "0", "5000", "1700000000")
	f.Add("search", "-1", "x", "", "-5")
	f.Add("core", "99999999999999999999", "1e3", " 7 ", "9223372036854775807")
	f.Fuzz(func(t *testing.T, resource, limit, remaining, used, reset string) {
		h := http.Header{}
		h.Set("X-RateLimit-Resource", resource)
		h.Set("X-RateLimit-Limit", limit)
		h.Set("X-RateLimit-Remaining", remaining)
		h.Set("X-RateLimit-Used", used)
		h.Set("X-RateLimit-Reset", reset)
		rl, res, ok := parseRateHeaders(h)
		if !ok {
			if rl != (garrison.RateLimit{}) || res != "" {
				t.Fatalf("no budget, yet %+v %q", rl, res)
			}
			return
		}
		if rl.Limit < 0 || rl.Remaining < 0 || rl.Used < 0 || rl.Reset < 0 || res == "" {
			t.Fatalf("budget %+v of %q from %q %q %q %q", rl, res, limit, remaining, used, reset)
		}
		back := http.Header{}
		back.Set("X-RateLimit-Resource", res)
		back.Set("X-RateLimit-Limit", strconv.Itoa(rl.Limit))
		back.Set("X-RateLimit-Remaining", strconv.Itoa(rl.Remaining))
		back.Set("X-RateLimit-Used", strconv.Itoa(rl.Used))
		back.Set("X-RateLimit-Reset", strconv.FormatInt(rl.Reset, 10))
		if rl2, res2, ok := parseRateHeaders(back); !ok || rl2 != rl || res2 != res {
			t.Fatalf("round trip: %+v %q %v, want %+v %q", rl2, res2, ok, rl, res)
		}
	})
}

// FuzzParseRetryAfter: Retry-After comes from the forge. A wait read from it is
// between zero and maxForgeWait; whole seconds within that read back exactly.
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"60", "0", "-1", "1.5", "", " 3 ", "99999999999999999999", "9223372036854775807",
		"Wed, 01 Jan 2030 12:01:00 GMT", "Tue, 31 Dec 2029 12:00:00 GMT", "Monday, 01-Jan-30 12:00:30 GMT", "junk"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseRetryAfter(s, now)
		if !ok {
			if d != 0 {
				t.Fatalf("%q: no wait, yet %v", s, d)
			}
			return
		}
		if d < 0 || d > maxForgeWait {
			t.Fatalf("%q: wait %v out of [0, %v]", s, d, maxForgeWait)
		}
		if d%time.Second == 0 {
			if d2, ok := parseRetryAfter(strconv.FormatInt(int64(d/time.Second), 10), now); !ok || d2 != d {
				t.Fatalf("%q: %v does not read back: %v %v", s, d, d2, ok)
			}
		}
	})
}

// FuzzClassifyLimit: a 403/429 answer's headers and body come from the forge. Reading
// it never panics, names a known kind, and never asks to wait longer than maxForgeWait
// (a spent budget may answer a negative wait: its reset has passed).
func FuzzClassifyLimit(f *testing.F) {
	f.Add("60", "", "", []byte(`{"message":"You have exceeded a secondary rate limit."}`))
	f.Add("", "0", "1893499200", []byte(`{"message":"API rate limit exceeded"}`))
	f.Add("", "0", "1", []byte(`{}`))
	f.Add("", "", "", []byte(`{"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`))
	f.Add("", "", "", []byte(`{"message":"Bad credentials"}`))
	f.Add("", "0", "99999999999999999999", []byte(`nope`))
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retryAfterHeader, remaining, reset string, body []byte) {
		h := http.Header{}
		h.Set("Retry-After", retryAfterHeader)
		h.Set("X-RateLimit-Remaining", remaining)
		h.Set("X-RateLimit-Reset", reset)
		kind, wait := classifyLimit(h, body, now)
		switch kind {
		case notLimited, secondaryLimit:
			if wait != 0 {
				t.Fatalf("kind %d with wait %v", kind, wait)
			}
		case retryAfter:
			if wait < 0 || wait > maxForgeWait {
				t.Fatalf("Retry-After %q: wait %v", retryAfterHeader, wait)
			}
		case primaryLimit:
			if wait > maxForgeWait {
				t.Fatalf("reset %q: wait %v", reset, wait)
			}
		default:
			t.Fatalf("unknown kind %d", kind)
		}
	})
}
