package metrics

import (
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/prometheus/client_golang/prometheus"
)

// The snapshot families of GARM (shared/spec/streams-metrics.md §2.2), with GARM's names and
// labels and the defects of §2.4 fixed: garm_health follows the current controller settings
// (D-1), repositories and enterprises each have their own families (D-2), help texts are
// accurate (D-3). Scale-set families are described but have no series: garrison has no
// scale sets.
var (
	descHealth = snapshotDesc("garm_health", "Health of garrison: 1 when initialised with metadata and callback URLs set, else 0.",
		[]string{"metadata_url", "callback_url", "webhook_url", "controller_webhook_url", "controller_id"}, nil)

	descRepoInfo  = entityInfoDesc("repository")
	descRepoPM    = entityPMDesc("repository")
	descOrgInfo   = entityInfoDesc("organization")
	descOrgPM     = entityPMDesc("organization")
	descEntInfo   = entityInfoDesc("enterprise")
	descEntPM     = entityPMDesc("enterprise")
	descProvider  = snapshotDesc("garm_provider_info", "Info of the provider.", []string{"name", "type", "description"}, nil)
	descPoolInfo  = snapshotDesc("garm_pool_info", "Info of the pool.", []string{"id", "image", "flavor", "prefix", "os_type", "os_arch", "tags", "provider", "pool_owner", "pool_type"}, nil)
	descPoolState = snapshotDesc("garm_pool_status", "Status of the pool.", []string{"id", "enabled"}, nil)
	descPoolMax   = snapshotDesc("garm_pool_max_runners", "Maximum number of runners in the pool.", []string{"id"}, nil)
	descPoolIdle  = snapshotDesc("garm_pool_min_idle_runners", "Minimum number of idle runners in the pool.", []string{"id"}, nil)
	descPoolBoot  = snapshotDesc("garm_pool_bootstrap_timeout", "Runner bootstrap timeout in the pool.", []string{"id"}, nil)

	descScaleSetInfo = snapshotDesc("garm_scaleset_info", "Info of the scale set.", []string{"id", "scaleset_id", "name", "image", "flavor", "prefix", "os_type", "os_arch", "tags", "provider", "runner_group", "scaleset_owner", "scaleset_type"}, nil)

	descRunner = snapshotDesc("garm_runner_status", "Status of the instance.",
		[]string{"name", "status", "runner_status", "pool_owner", "pool_type", "pool_id", "scaleset_id", "provider"}, nil)
	descJob = snapshotDesc("garm_job_status", "List of workflow jobs and their status.",
		[]string{"job_id", "workflow_job_id", "scaleset_job_id", "workflow_run_id", "name", "status", "conclusion", "runner_name", "owner", "repository", "requested_labels"}, nil)

	descPoolInstances = snapshotDesc("garrison_pool_instances", "Instances per pool by status and runner status.",
		[]string{"pool_id", "status", "runner_status"}, nil)
	descOpenJobs = snapshotDesc("garrison_jobs", "Open jobs (queued or in progress) by forge, entity type and status.",
		[]string{"forge", "entity_type", "status"}, nil)
)

func entityInfoDesc(kind string) *prometheus.Desc {
	return snapshotDesc("garm_"+kind+"_info", "Info of the "+kind+".", []string{"name", "id"}, nil)
}

func entityPMDesc(kind string) *prometheus.Desc {
	return snapshotDesc("garm_"+kind+"_pool_manager_status", "Status of the "+kind+" pool manager.", []string{"name", "id", "running"}, nil)
}

// snapshotFamilies names the snapshot families: a scrape that asks for none of them by
// name (name[]) does not collect them (see Metrics.Handler).
var snapshotFamilies = map[string]bool{}

// snapshotDesc is prometheus.NewDesc for a snapshot family, which it records by name.
func snapshotDesc(name, help string, labels []string, constLabels prometheus.Labels) *prometheus.Desc {
	snapshotFamilies[name] = true
	return prometheus.NewDesc(name, help, labels, constLabels)
}

// garmCollector exports the snapshot families.
type garmCollector struct {
	s *snapshotter
}

func (c garmCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descHealth, descRepoInfo, descRepoPM, descOrgInfo, descOrgPM, descEntInfo, descEntPM,
		descProvider, descPoolInfo, descPoolState, descPoolMax, descPoolIdle, descPoolBoot, descScaleSetInfo,
		descRunner, descJob, descPoolInstances, descOpenJobs} {
		ch <- d
	}
}

