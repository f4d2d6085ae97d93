package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestTrustedProxies(t *testing.T) {
	tests := []struct {
		name, list string
		want       []string // resolved prefixes
		bad        string   // fragment of the problem, "" if valid
	}{
		{"absent", "", nil, ""},
		{"cidrs", `["10.0.0.0/8", "fd00::/8"]`, []string{"10.0.0.0/8", "fd00::/8"}, ""},
		{"host bits masked", `["192.168.1.7/24"]`, []string{"192.168.1.0/24"}, ""},
		{"bare addresses", `["192.0.2.1", "2001:db8::1"]`, []string{"192.0.2.1/32", "2001:db8::1/128"}, ""},
		{"IPv4-mapped", `["::ffff:10.0.0.0/104"]`, []string{"10.0.0.0/8"}, ""},
		{"host name", `["proxy.example.com"]`, nil, `item 0: "proxy.example.com" is not a CIDR`},
		{"bad length", `["10.0.0.0/8", "10.0.0.0/33"]`, nil, `item 1: "10.0.0.0/33" is not a CIDR`},
		{"empty", `[""]`, nil, `item 0: "" is not a CIDR`},
		{"zone", `["fe80::1%eth0"]`, nil, "is not a CIDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "[apiserver]\n"
			if tt.list != "" {
				doc += "trusted_proxies = " + tt.list + "\n"
			}
			cfg, err := Parse([]byte(doc))
			if tt.bad != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Key != "apiserver.trusted_proxies" || !strings.Contains(fe.Problem, tt.bad) {
					t.Fatalf("err = %v, want apiserver.trusted_proxies: ...%s...", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range cfg.APIServer.TrustedProxies {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("trusted proxies = %v, want %v", got, tt.want)
			}
		})
	}
}
