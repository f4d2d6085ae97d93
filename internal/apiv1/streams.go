package apiv1

// MetricsSnapshot is one frame of GET /api/v1/ws/metrics (streams-metrics.md §1.4), what
// garm-cli top and the web UI dashboard show. Lists are never null.
type MetricsSnapshot struct {
	Entities  []SnapshotEntity `json:"entities"`
	Pools     []SnapshotPool   `json:"pools"`
	ScaleSets []SnapshotPool   `json:"scale_sets"`
}

// SnapshotEntity is a repository, organization or enterprise in a MetricsSnapshot.
type SnapshotEntity struct {
	ID            string `json:"id"`
	Name          string `json:"name"` // owner/name for a repository
	Type          string `json:"type"`
	Endpoint      string `json:"endpoint"`
	PoolCount     int    `json:"pool_count"`
	ScaleSetCount int    `json:"scale_set_count"`
	Healthy       bool   `json:"healthy"` // its pool manager runs
}

// SnapshotPool is a pool (or scale set) in a MetricsSnapshot. Only its owner's name key
// is present.
type SnapshotPool struct {
	ID                 string         `json:"id"`
	Name               string         `json:"name,omitempty"` // scale sets only
	ProviderName       string         `json:"provider_name"`
	OSType             string         `json:"os_type"`
	MaxRunners         uint           `json:"max_runners"`
	Enabled            bool           `json:"enabled"`
	RepoName           string         `json:"repo_name,omitempty"`
	OrgName            string         `json:"org_name,omitempty"`
	EnterpriseName     string         `json:"enterprise_name,omitempty"`
	RunnerCounts       map[string]int `json:"runner_counts"`        // by instance status
	RunnerStatusCounts map[string]int `json:"runner_status_counts"` // by runner status, when set
}
