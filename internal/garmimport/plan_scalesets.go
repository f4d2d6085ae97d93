package garmimport

import (
	"fmt"

	"github.com/garrison-ci/garrison"
)

// setOwnerColumns are the columns naming a scale set's entity (GitHub only: no forge
// instances), most specific first.
var setOwnerColumns = []string{"repo_id", "org_id", "enterprise_id"}

// planScaleSets maps GARM's runner scale sets (spec B.4, ID-3). A scale set keeps its id,
// its GitHub scale set id (it stays registered on GitHub: garrison's listener takes its
// message session over) and the id of the last message GARM's listener processed, so
// that garrison's resumes after it, neither losing nor replaying work; also its desired
// runner count, labels, runner definition, runner group, extra specs, template and
// generation. Its runners are imported with the instances.
func (p *planner) planScaleSets() {
	for _, r := range p.d.scaleSets {
		p.rep.kind("scale sets").Found++
		ss, ok := p.scaleSet(r)
		if !ok {
			p.rep.kind("scale sets").Skipped++
			continue
		}
		ss.TemplateID = p.templateOf(r, "scale set "+ss.Name, ss.EntityID, ss.OSType)
		ss.ProxyID = p.proxyOf(r, "scale set "+ss.Name)
		p.scaleSets[ss.ID] = ss
		p.snap.ScaleSets = append(p.snap.ScaleSets, ss)
		p.rep.kind("scale sets").Imported++
		p.rep.notef("scale set %s (id %d, GitHub id %d): imported with %d runners; its listener resumes after message %d",
			ss.Name, ss.ID, ss.ScaleSetID, p.setRunners(r), ss.LastMessageID)
	}
}

// scaleSet maps one scale set; ok is false when it is not imported (reported).
func (p *planner) scaleSet(r row) (garrison.ScaleSet, bool) {
	ss := garrison.ScaleSet{ID: r.uint("id"), ScaleSetID: int(r.int("scale_set_id")), Name: r.str("name"),
		DisableUpdate: r.bool("disable_update"), ExtendedState: r.str("extended_state"),
		RunnerPrefix: r.str("runner_prefix"), ProviderName: r.str("provider_name"), Image: r.str("image"),
		Flavor: r.str("flavor"), OSType: r.str("os_type"), OSArch: r.str("os_arch"),
		MaxRunners: r.uint("max_runners"), MinIdleRunners: r.uint("min_idle_runners"), Enabled: r.bool("enabled"),
		DesiredRunnerCount: int(r.uint("desired_runner_count")), EnableShell: r.bool("enable_shell"),
		Generation: uint64(r.uint("generation")), RunnerBootstrapTimeout: r.uint("runner_bootstrap_timeout"),
		ExtraSpecs: r.json("extra_specs"), RunnerGroup: r.str("git_hub_runner_group"),
		LastMessageID: r.int("last_message_id"), CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	owner := ownerOf(r, setOwnerColumns)
	e, ok := p.entities[owner]
	if !ok {
		why, known := p.skipped[owner]
		if !known {
			why = "its entity " + owner + " does not exist in GARM"
		}
		return ss, p.skipScaleSet(r, ss, why)
	}
	ss.EntityID, ss.EntityType = e.ID, e.Type
	if e.ForgeType != garrison.GitHub {
		return ss, p.skipScaleSet(r, ss, fmt.Sprintf("its entity %s is on %s; scale sets are GitHub's", e.FullName(), e.ForgeType))
	}
	// The state is GARM's runtime (spec B.6): a scale set GitHub knows is created.
	ss.State = garrison.ScaleSetCreated
	if ss.ScaleSetID == 0 {
		ss.State = garrison.ScaleSetPendingCreate
		p.rep.warnf("scale set %s has no GitHub scale set id; garrison's listener will not serve it: delete it and create it again", ss.Name)
	}
	if ss.RunnerPrefix == "" {
		ss.RunnerPrefix = garrison.DefaultRunnerPrefix // as GARM reports it
	}
	if ss.RunnerBootstrapTimeout == 0 {
		ss.RunnerBootstrapTimeout = garrison.DefaultRunnerBootstrapTimeout // as GARM reports it
	}
	if ss.RunnerGroup == "" {
		ss.RunnerGroup = garrison.DefaultRunnerGroup
	}
	names := make([]string, 0, len(p.d.setTags[r.int("id")]))
	for _, tagID := range p.d.setTags[r.int("id")] {
		names = append(names, p.tagNames[tagID])
	}
	ss.Tags = garrison.TagsFromNames(names)
	if err := ss.Validate(); err != nil {
		p.rep.kind("scale sets").Conflicts = append(p.rep.kind("scale sets").Conflicts, fmt.Sprintf("scale set %s: %s", ss.Name, garrison.MessageOf(err)))
		return ss, p.skipScaleSet(r, ss, "garrison refuses it: "+garrison.MessageOf(err))
	}
	if !p.knownProvider(ss.ProviderName) {
		use := p.unknownProviders[ss.ProviderName]
		use.scaleSets++
		p.unknownProviders[ss.ProviderName] = use
		ss.Enabled = ss.Enabled && !p.o.SkipUnsupported
	}
	return ss, true
}

// skipScaleSet reports a scale set that is not imported (spec B.7's text) and returns
// false.
func (p *planner) skipScaleSet(r row, ss garrison.ScaleSet, why string) bool {
	p.skipped[setKey(ss.ID)] = fmt.Sprintf("its scale set %s is not imported (%s)", ss.Name, why)
	p.rep.notImported(true, p.o.SkipUnsupported,
		"scale set %s (GitHub id %d) not imported: %s; it stays registered on GitHub and its %d runners are orphaned",
		ss.Name, ss.ScaleSetID, why, p.setRunners(r))
	return false
}

// setRunners counts GARM's runners of a scale set row.
func (p *planner) setRunners(r row) int {
	n := 0
	for _, i := range p.d.instances {
		if !i.null("scale_set_fk_id") && i.int("scale_set_fk_id") == r.int("id") {
			n++
		}
	}
	return n
}

// setKey is the key of a scale set in planner.skipped.
func setKey(id uint) string { return fmt.Sprintf("scale set %d", id) }
