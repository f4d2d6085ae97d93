package testbed_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// TestE2EPoolProxy checks rest-api-2 PX-2/PX-3 end to end: a proxy stored through the
// API and set on a pool reaches the provider (the install script it renders from the
// bootstrap parameters) and the runner (its .env), with the credentials embedded in the
// URL; the runner still boots, since no_proxy covers the loopback servers.
func TestE2EPoolProxy(t *testing.T) {
	e := newE2E(t, 200*time.Millisecond)
	var px apiv1.Proxy
	err := e.API.Do(t.Context(), "POST", "/proxies", nil, apiv1.CreateProxyParams{Name: "corp",
		HTTPProxy: "http://proxy.invalid:3128", NoProxy: "127.0.0.1,localhost", Username: "bob", Password: "s3cret"}, &px)
	if err != nil {
		t.Fatalf("creating the proxy: %v", err)
	}
	pool := e.addPool(t, e2eTags, 1, 1, func(p *apiv1.CreatePoolParams) { p.ProxyID = &px.ID })
	// The server mounts the object store in its data directory.
	var objects apiv1.FileObjectPage
	if err := e.API.Do(t.Context(), "GET", "/objects", nil, nil, &objects); err != nil || objects.CurrentPage != 1 {
		t.Fatalf("object store of the server: %+v, %v", objects, err)
	}
	eventually(t, "an idle runner behind the proxy", func() (bool, string) {
		insts := e.poolInstances(t, pool.ID)
		return len(idleNames(insts)) == 1, describe(insts)
	})
	const effective = "http://bob:s3cret@proxy.invalid:3128"
	var script, env bool
	err = filepath.WalkDir(e.Path("sim-state", "boot"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case d.Name() == "install_runner.sh":
			script = script || (bytes.Contains(b, []byte(effective)) && bytes.Contains(b, []byte("127.0.0.1,localhost")))
		case d.Name() == ".env":
			env = env || (bytes.Contains(b, []byte("http_proxy="+effective)) && bytes.Contains(b, []byte("no_proxy=127.0.0.1,localhost")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !script || !env {
		t.Fatalf("proxy in the provider's install script: %v; in the runner's .env: %v", script, env)
	}
	if err := e.ScaleDown(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.expectNoLeaks(t)
}
