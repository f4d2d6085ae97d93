package garmimport

import (
	"encoding/json"
	"fmt"

	"github.com/garrison-ci/garrison"
)

// JobsMode says which of GARM's jobs to import.
type JobsMode string

// Jobs modes (spec B.1 --jobs).
const (
	JobsOpen JobsMode = "open" // queued and in progress (the default)
	JobsAll  JobsMode = "all"  // also completed
	JobsNone JobsMode = "none"
)

func (p *planner) planInstances() {
	jobOf := map[string]int64{} // instance id → workflow job id of its newest job
	for _, j := range p.d.jobs {
		if !j.null("instance_id") && j.int("workflow_job_id") > 0 {
			jobOf[j.str("instance_id")] = j.int("workflow_job_id")
		}
	}
	for _, r := range p.d.instances {
		p.rep.kind("instances").Found++
		in, ok := p.instance(r)
		if !ok {
			p.rep.kind("instances").Skipped++
			continue
		}
		in.JobID = jobOf[in.ID]
		p.instances[in.ID] = in.Name
		p.snap.Instances = append(p.snap.Instances, in)
		p.rep.kind("instances").Imported++
	}
}

// instance maps one instance; ok is false when it is not imported (reported).
func (p *planner) instance(r row) (garrison.Instance, bool) {
	in := garrison.Instance{ID: r.str("id"), Name: r.str("name"), PoolID: r.str("pool_id"),
		ProviderID: r.str("provider_id"), AgentID: r.int("agent_id"), OSType: r.str("os_type"),
		OSName: r.str("os_name"), OSVersion: r.str("os_version"), OSArch: r.str("os_arch"),
		Status: garrison.InstanceStatus(r.str("status")), RunnerStatus: garrison.RunnerStatus(r.str("runner_status")),
		ProviderFault: r.bytes("provider_fault"), CreateAttempt: int(r.int("create_attempt")),
		TokenFetched: r.bool("token_fetched"), RunnerGroup: r.str("git_hub_runner_group"),
		Generation: uint64(r.uint("generation")), MetadataURL: r.str("metadata_url"), CallbackURL: r.str("callback_url"),
		// UpdatedAt is kept: garrison measures the bootstrap timeout from it, as GARM does.
		Heartbeat: r.time("heartbeat"), CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	if !p.owner(r, &in) {
		p.skipInstance(r, in)
		return in, false
	}
	if !p.mapStatus(&in) {
		return in, false
	}
	jit, ok := p.open("instances", in.ID, "jit_configuration", r.bytes("jit_configuration"))
	if !ok {
		return in, false
	}
	if len(jit) > 0 {
		if err := json.Unmarshal(jit, &in.JITConfig); err != nil {
			p.rejectInstance(in, "its JIT configuration is not a JSON object of files")
			return in, false
		}
	}
	for _, a := range p.d.addresses[in.ID] {
		in.Addresses = append(in.Addresses, garrison.Address{Address: a.str("address"), Type: a.str("type")})
	}
	for _, s := range p.d.statuses[in.ID] {
		p.rep.kind("status messages").Found++
		if !p.o.NoHistory {
			in.StatusMessages = append(in.StatusMessages, event(s))
			p.rep.kind("status messages").Imported++
		}
	}
	if labels := r.strs("aditional_labels"); len(labels) > 0 {
		p.rep.warnf("instance %s had additional labels %v; garrison does not keep per-instance labels", in.Name, labels)
	}
	return in, true
}

// mapStatus applies spec B.6; false when the instance is not imported.
func (p *planner) mapStatus(in *garrison.Instance) bool {
	switch in.Status {
	case garrison.InstanceDeleting:
		in.Status = garrison.InstancePendingDelete
		p.rep.StatusChanges["deleting→pending_delete"]++
	case garrison.InstanceDeleted:
		p.rep.StatusChanges["deleted (not imported)"]++
		return false
	case garrison.InstanceCreating:
		p.rep.StatusChanges["creating (re-checked against the provider)"]++
	}
	if !in.Status.Valid() {
		p.rejectInstance(*in, fmt.Sprintf("unknown status %q", in.Status))
		return false
	}
	if in.RunnerStatus != "" && !in.RunnerStatus.Valid() {
		p.rejectInstance(*in, fmt.Sprintf("unknown runner status %q", in.RunnerStatus))
		return false
	}
	return true
}

// owner links an instance to its imported pool or scale set (scale_set_fk_id) and takes
// the provider from it; false when that is not imported.
func (p *planner) owner(r row, in *garrison.Instance) bool {
	if r.null("scale_set_fk_id") {
		pool, ok := p.pools[in.PoolID]
		in.ProviderName = pool.ProviderName
		return ok
	}
	ss, ok := p.scaleSets[uint(r.int("scale_set_fk_id"))]
	in.PoolID, in.ScaleSetID, in.ProviderName = "", ss.ID, ss.ProviderName
	return ok
}

// skipInstance records an instance whose pool (or scale set) is not imported.
func (p *planner) skipInstance(r row, in garrison.Instance) {
	if !r.null("scale_set_fk_id") {
		if _, known := p.skipped[setKey(uint(r.int("scale_set_fk_id")))]; known {
			return // counted in its scale set's line
		}
		p.rep.notImported(true, p.o.SkipUnsupported, "runner %s (provider id %s) not imported: its scale set %d does not exist in GARM; its instance is left to the provider",
			in.Name, in.ProviderID, r.int("scale_set_fk_id"))
		return
	}
	why, known := p.skipped[in.PoolID]
	if !known {
		why = "its pool " + in.PoolID + " does not exist in GARM"
	}
	p.rep.notImported(true, p.o.SkipUnsupported, "runner %s (provider id %s) not imported: %s; its instance is left to the provider",
		in.Name, in.ProviderID, why)
}

func (p *planner) rejectInstance(in garrison.Instance, why string) {
	p.rep.kind("instances").Conflicts = append(p.rep.kind("instances").Conflicts, fmt.Sprintf("runner %s: %s", in.Name, why))
	p.rep.notImported(true, p.o.SkipUnsupported, "runner %s (provider id %s) not imported: %s", in.Name, in.ProviderID, why)
}

// planJobs maps the jobs selected by the jobs mode. A job GARM saw through several
// entities (repository, organization, enterprise hooks) is kept for the most specific
// one imported (spec B.4).
func (p *planner) planJobs() {
	seen, several := map[int64]bool{}, 0
	for _, r := range p.d.jobs {
		if !p.wantJob(r) {
			continue
		}
		p.rep.kind("jobs").Found++
		id := r.int("workflow_job_id")
		switch {
		case id <= 0:
			p.rep.kind("jobs").Skipped++
			p.rep.notImported(false, true, "scale set job %s not imported: it has no workflow job id (the ledger's key); its scale set's listener hears of the job again", r.str("scale_set_job_id"))
			continue
		case seen[id]:
			p.rep.kind("jobs").Skipped++
			continue
		}
		j, owners := p.job(r)
		if j.EntityID == "" {
			p.rep.kind("jobs").Skipped++
			p.rep.notImported(false, true, "job %d not imported: none of its entities is imported", id)
			continue
		}
		if owners > 1 {
			several++
		}
		seen[id] = true
		p.snap.Jobs = append(p.snap.Jobs, j)
		p.rep.kind("jobs").Imported++
	}
	if several > 0 {
		p.rep.warnf("%d jobs referenced several entities; kept the most specific (repository, then organization, enterprise)", several)
	}
	for i := range p.snap.Instances { // a runner's job that is not imported is no link
		if !seen[p.snap.Instances[i].JobID] {
			p.snap.Instances[i].JobID = 0
		}
	}
}

// wantJob applies the jobs mode.
func (p *planner) wantJob(r row) bool {
	action := garrison.JobAction(r.str("action"))
	switch p.o.Jobs {
	case JobsNone:
		return false
	case JobsAll:
		return true
	}
	return action == garrison.JobQueued || action == garrison.JobInProgress
}

// job maps one job and tells how many entities GARM recorded it for.
func (p *planner) job(r row) (garrison.Job, int) {
	j := garrison.Job{ID: r.int("workflow_job_id"), RunID: r.int("run_id"), Action: garrison.JobAction(r.str("action")),
		Status: r.str("status"), Conclusion: r.str("conclusion"), Name: r.str("name"),
		StartedAt: r.time("started_at"), CompletedAt: r.time("completed_at"), RunnerID: r.int("github_runner_id"),
		RunnerName: p.instances[r.str("instance_id")], RunnerGroupID: r.int("runner_group_id"),
		RunnerGroupName: r.str("runner_group_name"), RepositoryName: r.str("repository_name"),
		RepositoryOwner: r.str("repository_owner"), WorkflowRunURL: r.str("workflow_run_url"),
		Labels: r.strs("labels"), CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	owners := 0
	for _, col := range poolOwnerColumns {
		if r.null(col) {
			continue
		}
		owners++
		if e, ok := p.entities[r.str(col)]; ok && j.EntityID == "" {
			j.EntityID, j.EntityType = e.ID, e.Type
		}
	}
	return j, owners
}
