package simprovider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/provider"
)

// Errors of script boot, told apart with errors.Is.
var (
	// ErrNoInstallTemplate: script boot needs extra_specs.runner_install_template.
	ErrNoInstallTemplate = errors.New("sim: script boot needs extra_specs.runner_install_template")
	// ErrNoTool: no runner download matches the instance's OS and architecture.
	ErrNoTool = errors.New("sim: no runner download for this OS and architecture")
	// ErrUnsupportedOS: script boot runs Linux instances only.
	ErrUnsupportedOS = errors.New("sim: script boot supports os_type linux only")
)

// BootState is what the record keeps about a booted instance.
type BootState struct {
	// Dir is the instance's throwaway directory.
	Dir string `json:"dir"`
	// PGID is the process group (and session) of the install script and its children.
	PGID      int       `json:"pgid"`
	StartedAt time.Time `json:"started_at"`
}

// Files and directories inside an instance directory.
const (
	scriptName = "install_runner.sh"
	logName    = "boot.log"
	runnerDir  = "runner"
)

// renderInstall renders the pool's runner_install_template against the install context
// built from bi, as GARM's providers do (garm-provider-common's runner install script).
func renderInstall(bi provider.BootstrapInstance) ([]byte, error) {
	if bi.OSType != "" && bi.OSType != bootstrap.OSLinux {
		return nil, ErrUnsupportedOS
	}
	specs, err := bootstrap.ParseExtraSpecs(bi.ExtraSpecs)
	if err != nil {
		return nil, err
	}
	if specs.Template == nil {
		return nil, ErrNoInstallTemplate
	}
	tool, err := findTool(bi.Tools, bi.OSType, bi.OSArch)
	if err != nil {
		return nil, err
	}
	c := bootstrap.InstallContext{
		FileName: tool.Filename, DownloadURL: tool.DownloadURL, TempDownloadToken: tool.TempDownloadToken,
		RepoURL: bi.RepoURL, MetadataURL: bi.MetadataURL, CallbackURL: bi.CallbackURL, CallbackToken: bi.InstanceToken,
		RunnerName: bi.Name, RunnerLabels: strings.Join(bi.Labels, ","), CABundle: string(bi.CACertBundle),
		GitHubRunnerGroup: bi.GitHubRunnerGroup, EnableBootDebug: specs.EnableBootDebug || bi.UserDataOptions.EnableBootDebug,
		ExtraContext: specs.ExtraContext, UseJITConfig: bi.JitConfigEnabled,
		HTTPProxy: bi.ProxyConfig.HTTPProxy, HTTPSProxy: bi.ProxyConfig.HTTPSProxy, NoProxy: bi.ProxyConfig.NoProxy,
	}
	return bootstrap.RenderTemplate(specs.Template, c)
}

// toolNames maps garrison OS and architecture names to the names a download may use
// (provider-contract.md §6 matching rule).
var toolNames = map[string][]string{
	"linux": {"linux"}, "windows": {"win", "windows"},
	"amd64": {"x64", "amd64"}, "arm": {"arm"}, "arm64": {"arm64"},
}

// findTool picks the download for osType/arch (defaults linux/amd64).
func findTool(tools []provider.RunnerApplicationDownload, osType, arch string) (provider.RunnerApplicationDownload, error) {
	osType, arch = cmpOr(osType, "linux"), cmpOr(arch, "amd64")
	for _, t := range tools {
		if slices.Contains(toolNames[osType], t.OS) && slices.Contains(toolNames[arch], t.Architecture) {
			return t, nil
		}
	}
	return provider.RunnerApplicationDownload{}, fmt.Errorf("%w (%s/%s)", ErrNoTool, osType, arch)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// bootDir is the instance directory of provider id.
func (s *store) bootDir(id string) string { return filepath.Join(s.dir, "boot", id) }

// startBoot writes script into a fresh instance directory for id and starts it detached:
// its own session and process group, stdin /dev/null, output in boot.log.
func startBoot(b Boot, dir, id string, script []byte) (BootState, error) {
	for _, d := range []string{dir, filepath.Join(dir, "home"), filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return BootState{}, fmt.Errorf("sim: instance directory: %w", err)
		}
	}
	path := filepath.Join(dir, scriptName)
	if err := os.WriteFile(path, script, 0o700); err != nil {
		return BootState{}, fmt.Errorf("sim: writing %s: %w", scriptName, err)
	}
	logFile, err := os.OpenFile(filepath.Join(dir, logName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return BootState{}, fmt.Errorf("sim: boot log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(path)
	cmd.Dir, cmd.Env = dir, bootEnv(b, dir, id)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return BootState{}, fmt.Errorf("sim: starting %s: %w", scriptName, err)
	}
	st := BootState{Dir: dir, PGID: cmd.Process.Pid, StartedAt: time.Now().UTC()}
	_ = cmd.Process.Release()
	return st, nil
}

// bootEnv is the boot script's whole environment: the configured extras, then the
// provider's own variables (which win).
func bootEnv(b Boot, dir, id string) []string {
	cache := b.RunnerCache
	if cache == "" {
		cache = filepath.Join(dir, "no-runner-cache") // never the host's /opt/cache
	}
	own := map[string]string{
		"PATH": b.Path, "HOME": filepath.Join(dir, "home"), "TMPDIR": filepath.Join(dir, "tmp"),
		"GARRISON_RUNNER_HOME": filepath.Join(dir, runnerDir), "GARRISON_RUNNER_CACHE": cache,
		"GARRISON_NO_SYSTEMD": "1", "GARRISON_RETRY_DELAY": "1", markerEnv: id,
	}
	var env []string
	for k, v := range b.Env {
		if _, ok := own[k]; !ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range own {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

// teardown stops an instance's boot processes and removes its directory (the one the
// store derives from the id, not the recorded path).
func (s *store) teardown(ctx context.Context, r Record) error {
	if r.Boot == nil {
		return nil
	}
	if err := stopGroup(ctx, r.Boot.PGID, r.ProviderID); err != nil {
		return err
	}
	if err := os.RemoveAll(s.bootDir(r.ProviderID)); err != nil {
		return fmt.Errorf("sim: removing instance directory: %w", err)
	}
	return nil
}
