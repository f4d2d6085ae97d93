package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/forgesim"
	"github.com/garrison-ci/garrison/internal/instanceapi"
	"github.com/garrison-ci/garrison/internal/standin"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/sqlite"
	"github.com/garrison-ci/garrison/internal/store/storetest"
	"github.com/garrison-ci/garrison/internal/toolcache"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

const loopPAT = "pat-loop"

// simForge is the instance API's Forge, answered by the forge simulator over HTTP.
type simForge struct{ url string }

// call sends a PAT-authenticated request to the simulator and decodes the answer.
func (f simForge) call(ctx context.Context, method, path string, body, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, method, f.url+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+loopPAT)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, msg)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// scope is the simulator path of the entity's runner routes.
func scope(e garrison.Entity) string { return "/repos/" + e.Owner + "/" + e.Name + "/actions/runners" }

func (f simForge) RegistrationToken(ctx context.Context, e garrison.Entity) (string, error) {
	var out struct{ Token string }
	err := f.call(ctx, http.MethodPost, scope(e)+"/registration-token", nil, &out)
	return out.Token, err
}

func (f simForge) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	var out []provider.RunnerApplicationDownload
	err := f.call(ctx, http.MethodGet, scope(e)+"/downloads", nil, &out)
	return out, err
}

// jitConfig asks the simulator for a JIT runner and returns its files as the instance
// record keeps them (file name → base64 content).
func (f simForge) jitConfig(ctx context.Context, e garrison.Entity, name string, labels []string) (map[string]string, error) {
	var out struct {
		Encoded string `json:"encoded_jit_config"`
	}
	body := map[string]any{"name": name, "runner_group_id": 1, "labels": labels}
	if err := f.call(ctx, http.MethodPost, scope(e)+"/generate-jitconfig", body, &out); err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(out.Encoded)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	return files, json.Unmarshal(raw, &files)
}

// cachedForge is the instance API's forge with the runner downloads the cache holds.
type cachedForge struct {
	simForge
	cache *toolcache.Cache
}

func (f cachedForge) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return f.cache.Cached(ctx, e)
}

// loop is everything of the boot loop except the reconciler.
type loop struct {
	t      *testing.T
	sim    *forgesim.Sim
	forge  simForge
	st     *sqlite.Store
	tokens *auth.Tokens
	api    *httptest.Server
	ctrl   garrison.Controller
	ep     garrison.Endpoint
	entity garrison.Entity
	pool   garrison.Pool
	// downloads lists the runner downloads the bootstrap request carries: the forge's,
	// or the runner-binary cache's.
	downloads toolcache.Downloads
	cache     *toolcache.Cache // nil unless newLoop was asked for the cache

	mu       sync.Mutex // guards statuses
	statuses []garrison.RunnerStatus
}

