package bootstrap

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// droppingHandler closes the first drops connections without an answer (curl exit 52,
// "empty reply"), like a server killed mid-request, then serves next.
type droppingHandler struct {
	drops atomic.Int32
	next  http.Handler
}

func (d *droppingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.drops.Add(-1) >= 0 {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
			return
		}
	}
	d.next.ServeHTTP(w, r)
}

// TestWrapperWaitsForARestartingServer runs the wrapper while the server is down
// (connection refused) and then drops connections (empty replies), as during a restart:
// the wrapper must keep trying and run the install script once the server answers.
func TestWrapperWaitsForARestartingServer(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	f := &fakeMetadata{status: http.StatusOK, body: "#!/bin/bash\necho installed >" + shQuote(marker) + "\n"}
	h := &droppingHandler{next: f}
	h.drops.Store(2)

	// Reserve an address, leave it closed for a while, then serve on it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := httptest.NewUnstartedServer(h)
	go func() {
		time.Sleep(1500 * time.Millisecond) // the server is "restarting"
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen again on %s: %v", addr, err)
			return
		}
		srv.Listener = l
		srv.Start()
	}()
	t.Cleanup(srv.Close)

	s, err := Wrapper("linux", WrapperParams{
		MetadataURL: "http://" + addr + "/api/v1/metadata", CallbackURL: "http://" + addr + "/api/v1/callbacks",
		InstanceToken: "the-token", NoProxy: "127.0.0.1",
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wrapper.sh")
	if err := os.WriteFile(path, s, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := bashCmd(t, path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wrapper: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "installed\n" {
		t.Fatalf("install script did not run: %q %v", b, err)
	}
	if h.drops.Load() >= 0 {
		t.Fatalf("the dropped connections were not retried (%d left)", h.drops.Load())
	}
}

// bashCmd prepares bash to run the script at path with a loopback-only environment.
func bashCmd(t *testing.T, path string) *osexec.Cmd {
	cmd := osexec.CommandContext(t.Context(), "bash", path)
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "TMPDIR="+t.TempDir())
	return cmd
}
