package main

import (
	"context"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/server"
)

// inProcessServer runs `garrison server` with args in-process until its listening line
// is logged, and returns its output and a function that stops it and returns the exit
// code.
func inProcessServer(t *testing.T, args ...string) (*syncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"server"}, args...), nil, out, out) }()
	waitFor(t, "the server to listen", func() bool {
		select {
		case code := <-done:
			t.Fatalf("the server exited with %d:\n%s", code, out.String())
		default:
		}
		return strings.Contains(out.String(), "garrison server listening")
	})
	stopped := make(chan int, 1)
	stop := func() int {
		cancel()
		code := <-done
		stopped <- code
		return code
	}
	t.Cleanup(func() {
		select {
		case <-stopped:
		default:
			stop()
		}
	})
	return out, stop
}

// TestFirstRunHint: while there is no admin user, the server's first lines say how to
// create one with garrison init and the URL it listens at; once there is one, they do
// not.
func TestFirstRunHint(t *testing.T) {
	data := t.TempDir()
	addr := freeAddr(t)
	out, stop := inProcessServer(t, "--data-dir", data, "--listen", addr)
	if code := stop(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, out.String())
	}
	want := "no admin user yet: create one with `garrison init --name local --url http://" + addr + " --username admin"
	if !strings.Contains(out.String(), want) {
		t.Errorf("the first start did not say %q:\n%s", want, out.String())
	}

	createAdmin(t, data)
	out, stop = inProcessServer(t, "--data-dir", data, "--listen", addr)
	if code := stop(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, out.String())
	}
	if strings.Contains(out.String(), "garrison init") {
		t.Errorf("the hint was logged with an admin user:\n%s", out.String())
	}
}

// createAdmin stores an admin user in the server database of data.
func createAdmin(t *testing.T, data string) {
	t.Helper()
	cfg, err := server.LoadConfig(server.Flags{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	st, err := server.OpenStore(t.Context(), cfg.Database)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hash, err := auth.HashPassword("a-long-enough-passphrase-41%")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateAdmin(t.Context(), garrison.User{Username: "admin", Email: "admin@example.com",
		PasswordHash: hash, Enabled: true, IsAdmin: true}); err != nil {
		t.Fatal(err)
	}
}
