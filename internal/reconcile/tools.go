package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// NoDownloadError says that the forge offers no runner download a pool's instances can
// use: every create of the pool fails until one appears.
type NoDownloadError struct {
	OS, Arch string // the pool's os_type and os_arch
	Source   string // where the downloads come from: a releases URL, or the forge's list
	Detail   string // why: what is offered instead, or why nothing is
}

func (e *NoDownloadError) Error() string {
	return fmt.Sprintf("no usable runner download for %s/%s in %s (%s)", e.OS, e.Arch, e.Source, e.Detail)
}

// runnerTools lists the entity's runner downloads and checks that one fits the pool.
func runnerTools(ctx context.Context, env *poolEnv, f Forge, ep garrison.Endpoint) ([]provider.RunnerApplicationDownload, error) {
	tools, err := f.RunnerDownloads(ctx, env.entity)
	noDownload := func(detail string) error {
		return &NoDownloadError{OS: env.pool.OSType, Arch: env.pool.OSArch, Source: downloadSource(env.entity, ep), Detail: detail}
	}
	switch {
	case err != nil && env.entity.ForgeType == garrison.Gitea && garrison.CodeOf(err) == garrison.ENotFound:
		// The releases list is public and not the entity's: not found means no release.
		return nil, noDownload(err.Error())
	case err != nil:
		return nil, fmt.Errorf("runner downloads: %w", err)
	case !offersTools(tools, env.pool.OSType, env.pool.OSArch):
		return nil, noDownload(offered(tools))
	}
	return tools, nil
}

// downloadSource names where the entity's runner downloads come from.
func downloadSource(e garrison.Entity, ep garrison.Endpoint) string {
	if e.ForgeType != garrison.Gitea {
		return "the runner downloads of " + e.FullName()
	}
	if ep.ToolsMetadataURL != "" {
		return ep.ToolsMetadataURL
	}
	return garrison.DefaultGiteaToolsURL
}

// offered lists the os/arch pairs of downloads, for messages.
func offered(tools []provider.RunnerApplicationDownload) string {
	if len(tools) == 0 {
		return "it offers none"
	}
	pairs := make([]string, len(tools))
	for i, t := range tools {
		pairs[i] = t.OS + "/" + t.Architecture
	}
	return "it offers " + strings.Join(pairs, ", ")
}

// githubNames are the GitHub spellings of garrison's os types and architectures.
var githubNames = map[string]string{
	garrison.OSLinux: "linux", garrison.OSWindows: "win",
	garrison.ArchAMD64: "x64", garrison.ArchARM: "arm", garrison.ArchARM64: "arm64",
}

// offersTools reports whether a download fits osType/arch, by the matching rule of the
// provider contract (§6): os and architecture each equal the garrison or GitHub name.
func offersTools(tools []provider.RunnerApplicationDownload, osType, arch string) bool {
	same := func(got, want string) bool {
		return got == want || (githubNames[want] != "" && got == githubNames[want])
	}
	for _, t := range tools {
		if same(t.OS, osType) && same(t.Architecture, arch) {
			return true
		}
	}
	return false
}
