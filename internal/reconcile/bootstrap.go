package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// errNoTemplate: the pool has neither a template nor a runner_install_template.
var errNoTemplate = errors.New("the pool has no runner install template")

// bootstrapInstance builds the CreateInstance document (provider-contract §6) and the
// GARM_POOL_EXTRASPECS document (the same, template-injected extra specs).
func (r *Reconciler) bootstrapInstance(ctx context.Context, env *poolEnv, in garrison.Instance, token string) (provider.BootstrapInstance, []byte, error) {
	f, err := env.getForge(ctx)
	if err != nil {
		return provider.BootstrapInstance{}, nil, err
	}
	ep, err := r.o.Store.Endpoint(ctx, env.entity.Endpoint)
	if err != nil {
		return provider.BootstrapInstance{}, nil, fmt.Errorf("read endpoint: %w", err)
	}
	tools, err := runnerTools(ctx, env, f, ep)
	if err != nil {
		return provider.BootstrapInstance{}, nil, err
	}
	var proxy provider.ProxyConfig
	if r.o.Proxy != nil {
		if proxy, err = r.o.Proxy(ctx, env.pool); err != nil {
			return provider.BootstrapInstance{}, nil, fmt.Errorf("proxy of the pool: %w", err)
		}
	}
	ca := mergePEM(ep.CACertBundle, env.controller.CACertBundle)
	specs, err := r.extraSpecs(env, in, token, proxy, ca)
	if err != nil {
		return provider.BootstrapInstance{}, nil, err
	}
	bi := provider.BootstrapInstance{
		Name: in.Name, Tools: tools, RepoURL: repoURL(env.entity, ep), CallbackURL: in.CallbackURL,
		MetadataURL: in.MetadataURL, InstanceToken: token, ExtraSpecs: specs,
		GitHubRunnerGroup: r.runnerGroup(env), CACertBundle: ca, OSArch: env.pool.OSArch,
		OSType: env.pool.OSType, Flavor: env.pool.Flavor, Image: env.pool.Image, PoolID: env.pool.ID,
		JitConfigEnabled: env.jit(), ProxyConfig: proxy,
	}
	if !bi.JitConfigEnabled {
		bi.Labels = append(env.pool.TagNames(), "runner-controller-id="+env.controller.ID, "runner-pool-id="+env.pool.ID)
	}
	return bi, specs, nil
}

// extraSpecs returns the pool's extra specs with the bootstrap wrapper injected, and
// checks that a runner install template exists.
func (r *Reconciler) extraSpecs(env *poolEnv, in garrison.Instance, token string, proxy provider.ProxyConfig, ca []byte) (json.RawMessage, error) {
	specs := env.pool.ExtraSpecs
	if r.o.InjectTemplate != nil {
		var err error
		specs, err = r.o.InjectTemplate(specs, env.pool.OSType, TemplateParams{
			MetadataURL: in.MetadataURL, CallbackURL: in.CallbackURL, InstanceToken: token,
			HTTPProxy: proxy.HTTPProxy, HTTPSProxy: proxy.HTTPSProxy, NoProxy: proxy.NoProxy, CACertBundle: ca,
		})
		if err != nil {
			return nil, fmt.Errorf("inject the bootstrap template: %w", err)
		}
	}
	if env.pool.TemplateID == 0 && !hasInstallTemplate(specs) {
		return nil, errNoTemplate
	}
	return specs, nil
}

// hasInstallTemplate reports whether extra specs carry a non-empty runner_install_template.
func hasInstallTemplate(specs json.RawMessage) bool {
	var o struct {
		T string `json:"runner_install_template"`
	}
	return json.Unmarshal(specs, &o) == nil && o.T != ""
}

// repoURL is the URL a runner registers against (provider-contract §6).
func repoURL(e garrison.Entity, ep garrison.Endpoint) string {
	if e.ForgeType == garrison.Gitea {
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

// mergePEM concatenates PEM bundles, dropping duplicate blocks; nil when there are none.
func mergePEM(bundles ...[]byte) []byte {
	var out bytes.Buffer
	seen := map[string]bool{}
	for _, b := range bundles {
		for {
			var blk *pem.Block
			blk, b = pem.Decode(b)
			if blk == nil {
				break
			}
			enc := pem.EncodeToMemory(blk)
			if !seen[string(enc)] {
				seen[string(enc)] = true
				out.Write(enc)
			}
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return out.Bytes()
}
