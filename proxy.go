package garrison

import (
	"net/url"
	"strings"
	"time"
)

// Proxy is a named HTTP(S) proxy that pools reference by ID (rest-api-2 §6). The runners
// of such a pool, and the provider creating them, reach the network through it.
type Proxy struct {
	ID          uint
	Name        string // unique, case-insensitively
	Description string
	HTTPProxy   string // http, https or socks5 URL without credentials; "" for none
	HTTPSProxy  string
	NoProxy     string // passed verbatim
	Username    string
	Password    string // sealed at rest, never returned by the API
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Validate checks the rules every stored proxy satisfies (rest-api-2 §6.3).
func (p Proxy) Validate() error {
	if strings.TrimSpace(p.Name) == "" {
		return Errorf(EInvalid, "name cannot be empty")
	}
	if p.HTTPProxy == "" && p.HTTPSProxy == "" {
		return Errorf(EInvalid, "at least one of http_proxy or https_proxy must be set")
	}
	for _, u := range []string{p.HTTPProxy, p.HTTPSProxy} {
		if err := ValidateProxyURL(u); err != nil {
			return err
		}
	}
	if p.Password != "" && p.Username == "" {
		return Errorf(EInvalid, "password cannot be set without a username")
	}
	return nil
}

// ValidateProxyURL checks one proxy URL: "" is fine; otherwise an http, https or socks5
// URL with a host and without embedded credentials.
func ValidateProxyURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return Errorf(EInvalid, "invalid proxy URL: %q", s)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "socks5":
	default:
		return Errorf(EInvalid, "invalid proxy URL scheme %q; supported schemes are http, https and socks5", u.Scheme)
	}
	if u.User != nil {
		return Errorf(EInvalid, "proxy URLs must not embed credentials; use the username and password fields instead")
	}
	if u.Hostname() == "" {
		return Errorf(EInvalid, "invalid proxy URL: %q; missing host", s)
	}
	return nil
}

// Effective returns the proxy URLs with the credentials embedded as userinfo
// (scheme://user:pass@host, or user@ without a password) and NoProxy verbatim (PX-2).
func (p Proxy) Effective() (httpProxy, httpsProxy, noProxy string) {
	return p.withUser(p.HTTPProxy), p.withUser(p.HTTPSProxy), p.NoProxy
}

func (p Proxy) withUser(s string) string {
	if s == "" || p.Username == "" {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if p.Password != "" {
		u.User = url.UserPassword(p.Username, p.Password)
	} else {
		u.User = url.User(p.Username)
	}
	return u.String()
}
