package garrison

import "testing"

func TestProxyValidate(t *testing.T) {
	ok := Proxy{Name: "corp", HTTPProxy: "http://proxy.corp:3128"}
	tests := []struct {
		name string
		edit func(*Proxy)
		want string // "" = valid
	}{
		{"valid", func(*Proxy) {}, ""},
		{"https only", func(p *Proxy) { p.HTTPProxy, p.HTTPSProxy = "", "https://p:443" }, ""},
		{"socks5", func(p *Proxy) { p.HTTPProxy = "socks5://p:1080" }, ""},
		{"no name", func(p *Proxy) { p.Name = " " }, "name cannot be empty"},
		{"no URL", func(p *Proxy) { p.HTTPProxy = "" }, "at least one of http_proxy or https_proxy must be set"},
		{"bad scheme", func(p *Proxy) { p.HTTPProxy = "ftp://p" }, `invalid proxy URL scheme "ftp"; supported schemes are http, https and socks5`},
		{"no scheme", func(p *Proxy) { p.HTTPProxy = "proxy:3128" }, `invalid proxy URL scheme "proxy"; supported schemes are http, https and socks5`},
		{"no host", func(p *Proxy) { p.HTTPSProxy = "http://:3128" }, `invalid proxy URL: "http://:3128"; missing host`},
		{"credentials", func(p *Proxy) { p.HTTPProxy = "http://u:p@proxy" }, "proxy URLs must not embed credentials; use the username and password fields instead"},
		{"unparseable", func(p *Proxy) { p.HTTPProxy = "http://[::1" }, `invalid proxy URL: "http://[::1"`},
		{"password alone", func(p *Proxy) { p.Password = "pw" }, "password cannot be set without a username"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			tc.edit(&p)
			err := p.Validate()
			if got := MessageOf(err); (err == nil) != (tc.want == "") || got != tc.want {
				t.Fatalf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestProxyEffective(t *testing.T) {
	p := Proxy{HTTPProxy: "http://proxy:3128", HTTPSProxy: "https://proxy:443", NoProxy: "localhost,.corp"}
	if h, hs, n := p.Effective(); h != "http://proxy:3128" || hs != "https://proxy:443" || n != "localhost,.corp" {
		t.Fatalf("without credentials: %q %q %q", h, hs, n)
	}
	p.Username, p.Password = "bob", "p@ss word"
	if h, hs, _ := p.Effective(); h != "http://bob:p%40ss%20word@proxy:3128" || hs != "https://bob:p%40ss%20word@proxy:443" {
		t.Fatalf("with credentials: %q %q", h, hs)
	}
	p.Password = ""
	if h, _, _ := p.Effective(); h != "http://bob@proxy:3128" {
		t.Fatalf("with a user only: %q", h)
	}
}

func FuzzValidateProxyURL(f *testing.F) {
	for _, s := range []string{"", "http://p:3128", "socks5://u:p@h", "http://[::1", "%zz", "https://:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ValidateProxyURL(s); err != nil && CodeOf(err) != EInvalid {
			t.Fatalf("ValidateProxyURL(%q) = %v, want an invalid error", s, err)
		}
		p := Proxy{Name: "n", HTTPProxy: s, Username: "u", Password: "p"}
		if p.Validate() == nil {
			if h, _, _ := p.Effective(); h == "" {
				t.Fatalf("a valid proxy %q composed to nothing", s)
			}
		}
	})
}
