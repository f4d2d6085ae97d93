package garmimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/garrison-ci/garrison"
)

// poolOwnerColumns are the columns naming a pool's (or job's) entity, most specific
// first.
var poolOwnerColumns = []string{"repo_id", "org_id", "enterprise_id", "forge_instance_id"}

func (p *planner) planPools() {
	for _, r := range p.d.pools {
		p.rep.kind("pools").Found++
		pool, ok := p.pool(r)
		if !ok {
			continue
		}
		pool.TemplateID = p.templateOf(r, "pool "+pool.ID, pool.EntityID, pool.OSType)
		pool.ProxyID = p.proxyOf(r, "pool "+pool.ID)
		p.pools[pool.ID] = pool
		p.snap.Pools = append(p.snap.Pools, pool)
		p.rep.kind("pools").Imported++
	}
}

// proxyOf is the id of the imported proxy a pool or scale set (what) uses, 0 when none;
// a proxy that is not imported is reported: new runners start without proxy settings.
func (p *planner) proxyOf(r row, what string) uint {
	if r.null("proxy_id") {
		return 0
	}
	if ref, known := p.proxies[r.int("proxy_id")]; !known || ref.skipped != "" {
		p.rep.notImported(true, p.o.SkipUnsupported, "%s used proxy %s, which is not imported (%s); new runners will start without proxy settings",
			what, ref.name, ref.skipped)
		return 0
	}
	return uint(r.int("proxy_id"))
}

// ownerOf is the first of the owner columns cols set in r: the id of its entity.
func ownerOf(r row, cols []string) string {
	for _, col := range cols {
		if !r.null(col) {
			return r.str(col)
		}
	}
	return ""
}

// pool maps one pool; ok is false when it is not imported (reported).
func (p *planner) pool(r row) (garrison.Pool, bool) {
	id := r.str("id")
	owner := ownerOf(r, poolOwnerColumns)
	e, ok := p.entities[owner]
	if !ok {
		p.skipPool(id, owner)
		return garrison.Pool{}, false
	}
	pool := garrison.Pool{ID: id, EntityID: e.ID, EntityType: e.Type, ProviderName: r.str("provider_name"),
		RunnerPrefix: r.str("runner_prefix"), MaxRunners: r.uint("max_runners"), MinIdleRunners: r.uint("min_idle_runners"),
		Image: r.str("image"), Flavor: r.str("flavor"), OSType: r.str("os_type"), OSArch: r.str("os_arch"),
		Enabled: r.bool("enabled"), RunnerBootstrapTimeout: r.uint("runner_bootstrap_timeout"),
		ExtraSpecs: r.json("extra_specs"), RunnerGroup: r.str("git_hub_runner_group"), Priority: r.uint("priority"),
		EnableShell: r.bool("enable_shell"), Generation: uint64(r.uint("generation")),
		CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	if pool.RunnerPrefix == "" {
		pool.RunnerPrefix = garrison.DefaultRunnerPrefix // as GARM reports it
	}
	if pool.RunnerBootstrapTimeout == 0 {
		pool.RunnerBootstrapTimeout = garrison.DefaultRunnerBootstrapTimeout // as GARM reports it
	}
	names := make([]string, 0, len(p.d.poolTags[id]))
	for _, tagID := range p.d.poolTags[id] {
		names = append(names, p.tagNames[tagID])
	}
	pool.Tags = garrison.TagsFromNames(names)
	if err := pool.Validate(); err != nil {
		p.rejectPool(id, garrison.MessageOf(err))
		return pool, false
	}
	if !p.knownProvider(pool.ProviderName) {
		use := p.unknownProviders[pool.ProviderName]
		use.pools++
		p.unknownProviders[pool.ProviderName] = use
		pool.Enabled = pool.Enabled && !p.o.SkipUnsupported
	}
	return pool, true
}

// providerUse counts the pools and scale sets that use a provider.
type providerUse struct{ pools, scaleSets int }

func (u providerUse) String() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{u.pools, "pool"}, {u.scaleSets, "scale set"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.what)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c.n, c.what))
		}
	}
	verb := " use"
	if u.pools+u.scaleSets == 1 {
		verb = " uses"
	}
	return strings.Join(parts, " and ") + verb
}

// reportProviders reports the pools and scale sets whose provider garrison's config
// lacks: blocking, or with --skip-unsupported imported disabled.
func (p *planner) reportProviders() {
	for _, name := range slices.Sorted(maps.Keys(p.unknownProviders)) {
		use := p.unknownProviders[name]
		if p.o.SkipUnsupported {
			p.rep.warnf("%s provider %s, which garrison's config does not define: imported disabled", use, name)
			continue
		}
		p.rep.blockf("%s provider %s, which garrison's config does not define; add its [[provider]] to garrison's config (--config), or pass --skip-unsupported to import them disabled", use, name)
	}
}

func (p *planner) knownProvider(name string) bool {
	return p.o.Providers == nil || slices.Contains(p.o.Providers, name)
}

// skipPool records a pool whose entity is not imported.
func (p *planner) skipPool(id, owner string) {
	p.rep.kind("pools").Skipped++
	why, known := p.skipped[owner]
	if !known {
		why = "its entity " + owner + " does not exist in GARM"
		p.rep.notImported(true, p.o.SkipUnsupported, "pool %s not imported: %s", id, why)
	}
	p.skipped[id] = fmt.Sprintf("its pool %s is not imported (%s)", id, why)
}

// rejectPool records a pool garrison refuses as invalid.
func (p *planner) rejectPool(id, why string) {
	p.rep.kind("pools").Skipped++
	p.rep.kind("pools").Conflicts = append(p.rep.kind("pools").Conflicts, fmt.Sprintf("pool %s: %s", id, why))
	p.skipped[id] = fmt.Sprintf("its pool %s is not imported (%s)", id, why)
	p.rep.notImported(true, p.o.SkipUnsupported, "pool %s not imported: garrison refuses it: %s", id, why)
}
