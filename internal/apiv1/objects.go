package apiv1

import (
	"encoding/json"
	"time"
)

// APIError is the body of every error response.
type APIError struct {
	Error   string `json:"error"`
	Details string `json:"details"`
}

// User is the administrator, as returned by first-run.
type User struct {
	ID        string    `json:"id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Email     string    `json:"email,omitempty"`
	Username  string    `json:"username,omitempty"`
	FullName  string    `json:"full_name,omitempty"`
	Enabled   bool      `json:"enabled"`
	IsAdmin   bool      `json:"is_admin"`
}

// JWTResponse carries a token from login or metrics-token.
type JWTResponse struct {
	Token string `json:"token"`
}

// Provider describes a configured provider.
type Provider struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	// garrison additions, filled when the provider answers its introspection commands.
	Version           string   `json:"version,omitempty"`
	InterfaceVersions []string `json:"supported_interface_versions,omitempty"`
}

// Tag is a pool label.
type Tag struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// EntityEvent is an event recorded on a repository, organization or enterprise.
type EntityEvent struct {
	ID         uint      `json:"id"`
	CreatedAt  time.Time `json:"created_at"`
	EventType  string    `json:"event_type"`
	EventLevel string    `json:"event_level"`
	Message    string    `json:"message"`
}

// StatusMessage is an instance status message.
type StatusMessage struct {
	CreatedAt  time.Time `json:"created_at"`
	Message    string    `json:"message"`
	EventType  string    `json:"event_type"`
	EventLevel string    `json:"event_level"`
}

// PoolManagerStatus says whether an entity's pools are being managed.
type PoolManagerStatus struct {
	IsRunning     bool   `json:"running"`
	FailureReason string `json:"failure_reason,omitempty"`
}

// Pool states reported by PoolHealth.
const (
	PoolHealthy  = "healthy"
	PoolDegraded = "degraded"
	PoolStopped  = "stopped"
)

// PoolHealth is garrison's own report on a pool (GET /pools/{id}/health): healthy;
// degraded, still running and healing by itself (provider failing, forge unauthorised,
// rate-limited until a time, no runner download); or stopped (disabled, or a
// configuration error).
type PoolHealth struct {
	PoolID string `json:"pool_id"`
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// HookInfo describes an installed forge webhook.
type HookInfo struct {
	ID          int64    `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Active      bool     `json:"active"`
	InsecureSSL bool     `json:"insecure_ssl"`
}

// Address is an instance address.
type Address struct {
	Address string `json:"address"`
	Type    string `json:"type"`
}

// RateLimit is a credential's forge API budget.
type RateLimit struct {
	Limit     int   `json:"limit"`
	Used      int   `json:"used"`
	Remaining int   `json:"remaining"`
	Reset     int64 `json:"reset"`
}

// ControllerInfo describes this controller.
type ControllerInfo struct {
	ControllerID            string     `json:"controller_id"`
	Hostname                string     `json:"hostname,omitempty"`
	MetadataURL             string     `json:"metadata_url,omitempty"`
	CallbackURL             string     `json:"callback_url,omitempty"`
	WebhookURL              string     `json:"webhook_url,omitempty"`
	ControllerWebhookURL    string     `json:"controller_webhook_url,omitempty"`
	AgentURL                string     `json:"agent_url,omitempty"`
	GARMAgentReleasesURL    string     `json:"garm_agent_releases_url"`
	EnableAgentToolsSync    bool       `json:"enable_agent_tools_sync"`
	GARMAgentVersion        string     `json:"garm_agent_version"`
	AllowInsecureGARMAgent  bool       `json:"allow_insecure_garm_agent"`
	MinimumJobAgeBackoff    uint       `json:"minimum_job_age_backoff"`
	Version                 string     `json:"version,omitempty"`
	CACertBundle            []byte     `json:"ca_cert_bundle,omitempty"`
	CachedAgentReleaseFetch *time.Time `json:"cached_garm_agent_release_fetched_at,omitempty"`
}

// ForgeEndpoint is a GitHub or Gitea endpoint.
type ForgeEndpoint struct {
	Name                     string    `json:"name"`
	Description              string    `json:"description,omitempty"`
	APIBaseURL               string    `json:"api_base_url,omitempty"`
	UploadBaseURL            string    `json:"upload_base_url,omitempty"`
	BaseURL                  string    `json:"base_url,omitempty"`
	CACertBundle             []byte    `json:"ca_cert_bundle,omitempty"`
	CreatedAt                time.Time `json:"created_at"`
	UpdatedAt                time.Time `json:"updated_at"`
	EndpointType             string    `json:"endpoint_type,omitempty"`
	ToolsMetadataURL         string    `json:"tools_metadata_url,omitempty"`
	UseInternalToolsMetadata bool      `json:"use_internal_tools_metadata,omitempty"`
}

