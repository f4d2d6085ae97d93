package instanceapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/provider"
)

// errNoTemplate is the 409 of S-1.
var errNoTemplate = garrison.Errorf(garrison.EConflict,
	"pool or scale set has no template associated and no template is defined in extra_specs")

// handleInstallScript serves GET install-script (§6).
func (h *Handler) handleInstallScript(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	script, err := h.installScript(ctx, ai)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	writeText(w, "text/plain", script)
}

// installScript renders the install script of the calling instance: the pool's
// extra_specs runner_install_template if it has one (S-1, rest-api-2 T-6), else the
// pool's stored template (rest-api-2 §3), else — for a pool stored before templates
// existed, with template id 0 — the built-in script of the entity's forge type and the
// instance's OS.
func (h *Handler) installScript(ctx context.Context, ai *authInfo) ([]byte, error) {
	specs, err := bootstrap.ParseExtraSpecs(ai.pool.ExtraSpecs)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	if specs.Template == nil && ai.pool.TemplateID != 0 {
		t, err := h.store.Template(ctx, ai.pool.TemplateID)
		if errors.Is(err, garrison.ErrNotFound) {
			return nil, errNoTemplate
		}
		if err != nil {
			return nil, err
		}
		specs.Template = t.Data
	}
	ic, err := h.installContext(ctx, ai, specs)
	if err != nil {
		return nil, err
	}
	return scriptFor(ai, specs, ic)
}

// scriptFor renders the template in specs, or the built-in script (S-1, S-2).
func scriptFor(ai *authInfo, specs bootstrap.ExtraSpecs, ic bootstrap.InstallContext) ([]byte, error) {
	var (
		script []byte
		err    error
	)
	if specs.Template != nil {
		script, err = bootstrap.RenderTemplate(specs.Template, ic)
	} else {
		script, err = bootstrap.InstallScript(string(ai.entity.ForgeType), osTypeOf(ai), ic)
	}
	switch {
	case errors.Is(err, bootstrap.ErrNoTemplate):
		return nil, errNoTemplate
	case errors.Is(err, bootstrap.ErrRender):
		return nil, invalid("failed to render runner install script: %s", strings.TrimPrefix(err.Error(), bootstrap.ErrRender.Error()+": "))
	}
	return script, err
}

// installContext assembles the template context of §6 for the calling instance.
func (h *Handler) installContext(ctx context.Context, ai *authInfo, specs bootstrap.ExtraSpecs) (bootstrap.InstallContext, error) {
	var ic bootstrap.InstallContext
	md, err := h.runnerMetadata(ctx, ai)
	if err != nil {
		return ic, err
	}
	proxy, err := h.poolProxy(ctx, ai.pool)
	if err != nil {
		return ic, err
	}
	ep, err := h.store.Endpoint(ctx, ai.entity.Endpoint)
	if err != nil {
		return ic, err
	}
	ic = bootstrap.InstallContext{
		Forge:             string(ai.entity.ForgeType),
		FileName:          md.RunnerTools.Filename,
		DownloadURL:       md.RunnerTools.DownloadURL,
		TempDownloadToken: md.RunnerTools.TempDownloadToken,
		RepoURL:           md.RunnerRegistrationURL,
		MetadataURL:       ai.inst.MetadataURL,
		CallbackURL:       ai.inst.CallbackURL,
		CallbackToken:     ai.token,
		RunnerName:        ai.inst.Name,
		RunnerLabels:      strings.Join(md.RunnerLabels, ","),
		CABundle:          string(ep.CACertBundle),
		GitHubRunnerGroup: ai.pool.RunnerGroupFor(ai.entity.Type),
		EnableBootDebug:   specs.EnableBootDebug,
		ExtraContext:      specs.ExtraContext,
		UseJITConfig:      md.JITEnabled,
		AgentURL:          md.MetadataAccess.AgentURL,
		HTTPProxy:         proxy.HTTPProxy,
		HTTPSProxy:        proxy.HTTPSProxy,
		NoProxy:           proxy.NoProxy,
	}
	ic.Normalize()
	return ic, nil
}

// osTypeOf is the instance's OS type, or its pool's when the instance has none yet.
func osTypeOf(ai *authInfo) string {
	if ai.inst.OSType != "" {
		return ai.inst.OSType
	}
	return ai.pool.OSType
}

// poolProxy returns the pool's proxy settings (zero when none is configured).
func (h *Handler) poolProxy(ctx context.Context, p garrison.Pool) (provider.ProxyConfig, error) {
	if h.proxy == nil {
		return provider.ProxyConfig{}, nil
	}
	return h.proxy(ctx, p)
}
