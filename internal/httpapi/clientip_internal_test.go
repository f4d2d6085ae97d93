package httpapi

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	s := &Server{opts: Options{TrustedProxies: []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8"),
	}}}
	tests := []struct {
		name, peer string
		xff        []string // header lines
		want       string
	}{
		{"direct client", "203.0.113.7:5000", nil, "203.0.113.7"},
		{"direct client, header ignored", "203.0.113.7:5000", []string{"198.51.100.1"}, "203.0.113.7"},
		{"IPv4-mapped peer", "[::ffff:203.0.113.7]:5000", []string{"198.51.100.1"}, "203.0.113.7"},
		{"via proxy", "10.0.0.2:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"via two proxies", "10.0.0.2:5000", []string{"203.0.113.7, 10.1.1.1"}, "203.0.113.7"},
		{"forged left-most hop", "10.0.0.2:5000", []string{"1.1.1.1, 203.0.113.7"}, "203.0.113.7"},
		{"several header lines", "10.0.0.2:5000", []string{"1.1.1.1", "203.0.113.7, 10.1.1.1"}, "203.0.113.7"},
		{"hop with port", "10.0.0.2:5000", []string{"203.0.113.7:4711"}, "203.0.113.7"},
		{"IPv6 hop with port", "[fd00::1]:443", []string{"[2001:db8::7]:4711"}, "2001:db8::7"},
		{"IPv6 proxy", "[fd00::1]:443", []string{"2001:db8::7"}, "2001:db8::7"},
		{"no header", "10.0.0.2:5000", nil, "10.0.0.2"},
		{"only proxies", "10.0.0.2:5000", []string{"10.9.9.9, 10.1.1.1"}, "10.9.9.9"},
		{"garbage stops the walk", "10.0.0.2:5000", []string{"203.0.113.7, bogus, 10.1.1.1"}, "10.1.1.1"},
		{"empty entry stops the walk", "10.0.0.2:5000", []string{"203.0.113.7,"}, "10.0.0.2"},
		{"unparseable peer", "pipe", []string{"203.0.113.7"}, "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.peer, Header: http.Header{}}
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := s.clientAddr(r); got != tt.want {
				t.Errorf("clientAddr = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLimitKey(t *testing.T) {
	for client, want := range map[string]string{
		"203.0.113.7":          "203.0.113.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64", // same /64, same key
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"pipe":                 "pipe",
	} {
		if got := limitKey(client); got != want {
			t.Errorf("limitKey(%q) = %q, want %q", client, got, want)
		}
	}
}