// ForgeCredentials are credentials, without their secrets.
type ForgeCredentials struct {
	ID            uint           `json:"id"`
	Name          string         `json:"name,omitempty"`
	Description   string         `json:"description,omitempty"`
	APIBaseURL    string         `json:"api_base_url,omitempty"`
	UploadBaseURL string         `json:"upload_base_url,omitempty"`
	BaseURL       string         `json:"base_url,omitempty"`
	CABundle      []byte         `json:"ca_bundle,omitempty"`
	AuthType      string         `json:"auth-type,omitempty"`
	ForgeType     string         `json:"forge_type,omitempty"`
	Endpoint      ForgeEndpoint  `json:"endpoint"`
	CreatedAt     time.Time      `json:"created_at"`
	UpdatedAt     time.Time      `json:"updated_at"`
	RateLimit     *RateLimit     `json:"rate_limit,omitempty"`
	Repositories  []Repository   `json:"repositories,omitempty"`
	Organizations []Organization `json:"organizations,omitempty"`
	Enterprises   []Enterprise   `json:"enterprises,omitempty"`
}

// Repository is a managed repository.
type Repository struct {
	ID                string            `json:"id"`
	Owner             string            `json:"owner"`
	Name              string            `json:"name"`
	Pools             []Pool            `json:"pool,omitempty"`
	CredentialsName   string            `json:"credentials_name,omitempty"`
	CredentialsID     uint              `json:"credentials_id,omitempty"`
	Credentials       ForgeCredentials  `json:"credentials"`
	Endpoint          ForgeEndpoint     `json:"endpoint"`
	PoolManagerStatus PoolManagerStatus `json:"pool_manager_status"`
	PoolBalancerType  string            `json:"pool_balancing_type,omitempty"`
	AgentMode         bool              `json:"agent_mode"`
	Events            []EntityEvent     `json:"events,omitempty"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
}

// Organization is a managed organization.
type Organization struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Pools             []Pool            `json:"pool,omitempty"`
	CredentialsName   string            `json:"credentials_name,omitempty"`
	CredentialsID     uint              `json:"credentials_id,omitempty"`
	Credentials       ForgeCredentials  `json:"credentials"`
	Endpoint          ForgeEndpoint     `json:"endpoint"`
	PoolManagerStatus PoolManagerStatus `json:"pool_manager_status"`
	PoolBalancerType  string            `json:"pool_balancing_type,omitempty"`
	AgentMode         bool              `json:"agent_mode"`
	Events            []EntityEvent     `json:"events,omitempty"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
}

// Enterprise is a managed enterprise.
type Enterprise = Organization

// Pool is a pool of runners.
type Pool struct {
	ID                     string          `json:"id"`
	RunnerPrefix           string          `json:"runner_prefix,omitempty"`
	ProviderName           string          `json:"provider_name,omitempty"`
	MaxRunners             uint            `json:"max_runners,omitempty"`
	MinIdleRunners         uint            `json:"min_idle_runners,omitempty"`
	Image                  string          `json:"image,omitempty"`
	Flavor                 string          `json:"flavor,omitempty"`
	OSType                 string          `json:"os_type,omitempty"`
	OSArch                 string          `json:"os_arch,omitempty"`
	Tags                   []Tag           `json:"tags"`
	Enabled                bool            `json:"enabled,omitempty"`
	Instances              []Instance      `json:"instances,omitempty"`
	EnableShell            bool            `json:"enable_shell"`
	Generation             uint64          `json:"generation"`
	RepoID                 string          `json:"repo_id,omitempty"`
	RepoName               string          `json:"repo_name,omitempty"`
	OrgID                  string          `json:"org_id,omitempty"`
	OrgName                string          `json:"org_name,omitempty"`
	EnterpriseID           string          `json:"enterprise_id,omitempty"`
	EnterpriseName         string          `json:"enterprise_name,omitempty"`
	ForgeInstanceID        string          `json:"forge_instance_id,omitempty"`
	Endpoint               ForgeEndpoint   `json:"endpoint"`
	RunnerBootstrapTimeout uint            `json:"runner_bootstrap_timeout,omitempty"`
	ExtraSpecs             json.RawMessage `json:"extra_specs,omitempty"`
	GitHubRunnerGroup      string          `json:"github-runner-group,omitempty"`
	Priority               uint            `json:"priority,omitempty"`
	TemplateID             uint            `json:"template_id,omitempty"`
	TemplateName           string          `json:"template_name,omitempty"`
	ProxyID                uint            `json:"proxy_id,omitempty"`
	ProxyName              string          `json:"proxy_name,omitempty"`
	CreatedAt              time.Time       `json:"created_at"`
	UpdatedAt              time.Time       `json:"updated_at"`
}

// Capabilities says what a runner can do.
type Capabilities struct {
	HasShell bool `json:"has_shell"`
}

