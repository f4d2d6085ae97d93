package garmimport

import (
	"fmt"
	"maps"
	"slices"

	"github.com/garrison-ci/garrison"
)

// poolOwnerColumns are the columns naming a pool's (or job's) entity, most specific
// first.
var poolOwnerColumns = []string{"repo_id", "org_id", "enterprise_id", "forge_instance_id"}

func (p *planner) planPools() {
	proxies := p.planProxies()
	for _, r := range p.d.pools {
		p.rep.kind("pools").Found++
		pool, ok := p.pool(r)
		if !ok {
			continue
		}
		pool.TemplateID = p.poolTemplate(r, pool)
		if !r.null("proxy_id") {
			if ref, known := proxies[r.int("proxy_id")]; !known || ref.skipped != "" {
				p.rep.notImported(true, p.o.SkipUnsupported, "pool %s used proxy %s, which is not imported (%s); new runners will start without proxy settings",
					pool.ID, ref.name, ref.skipped)
			} else {
				pool.ProxyID = uint(r.int("proxy_id"))
			}
		}
		p.pools[pool.ID] = pool
		p.snap.Pools = append(p.snap.Pools, pool)
		p.rep.kind("pools").Imported++
	}
	p.reportProviders()
}

// pool maps one pool; ok is false when it is not imported (reported).
func (p *planner) pool(r row) (garrison.Pool, bool) {
	id := r.str("id")
	owner := ""
	for _, col := range poolOwnerColumns {
		if !r.null(col) {
			owner = r.str(col)
			break
		}
	}
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
		p.unknownProviders[pool.ProviderName]++
		pool.Enabled = pool.Enabled && !p.o.SkipUnsupported
	}
	return pool, true
}

// reportProviders reports the pools whose provider garrison's config lacks: blocking,
// or with --skip-unsupported imported disabled.
func (p *planner) reportProviders() {
	for _, name := range slices.Sorted(maps.Keys(p.unknownProviders)) {
		n := p.unknownProviders[name]
		if p.o.SkipUnsupported {
			p.rep.warnf("%d pools use provider %s, which garrison's config does not define: imported disabled", n, name)
			continue
		}
		p.rep.blockf("%d pools use provider %s, which garrison's config does not define; add its [[provider]] to garrison's config (--config), or pass --skip-unsupported to import them disabled", n, name)
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

// scaleSets reports GARM's scale sets, which garrison cannot hold yet.
func (p *planner) scaleSets() {
	for _, r := range p.d.scaleSets {
		p.rep.kind("scale sets").Found++
		p.rep.kind("scale sets").Skipped++
		runners := 0
		for _, i := range p.d.instances {
			if !i.null("scale_set_fk_id") && i.int("scale_set_fk_id") == r.int("id") {
				runners++
			}
		}
		p.rep.notImported(true, p.o.SkipUnsupported,
			"scale set %s (GitHub id %d) stays registered on GitHub and its %d runners are orphaned; delete it in GARM before migrating or import it later",
			r.str("name"), r.int("scale_set_id"), runners)
	}
}
