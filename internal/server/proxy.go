package server

import (
	"context"
	"fmt"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// proxyReader reads proxies by id.
type proxyReader interface {
	Proxy(ctx context.Context, id uint) (garrison.Proxy, error)
}

// poolProxy returns the effective proxy of pools (rest-api-2 PX-2, PX-3): the pool's
// proxy with its credentials embedded in the URLs, or the zero config when the pool has
// none. A pool whose proxy is gone cannot create runners (PX-5).
func poolProxy(st proxyReader) func(ctx context.Context, p garrison.Pool) (provider.ProxyConfig, error) {
	return func(ctx context.Context, p garrison.Pool) (provider.ProxyConfig, error) {
		if p.ProxyID == 0 {
			return provider.ProxyConfig{}, nil
		}
		px, err := st.Proxy(ctx, p.ProxyID)
		if err != nil {
			return provider.ProxyConfig{}, fmt.Errorf("proxy %d set on pool %s: %w", p.ProxyID, p.ID, err)
		}
		h, hs, n := px.Effective()
		return provider.ProxyConfig{HTTPProxy: h, HTTPSProxy: hs, NoProxy: n}, nil
	}
}