// Instance is a runner instance.
type Instance struct {
	ID                string          `json:"id,omitempty"`
	ProviderID        string          `json:"provider_id,omitempty"`
	ProviderName      string          `json:"provider_name"`
	AgentID           int64           `json:"agent_id,omitempty"`
	Name              string          `json:"name,omitempty"`
	OSType            string          `json:"os_type,omitempty"`
	OSName            string          `json:"os_name,omitempty"`
	OSVersion         string          `json:"os_version,omitempty"`
	OSArch            string          `json:"os_arch,omitempty"`
	Addresses         []Address       `json:"addresses,omitempty"`
	Status            string          `json:"status,omitempty"`
	RunnerStatus      string          `json:"runner_status,omitempty"`
	PoolID            string          `json:"pool_id,omitempty"`
	ScaleSetID        uint            `json:"scale_set_id,omitempty"`
	ProviderFault     []byte          `json:"provider_fault,omitempty"`
	StatusMessages    []StatusMessage `json:"status_messages,omitempty"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
	GitHubRunnerGroup string          `json:"github-runner-group,omitempty"`
	Job               *Job            `json:"job,omitempty"`
	Heartbeat         time.Time       `json:"heartbeat"`
	Capabilities      Capabilities    `json:"capabilities"`
	Generation        uint64          `json:"generation"`
}

// Job is a workflow job garrison knows about.
type Job struct {
	ID              int64     `json:"id"`                        // the server's own id: from 1, in the order jobs were recorded
	WorkflowJobID   int64     `json:"workflow_job_id,omitempty"` // the forge's workflow job id
	ScaleSetJobID   string    `json:"scaleset_job_id,omitempty"`
	RunID           int64     `json:"run_id,omitempty"`
	Action          string    `json:"action,omitempty"`
	Status          string    `json:"status,omitempty"`
	Conclusion      string    `json:"conclusion,omitempty"`
	Name            string    `json:"name,omitempty"`
	StartedAt       time.Time `json:"started_at"`
	CompletedAt     time.Time `json:"completed_at"`
	RunnerID        int64     `json:"runner_id,omitempty"`
	RunnerName      string    `json:"runner_name,omitempty"`
	RunnerGroupID   int64     `json:"runner_group_id,omitempty"`
	RunnerGroupName string    `json:"runner_group_name,omitempty"`
	RepositoryName  string    `json:"repository_name,omitempty"`
	RepositoryOwner string    `json:"repository_owner,omitempty"`
	WorkflowRunURL  string    `json:"workflow_run_url,omitempty"` // the run's web page
	Labels          []string  `json:"labels,omitempty"`
	RepoID          *string   `json:"repo_id,omitempty"`
	OrgID           *string   `json:"org_id,omitempty"`
	EnterpriseID    *string   `json:"enterprise_id,omitempty"`
	ForgeInstanceID *string   `json:"forge_instance_id"`
	LockedBy        string    `json:"locked_by"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	Reason          string    `json:"reason,omitempty"` // garrison: why the job is waiting, when known
}

// RotateRunnersResponse answers POST /pools/{poolID}/runners/rotate (a garrison extension).
type RotateRunnersResponse struct {
	// Rotated is how many idle runners of an older pool generation were marked for
	// deletion; the pool refills with runners of its current definition.
	Rotated int `json:"rotated"`
}

// ForgeInstance is a whole Gitea server managed as one entity (rest-api-2 §4.2); its
// endpoint identifies it.
type ForgeInstance struct {
	ID                string            `json:"id"`
	CredentialsName   string            `json:"credentials_name,omitempty"`
	CredentialsID     uint              `json:"credentials_id,omitempty"`
	Credentials       ForgeCredentials  `json:"credentials"`
	Endpoint          ForgeEndpoint     `json:"endpoint"`
	Pools             []Pool            `json:"pool,omitempty"`
	PoolManagerStatus PoolManagerStatus `json:"pool_manager_status"`
	PoolBalancerType  string            `json:"pool_balancing_type,omitempty"`
	AgentMode         bool              `json:"agent_mode"`
	Events            []EntityEvent     `json:"events,omitempty"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
}

// Proxy is a named HTTP(S) proxy (rest-api-2 §6.2); the password is never returned.
type Proxy struct {
	ID          uint      `json:"id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	HTTPProxy   string    `json:"http_proxy,omitempty"`
	HTTPSProxy  string    `json:"https_proxy,omitempty"`
	NoProxy     string    `json:"no_proxy,omitempty"`
	Username    string    `json:"username,omitempty"`
}

// FileObject is an object store entry (rest-api-2 §7.2).
type FileObject struct {
	ID          uint      `json:"id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Name        string    `json:"name"`
	Size        int64     `json:"size"`
	Tags        []string  `json:"tags"`
	FileType    string    `json:"file_type"`
	Description string    `json:"description,omitempty"`
	SHA256      string    `json:"sha256,omitempty"`
}

// FileObjectPage is one page of GET /objects.
type FileObjectPage struct {
	TotalCount   int          `json:"total_count"`
	Pages        int          `json:"pages"`
	CurrentPage  int          `json:"current_page"`
	NextPage     *int         `json:"next_page,omitempty"`
	PreviousPage *int         `json:"previous_page,omitempty"`
	Results      []FileObject `json:"results"`
}
