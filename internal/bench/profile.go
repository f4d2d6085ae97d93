package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// profileWindow starts a CPU profile of the server for d (rounded up to a second) when
// --cpuprofile is set: the scenario calls it as its measured window begins. The profile
// comes from the server's admin-only /debug/pprof/profile and is written to the file
// when it ends; waitProfile waits for that.
func (e *env) profileWindow(ctx context.Context, d time.Duration) {
	e.profileWindowTo(ctx, d, e.o.CPUProfile)
}

// profileWindowTo is profileWindow into path; "" (no --cpuprofile) profiles nothing.
func (e *env) profileWindowTo(ctx context.Context, d time.Duration, path string) {
	if e.o.CPUProfile == "" || path == "" || e.profiling != nil || e.server == nil {
		return // the replicas scenario has no one server to profile
	}
	secs := int((d + time.Second - 1) / time.Second)
	done := make(chan error, 1)
	e.profiling = done
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", e.server.url, max(secs, 1))
	token := e.API.Token()
	go func() { done <- fetchProfile(ctx, url, token, path) }()
	fmt.Fprintf(e.out, "profiling the server's CPU for %ds into %s\n", secs, path)
}

// waitProfile waits for a profile started by profileWindow and reports its error.
func (e *env) waitProfile() error {
	if e.profiling == nil {
		return nil
	}
	err := <-e.profiling
	e.profiling = nil
	return err
}

// fetchProfile GETs a pprof profile with the admin token and writes it to path.
func fetchProfile(ctx context.Context, url, token, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("profile: %s: %s", resp.Status, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("profile: %w", err)
	}
	return f.Close()
}

// heapProfile writes the server's heap profile (pprof: what it holds now, and what it
// allocated since it started) to --memprofile, when set; the scenario's end calls it.
func (e *env) heapProfile(ctx context.Context) error {
	if e.o.MemProfile == "" || e.server == nil {
		return nil
	}
	fmt.Fprintf(e.out, "writing the server's heap profile into %s\n", e.o.MemProfile)
	return fetchProfile(ctx, e.server.url+"/debug/pprof/heap", e.API.Token(), e.o.MemProfile)
}