// newLoop starts the simulator (serving the stand-in runner archive), a SQLite store
// and the instance API, and seeds controller, endpoint, credentials, repo and pool. With
// cached, the runner-binary cache sits between the forge and both the bootstrap request
// and the instance API, and serves its archives next to the instance API.
func newLoop(t *testing.T, standinBin string, cached bool) *loop {
	t.Helper()
	ctx := t.Context()
	l := &loop{t: t, sim: forgesim.New(forgesim.Options{})}
	url, err := l.sim.Start("127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { _ = l.sim.Close() })
	l.forge = simForge{url: url}
	l.sim.AddToken(loopPAT)
	must(t, l.sim.AddRepo("acme/app"))
	tarball, err := standin.Tarball(standinBin)
	must(t, err)
	l.sim.SetRunnerTarball(tarball)

	l.st, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "garrison.db"), storetest.NewSealer(storetest.Passphrase))
	must(t, err)
	t.Cleanup(func() { l.st.Close() })
	l.tokens, err = auth.NewTokens([]byte("loop secret"), 0, time.Now)
	must(t, err)
	var instForge instanceapi.Forge = l.forge
	l.downloads = l.forge
	mux := http.NewServeMux()
	if cached {
		l.cache, err = toolcache.New(toolcache.Options{Forge: l.forge, Store: l.st, Dir: t.TempDir(),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		must(t, err)
		instForge, l.downloads = cachedForge{simForge: l.forge, cache: l.cache}, l.cache
		mux.Handle(instanceapi.MetadataPrefix+toolcache.PathPrefix, l.cache.Handler())
	}
	h, err := instanceapi.New(instanceapi.Options{Store: l.st, Forge: instForge, Tokens: l.tokens,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Notify: l.notified})
	must(t, err)
	mux.Handle("/", h)
	l.api = httptest.NewServer(mux)
	t.Cleanup(l.api.Close)
	l.seed(ctx, url)
	return l
}

// seed stores the controller URLs and the GitHub endpoint, credentials, repository and pool.
func (l *loop) seed(ctx context.Context, simURL string) {
	t := l.t
	_, err := l.st.Controller(ctx)
	must(t, err)
	l.ctrl, err = l.st.UpdateController(ctx, func(c *garrison.Controller) error {
		c.MetadataURL, c.CallbackURL = l.api.URL+instanceapi.MetadataPrefix, l.api.URL+instanceapi.CallbackPrefix
		return nil
	})
	must(t, err)
	l.ep, err = l.st.CreateEndpoint(ctx, garrison.Endpoint{Name: "sim", Type: garrison.GitHub, BaseURL: simURL,
		APIBaseURL: simURL + "/", UploadBaseURL: simURL + "/"})
	must(t, err)
	cr, err := l.st.CreateCredentials(ctx, garrison.Credentials{Name: "c", ForgeType: garrison.GitHub, AuthType: garrison.AuthPAT,
		Endpoint: "sim", PAT: loopPAT})
	must(t, err)
	l.entity, err = l.st.CreateEntity(ctx, garrison.Entity{Type: garrison.Repository, Owner: "acme", Name: "app",
		CredentialsID: cr.ID, WebhookSecret: "s", Balancer: garrison.RoundRobin})
	must(t, err)
	l.pool, err = l.st.CreatePool(ctx, garrison.Pool{EntityID: l.entity.ID, ProviderName: "sim", MaxRunners: 5, Image: "img",
		Flavor: "small", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64, Enabled: true,
		Tags: garrison.TagsFromNames([]string{"self-hosted", "linux"})})
	must(t, err)
}

// notified is the instance API's Notify: it records the runner status after each change.
func (l *loop) notified(...string) {
	insts, err := l.st.ListInstances(context.Background(), store.InstanceFilter{PoolID: l.pool.ID})
	if err != nil || len(insts) != 1 {
		return
	}
	l.mu.Lock()
	l.statuses = append(l.statuses, insts[0].RunnerStatus)
	l.mu.Unlock()
}

// seen returns the runner statuses recorded so far.
func (l *loop) seen() []garrison.RunnerStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]garrison.RunnerStatus(nil), l.statuses...)
}

// writeSimConfig writes the sim provider's config for script boot.
func writeSimConfig(t *testing.T, state string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "sim.toml")
	content := fmt.Sprintf("state_dir = %q\nboot = \"script\"\nboot_delay = \"10ms\"\n\n[boot_env]\n"+
		"%s = \"200ms\"\n%s = \"2m\"\nNO_PROXY = \"127.0.0.1\"\n", state, standin.EnvJobDuration, standin.EnvIdleTimeout)
	must(t, os.WriteFile(cfg, []byte(content), 0o600))
	return cfg
}

// buildStandin builds the stand-in runner.
func buildStandin(t *testing.T) string {
	return providertest.Build(t, "github.com/garrison-ci/garrison/cmd/garrison-standin-runner")
}

// processGone reports whether pid has exited (a zombie counts as exited).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

// markedProcesses lists live processes whose environment carries GARRISON_SIM_INSTANCE=id.
func markedProcesses(id string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || processGone(pid) {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(env, []byte("\x00GARRISON_SIM_INSTANCE="+id+"\x00")) ||
			bytes.HasPrefix(env, []byte("GARRISON_SIM_INSTANCE="+id+"\x00")) {
			out = append(out, pid)
		}
	}
	return out
}

// eventually polls cond until it holds or the test context ends.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-t.Context().Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
