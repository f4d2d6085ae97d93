package httpapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// clientAddr is the address of the client that sent r: the TCP peer, unless the peer is
// one of Options.TrustedProxies, in which case it is the right-most address of
// X-Forwarded-For that is not a trusted proxy. Each trusted proxy appends the address it
// received the request from, so everything left of the first untrusted address (read
// from the right) may be forged by the client and is never used. When the header runs
// out, or holds something that is not an address, the last trusted hop stands for the
// client.
func (s *Server) clientAddr(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := peer.Addr().Unmap()
	if !s.trustedProxy(addr) {
		return addr.String()
	}
	hops := forwardedFor(r.Header)
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			break
		}
		addr = hop
		if !s.trustedProxy(hop) {
			break
		}
	}
	return addr.String()
}

// trustedProxy reports whether addr is in one of Options.TrustedProxies.
func (s *Server) trustedProxy(addr netip.Addr) bool {
	return slices.ContainsFunc(s.opts.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(addr) })
}

// forwardedFor lists the X-Forwarded-For hops of h, left to right, over all its lines.
func forwardedFor(h http.Header) []string {
	var hops []string
	for _, line := range h.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// parseHop parses one X-Forwarded-For entry: an IP address, or one with a port.
func parseHop(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		if perr != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}
