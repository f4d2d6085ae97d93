package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/internal/instanceapi"
	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/internal/toolcache"
	"github.com/garrison-ci/garrison/provider"
	"github.com/garrison-ci/garrison/provider/providertest"
)

// TestBootLoop runs the whole offline boot loop without the reconciler: the sim provider
// (boot = "script", driven through providerexec) runs garrison's bootstrap wrapper, which
// fetches the install script from the real instance API; that downloads the stand-in
// runner archive from the forge simulator, registers (JIT files or config.sh with a
// registration token), reports installing and idle, and the stand-in runner takes the
// queued job, completes it and exits. DeleteInstance then leaves nothing behind.
func TestBootLoop(t *testing.T) {
	simExe := providertest.Build(t, ".")
	standinBin := buildStandin(t)
	tests := []struct {
		name string
		jit  bool
		// cached puts the runner-binary cache in front of the forge and then blocks the
		// forge's downloads: the runner must install from garrison's copy (air-gapped).
		cached bool
	}{
		{"jit", true, false},
		{"registration token", false, false},
		{"air-gapped from the runner cache", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLoop(t, standinBin, tt.cached)
			state := filepath.Join(t.TempDir(), "state")
			p, err := providerexec.New(providerexec.Config{Name: "sim", Executable: simExe,
				ConfigFile: writeSimConfig(t, state), ControllerID: l.ctrl.ID, ExecTimeout: time.Minute})
			must(t, err)
			job, err := l.sim.QueueJob("acme/app", "self-hosted", "linux")
			must(t, err)

			name := "garm-loop" + strings.ReplaceAll(tt.name, " ", "")
			bi := l.bootstrapInstance(name, tt.jit)
			if tt.cached {
				l.sim.SetDownloadsBlocked(true)
				checkCachedTools(t, bi.Tools, l.ctrl.MetadataURL+toolcache.PathPrefix)
			}
			inst, err := p.CreateInstance(t.Context(), bi, nil)
			must(t, err)
			target := provider.Target{PoolID: l.pool.ID, InstanceID: inst.ProviderID}
			t.Cleanup(func() { _ = p.DeleteInstance(context.Background(), target) }) // after a failure
			if inst.Status != provider.StatusRunning || inst.ProviderID != "sim-"+name {
				t.Fatalf("created %+v", inst)
			}

			// The instance API tells Notify after the store has the change: wait for its word,
			// not the store's, before reading what it was told.
			eventually(t, "runner idle", func() bool {
				s := l.seen()
				return len(s) > 0 && s[len(s)-1] == garrison.RunnerIdle
			})
			if got := l.seen(); !slices.Equal(got, []garrison.RunnerStatus{garrison.RunnerInstalling, garrison.RunnerIdle}) {
				t.Fatalf("runner statuses %v, want installing then idle; messages %+v", got, l.instance(name).StatusMessages)
			}
			eventually(t, "job completed", func() bool { j, _ := l.sim.Job(job); return j.Status == "completed" })
			j, _ := l.sim.Job(job)
			if j.Conclusion != "success" || j.RunnerName != name {
				t.Fatalf("job %+v", j)
			}
			if i := l.instance(name); !tt.jit && i.AgentID != j.RunnerID {
				t.Fatalf("agent id %d, runner id %d", i.AgentID, j.RunnerID)
			}
			dir := filepath.Join(state, "boot", inst.ProviderID)
			pid := readPid(t, filepath.Join(dir, "runner", "runner.pid"))
			eventually(t, "stand-in runner exit", func() bool { return processGone(pid) })
			if log, _ := os.ReadFile(filepath.Join(dir, "runner", "runner.log")); !strings.Contains(string(log), "completed with conclusion success") {
				t.Fatalf("runner log:\n%s", log)
			}

			must(t, p.DeleteInstance(t.Context(), target))
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("instance directory left behind: %v", err)
			}
			if left := markedProcesses(inst.ProviderID); len(left) != 0 {
				t.Fatalf("processes left behind: %v", left)
			}
		})
	}
}

// checkCachedTools checks that every runner download points at the cache.
func checkCachedTools(t *testing.T, tools []provider.RunnerApplicationDownload, prefix string) {
	t.Helper()
	if len(tools) == 0 {
		t.Fatal("no runner downloads")
	}
	for _, d := range tools {
		if !strings.HasPrefix(d.DownloadURL, prefix) || !strings.HasSuffix(d.DownloadURL, "/"+d.Filename) {
			t.Fatalf("download %s/%s from %s, want garrison's cache under %s", d.OS, d.Architecture, d.DownloadURL, prefix)
		}
	}
}

// bootstrapInstance stores the instance record (with JIT files when jit) and returns the
// CreateInstance request garrison would send, with the bootstrap wrapper injected.
func (l *loop) bootstrapInstance(name string, jit bool) provider.BootstrapInstance {
	t, ctx := l.t, l.t.Context()
	labels := []string{"self-hosted", "linux", "runner-controller-id=" + l.ctrl.ID, "runner-pool-id=" + l.pool.ID}
	rec := garrison.Instance{Name: name, PoolID: l.pool.ID, ProviderName: "sim", OSType: garrison.OSLinux, OSArch: garrison.ArchAMD64,
		Status: garrison.InstanceCreating, RunnerStatus: garrison.RunnerPending, CreateAttempt: 1,
		MetadataURL: l.ctrl.MetadataURL, CallbackURL: l.ctrl.CallbackURL}
	if jit {
		files, err := l.forge.jitConfig(ctx, l.entity, name, labels)
		must(t, err)
		rec.JITConfig = files
	}
	rec, err := l.st.CreateInstance(ctx, rec)
	must(t, err)
	tok, err := l.tokens.MintInstance(garrison.IdentityOf(rec, l.entity), 10*time.Minute)
	must(t, err)
	specs, err := bootstrap.InjectTemplate(nil, garrison.OSLinux, bootstrap.WrapperParams{
		MetadataURL: rec.MetadataURL, CallbackURL: rec.CallbackURL, InstanceToken: tok})
	must(t, err)
	tools, err := l.downloads.RunnerDownloads(ctx, l.entity)
	must(t, err)
	bi := provider.BootstrapInstance{Name: name, Tools: tools, RepoURL: instanceapi.RepoURL(l.ep, l.entity),
		CallbackURL: rec.CallbackURL, MetadataURL: rec.MetadataURL, InstanceToken: tok, ExtraSpecs: specs,
		OSArch: garrison.ArchAMD64, OSType: garrison.OSLinux, Flavor: l.pool.Flavor, Image: l.pool.Image,
		PoolID: l.pool.ID, JitConfigEnabled: jit}
	if !jit {
		bi.Labels = labels
	}
	return bi
}

// instance reads the instance record with its status messages.
func (l *loop) instance(name string) garrison.Instance {
	i, err := l.st.Instance(l.t.Context(), name)
	must(l.t, err)
	return i
}

// readPid waits for a pid file and returns the pid.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}
