package garrison

import "net/url"

// schemeHost returns scheme://host of raw, or "" if it does not parse with both.
func schemeHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// ValidURL reports whether raw parses as an absolute http(s) URL with a host.
func ValidURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
