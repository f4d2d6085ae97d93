package apiv1

import (
	"encoding/json"
	"time"
)

// ScaleSet is a GitHub runner scale set (rest-api-2 §2.2). Extra specs and instances are
// filled on detailed responses only (get, create, update).
type ScaleSet struct {
	ID                     uint            `json:"id"`
	ScaleSetID             int             `json:"scale_set_id,omitempty"`
	Name                   string          `json:"name,omitempty"`
	DisableUpdate          bool            `json:"disable_update"`
	State                  string          `json:"state"`
	ExtendedState          string          `json:"extended_state,omitempty"`
	RunnerPrefix           string          `json:"runner_prefix,omitempty"`
	ProviderName           string          `json:"provider_name,omitempty"`
	Image                  string          `json:"image,omitempty"`
	Flavor                 string          `json:"flavor,omitempty"`
	OSType                 string          `json:"os_type,omitempty"`
	OSArch                 string          `json:"os_arch,omitempty"`
	MaxRunners             uint            `json:"max_runners,omitempty"`
	MinIdleRunners         uint            `json:"min_idle_runners,omitempty"`
	Enabled                bool            `json:"enabled,omitempty"`
	DesiredRunnerCount     int             `json:"desired_runner_count,omitempty"`
	EnableShell            bool            `json:"enable_shell"`
	Generation             uint64          `json:"generation"`
	Endpoint               ForgeEndpoint   `json:"endpoint"`
	RunnerBootstrapTimeout uint            `json:"runner_bootstrap_timeout,omitempty"`
	ExtraSpecs             json.RawMessage `json:"extra_specs,omitempty"`
	GitHubRunnerGroup      string          `json:"github-runner-group,omitempty"`
	Tags                   []Tag           `json:"tags"`
	StatusMessages         []StatusMessage `json:"status_messages"`
	RepoID                 string          `json:"repo_id,omitempty"`
	RepoName               string          `json:"repo_name,omitempty"`
	OrgID                  string          `json:"org_id,omitempty"`
	OrgName                string          `json:"org_name,omitempty"`
	EnterpriseID           string          `json:"enterprise_id,omitempty"`
	EnterpriseName         string          `json:"enterprise_name,omitempty"`
	TemplateID             uint            `json:"template_id,omitempty"`
	TemplateName           string          `json:"template_name,omitempty"`
	ProxyID                uint            `json:"proxy_id,omitempty"`
	ProxyName              string          `json:"proxy_name,omitempty"`
	Instances              []Instance      `json:"instances,omitempty"`
	CreatedAt              time.Time       `json:"created_at"`
	UpdatedAt              time.Time       `json:"updated_at"`
}

// CreateScaleSetParams is the body of POST /{entity}/{id}/scalesets (rest-api-2 §2.3).
type CreateScaleSetParams struct {
	Name                   string          `json:"name,omitempty"`
	DisableUpdate          bool            `json:"disable_update"`
	ScaleSetID             int             `json:"scale_set_id"` // ignored
	EnableShell            bool            `json:"enable_shell"`
	ProviderName           string          `json:"provider_name,omitempty"`
	MaxRunners             uint            `json:"max_runners,omitempty"`
	MinIdleRunners         uint            `json:"min_idle_runners,omitempty"`
	Image                  string          `json:"image,omitempty"`
	Flavor                 string          `json:"flavor,omitempty"`
	OSType                 string          `json:"os_type,omitempty"`
	OSArch                 string          `json:"os_arch,omitempty"`
	RunnerBootstrapTimeout uint            `json:"runner_bootstrap_timeout,omitempty"`
	RunnerPrefix           string          `json:"runner_prefix,omitempty"`
	Enabled                bool            `json:"enabled,omitempty"`
	ExtraSpecs             json.RawMessage `json:"extra_specs,omitempty"`
	GitHubRunnerGroup      string          `json:"github-runner-group,omitempty"`
	Labels                 []string        `json:"labels,omitempty"`
	TemplateID             *uint           `json:"template_id,omitempty"`
	ProxyID                *uint           `json:"proxy_id,omitempty"`
}

// UpdateScaleSetParams is the body of PUT /scalesets/{id} (rest-api-2 §2.4). Note the
// runner group key: runner_group here, github-runner-group on create. State and
// ExtendedState are always sent by garm-cli (null) and ignored by the server.
type UpdateScaleSetParams struct {
	Name                   string          `json:"name,omitempty"`
	DisableUpdate          *bool           `json:"disable_update,omitempty"`
	Enabled                *bool           `json:"enabled,omitempty"`
	MaxRunners             *uint           `json:"max_runners,omitempty"`
	MinIdleRunners         *uint           `json:"min_idle_runners,omitempty"`
	RunnerBootstrapTimeout *uint           `json:"runner_bootstrap_timeout,omitempty"`
	Image                  string          `json:"image,omitempty"`
	Flavor                 string          `json:"flavor,omitempty"`
	OSType                 string          `json:"os_type,omitempty"`
	OSArch                 string          `json:"os_arch,omitempty"`
	RunnerPrefix           string          `json:"runner_prefix,omitempty"`
	ExtraSpecs             json.RawMessage `json:"extra_specs,omitempty"`
	EnableShell            *bool           `json:"enable_shell"`
	RunnerGroup            *string         `json:"runner_group,omitempty"`
	State                  *string         `json:"state"`
	ExtendedState          *string         `json:"extended_state"`
	TemplateID             *uint           `json:"template_id,omitempty"`
	ProxyID                *uint           `json:"proxy_id,omitempty"`
}