func (c garmCollector) Collect(ch chan<- prometheus.Metric) {
	sn := c.s.get()
	emit := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if sn.controller != nil {
		ctl := sn.controller
		emit(descHealth, boolValue(sn.admin && ctl.MetadataURL != "" && ctl.CallbackURL != ""),
			ctl.MetadataURL, ctl.CallbackURL, ctl.WebhookURL, ctl.WebhookURLForController(), ctl.ID)
	}
	for _, p := range c.s.o.Providers {
		emit(descProvider, 1, p.Name, p.Type, p.Description)
	}
	entities := map[string]garrison.Entity{}
	for _, e := range sn.entities {
		entities[e.ID] = e
		info, pm := entityDescs(e.Type)
		running := c.s.o.Running(e.ID)
		emit(info, 1, e.Name, e.ID)
		emit(pm, boolValue(running), e.Name, e.ID, strconv.FormatBool(running))
	}
	pools := map[string]garrison.Pool{}
	for _, p := range sn.pools {
		pools[p.ID] = p
		owner := entities[p.EntityID]
		emit(descPoolInfo, 1, p.ID, p.Image, p.Flavor, p.RunnerPrefix, p.OSType, p.OSArch, tagNames(p.Tags),
			p.ProviderName, owner.FullName(), string(p.EntityType))
		emit(descPoolState, boolValue(p.Enabled), p.ID, strconv.FormatBool(p.Enabled))
		emit(descPoolMax, float64(p.MaxRunners), p.ID)
		emit(descPoolIdle, float64(p.MinIdleRunners), p.ID)
		emit(descPoolBoot, float64(p.BootstrapTimeout()), p.ID)
	}
	c.collectInstances(sn, pools, entities, emit)
	c.collectJobs(sn, entities, emit)
}

// collectInstances exports one garm_runner_status series per instance and the per-pool
// counts of garrison_pool_instances.
func (c garmCollector) collectInstances(sn snapshot, pools map[string]garrison.Pool, entities map[string]garrison.Entity, emit func(*prometheus.Desc, float64, ...string)) {
	type key struct{ pool, status, runner string }
	counts := map[key]int{}
	for _, in := range sn.instances {
		p := pools[in.PoolID]
		emit(descRunner, 1, in.Name, string(in.Status), string(in.RunnerStatus), entities[p.EntityID].FullName(),
			string(p.EntityType), in.PoolID, "", in.ProviderName)
		counts[key{in.PoolID, string(in.Status), string(in.RunnerStatus)}]++
	}
	for k, n := range counts {
		emit(descPoolInstances, float64(n), k.pool, k.status, k.runner)
	}
}

// collectJobs exports one garm_job_status series per recorded job and the open-job counts
// of garrison_jobs.
func (c garmCollector) collectJobs(sn snapshot, entities map[string]garrison.Entity, emit func(*prometheus.Desc, float64, ...string)) {
	type key struct{ forge, typ, status string }
	open := map[key]int{}
	for _, e := range entities { // every kind of entity reads 0 rather than nothing
		for _, st := range []garrison.JobAction{garrison.JobQueued, garrison.JobInProgress} {
			open[key{string(e.ForgeType), string(e.Type), string(st)}] += 0
		}
	}
	for _, j := range sn.jobs {
		emit(descJob, 1, strconv.FormatInt(j.Seq, 10), strconv.FormatInt(j.ID, 10), "", strconv.FormatInt(j.RunID, 10),
			j.Name, string(j.Action), j.Conclusion, j.RunnerName, j.RepositoryOwner, j.RepositoryName, strings.Join(j.Labels, " "))
		if j.Action == garrison.JobQueued || j.Action == garrison.JobInProgress {
			open[key{string(entities[j.EntityID].ForgeType), string(j.EntityType), string(j.Action)}]++
		}
	}
	for k, n := range open {
		emit(descOpenJobs, float64(n), k.forge, k.typ, k.status)
	}
}

func entityDescs(t garrison.EntityType) (info, pm *prometheus.Desc) {
	switch t {
	case garrison.Organization:
		return descOrgInfo, descOrgPM
	case garrison.Enterprise:
		return descEntInfo, descEntPM
	}
	return descRepoInfo, descRepoPM
}

func tagNames(tags []garrison.Tag) string {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Name
	}
	return strings.Join(names, ",")
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
