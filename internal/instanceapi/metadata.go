package instanceapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// instanceMetadata is the runner-metadata body (§4).
type instanceMetadata struct {
	MetadataAccess        metadataAccess                     `json:"metadata_access"`
	ForgeType             garrison.ForgeType                 `json:"forge_type"`
	RunnerRegistrationURL string                             `json:"runner_registration_url"`
	RunnerName            string                             `json:"runner_name"`
	RunnerLabels          []string                           `json:"runner_labels,omitempty"`
	CABundles             map[string][]byte                  `json:"ca_bundles,omitempty"`
	ExtraSpecs            json.RawMessage                    `json:"extra_specs,omitempty"`
	AgentMode             bool                               `json:"agent_mode"`
	AgentShellEnabled     bool                               `json:"agent_shell_enabled,omitempty"`
	JITEnabled            bool                               `json:"jit_enabled"`
	RunnerTools           provider.RunnerApplicationDownload `json:"runner_tools"`
}

type metadataAccess struct {
	CallbackURL string `json:"callback_url"`
	MetadataURL string `json:"metadata_url"`
	AgentURL    string `json:"agent_url"`
}

// handleRunnerMetadata serves GET runner-metadata.
func (h *Handler) handleRunnerMetadata(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	md, err := h.runnerMetadata(ctx, ai)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, md)
}

// runnerMetadata assembles §4 for the calling instance.
func (h *Handler) runnerMetadata(ctx context.Context, ai *authInfo) (*instanceMetadata, error) {
	if !ai.entity.ForgeType.Valid() {
		return nil, garrison.Errorf(garrison.EUnprocessable, "unknown forge type %q", ai.entity.ForgeType)
	}
	ctrl, err := h.store.Controller(ctx)
	if err != nil {
		return nil, err
	}
	ep, err := h.store.Endpoint(ctx, ai.entity.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("instanceapi: endpoint of entity %s: %w", ai.entity.ID, err)
	}
	tools, err := h.runnerTools(ctx, ai)
	if err != nil {
		return nil, err
	}
	if len(ai.pool.ExtraSpecs) > 0 && !json.Valid(ai.pool.ExtraSpecs) {
		return nil, fmt.Errorf("instanceapi: pool %s has invalid extra specs", ai.pool.ID)
	}
	md := &instanceMetadata{
		MetadataAccess: metadataAccess{
			CallbackURL: ai.inst.CallbackURL, MetadataURL: ai.inst.MetadataURL, AgentURL: ctrl.EffectiveAgentURL(),
		},
		ForgeType:             ai.entity.ForgeType,
		RunnerRegistrationURL: RepoURL(ep, ai.entity),
		RunnerName:            ai.inst.Name,
		ExtraSpecs:            ai.pool.ExtraSpecs,
		JITEnabled:            len(ai.inst.JITConfig) > 0,
		RunnerTools:           tools,
	}
	if !md.JITEnabled {
		md.RunnerLabels = RunnerLabels(ai.pool, ctrl.ID)
	}
	if len(ep.CACertBundle) > 0 {
		md.CABundles = map[string][]byte{"forge_ca": ep.CACertBundle}
	}
	return md, nil
}

// runnerTools returns the runner download for the instance's OS and architecture.
func (h *Handler) runnerTools(ctx context.Context, ai *authInfo) (provider.RunnerApplicationDownload, error) {
	all, err := h.forge.RunnerDownloads(ctx, ai.entity)
	if err != nil {
		return provider.RunnerApplicationDownload{}, fmt.Errorf("instanceapi: runner downloads: %w", err)
	}
	osType, arch := ai.inst.OSType, ai.inst.OSArch
	if osType == "" {
		osType = ai.pool.OSType
	}
	if arch == "" {
		arch = ai.pool.OSArch
	}
	if t, ok := MatchTools(all, osType, arch); ok {
		return t, nil
	}
	return provider.RunnerApplicationDownload{}, fmt.Errorf("instanceapi: no runner download for %s/%s", osType, arch)
}

// ghOS and ghArch translate garrison OS types and architectures to GitHub's names.
var (
	ghOS   = map[string]string{garrison.OSLinux: "linux", garrison.OSWindows: "win"}
	ghArch = map[string]string{garrison.ArchAMD64: "x64", garrison.ArchARM: "arm", garrison.ArchARM64: "arm64"}
)

// MatchTools picks the download for osType/arch (provider-contract.md §6): the entry's
// os is the GitHub or garrison name of osType, and its architecture the GitHub or
// garrison name of arch.
func MatchTools(tools []provider.RunnerApplicationDownload, osType, arch string) (provider.RunnerApplicationDownload, bool) {
	gos, okOS := ghOS[osType]
	garch, okArch := ghArch[arch]
	if !okOS || !okArch {
		return provider.RunnerApplicationDownload{}, false
	}
	for _, t := range tools {
		if (t.OS == gos || t.OS == osType) && (t.Architecture == garch || t.Architecture == arch) {
			return t, true
		}
	}
	return provider.RunnerApplicationDownload{}, false
}

// RepoURL is the URL a runner registers against (BootstrapInstance repo_url): GitHub
// <base>/<owner>/<repo>, <base>/<org>, <base>/enterprises/<ent>; Gitea the API base URL.
func RepoURL(ep garrison.Endpoint, e garrison.Entity) string {
	if e.ForgeType == garrison.Gitea || ep.Type == garrison.Gitea {
		return ep.APIBaseURL
	}
	base := strings.TrimRight(ep.BaseURL, "/")
	switch e.Type {
	case garrison.Repository:
		return base + "/" + e.Owner + "/" + e.Name
	case garrison.Enterprise:
		return base + "/enterprises/" + e.Name
	}
	return base + "/" + e.Name
}

// RunnerLabels are the labels of a non-JIT runner: the pool's tags plus the controller
// and pool labels.
func RunnerLabels(p garrison.Pool, controllerID string) []string {
	return append(p.TagNames(), "runner-controller-id="+controllerID, "runner-pool-id="+p.ID)
}
