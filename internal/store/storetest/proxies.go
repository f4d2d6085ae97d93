package storetest

import (
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var proxyCases = []testCase{
	{"Proxies/CRUD", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		p := ok(s.CreateProxy(ctx, garrison.Proxy{Name: "Corp", Description: "d", HTTPProxy: "http://p:3128",
			NoProxy: "localhost", Username: "bob", Password: "s3cret"})).get(t)
		if p.ID == 0 {
			t.Fatal("no id")
		}
		checkStamps(t, p.CreatedAt, p.UpdatedAt)
		got := ok(s.Proxy(ctx, p.ID)).get(t)
		wantEqual(t, "password", got.Password, "s3cret")
		wantEqual(t, "no proxy", got.NoProxy, "localhost")
		q := ok(s.CreateProxy(ctx, garrison.Proxy{Name: "other", HTTPSProxy: "https://q"})).get(t)
		list := ok(s.ListProxies(ctx)).get(t)
		if len(list) != 2 || list[0].ID != p.ID || list[1].ID != q.ID {
			t.Fatalf("list %+v", list)
		}
		up := ok(s.UpdateProxy(ctx, p.ID, func(x *garrison.Proxy) error {
			x.Password, x.HTTPSProxy = "", "https://p:443"
			return nil
		})).get(t)
		wantEqual(t, "password after update", up.Password, "")
		wantEqual(t, "https after update", ok(s.Proxy(ctx, p.ID)).get(t).HTTPSProxy, "https://p:443")
		must(t, s.DeleteProxy(ctx, q.ID))
		must(t, s.DeleteProxy(ctx, q.ID)) // missing: nil
		wantErr(t, second(s.Proxy(ctx, q.ID)), garrison.ErrNotFound)
	}},
	{"Proxies/Rules", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		f := setup(t, s)
		p := ok(s.CreateProxy(ctx, garrison.Proxy{Name: "corp", HTTPProxy: "http://p:3128"})).get(t)
		other := ok(s.CreateProxy(ctx, garrison.Proxy{Name: "other", HTTPProxy: "http://o:3128"})).get(t)
		wantErr(t, second(s.CreateProxy(ctx, garrison.Proxy{Name: "CORP", HTTPProxy: "http://x"})), garrison.ErrConflict)
		wantErr(t, second(s.CreateProxy(ctx, garrison.Proxy{Name: "x"})), garrison.ErrInvalid)
		wantErr(t, second(s.UpdateProxy(ctx, other.ID, func(x *garrison.Proxy) error { x.Name = "Corp"; return nil })), garrison.ErrConflict)
		wantErr(t, second(s.UpdateProxy(ctx, other.ID, func(x *garrison.Proxy) error { x.HTTPProxy = ""; return nil })), garrison.ErrInvalid)
		wantErr(t, second(s.UpdateProxy(ctx, 999999, func(*garrison.Proxy) error { return nil })), garrison.ErrNotFound)
		wantEqual(t, "unchanged after refused updates", ok(s.Proxy(ctx, other.ID)).get(t).HTTPProxy, "http://o:3128")
		// A pool referencing it blocks deletion; the pool's generation moved with it.
		gen := f.pool.Generation
		pool := ok(s.UpdatePool(ctx, f.pool.ID, func(x *garrison.Pool) error { x.ProxyID = p.ID; return nil })).get(t)
		if pool.Generation != gen+1 || pool.ProxyID != p.ID {
			t.Fatalf("pool after setting the proxy: generation %d (was %d), proxy %d", pool.Generation, gen, pool.ProxyID)
		}
		wantErr(t, s.DeleteProxy(ctx, p.ID), garrison.ErrInvalid)
		ok(s.UpdatePool(ctx, f.pool.ID, func(x *garrison.Pool) error { x.ProxyID = 0; return nil })).get(t)
		must(t, s.DeleteProxy(ctx, p.ID))
	}},
}
