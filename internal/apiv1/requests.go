package apiv1

import "encoding/json"

// NewUserParams is the body of POST /first-run.
type NewUserParams struct {
	Email    string `json:"email"`
	Username string `json:"username"`
	FullName string `json:"full_name"`
	Password string `json:"password"`
}

// PasswordLoginParams is the body of POST /auth/login.
type PasswordLoginParams struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// UpdateControllerParams is the body of PUT /controller. Absent keys are unchanged.
type UpdateControllerParams struct {
	MetadataURL          *string `json:"metadata_url,omitempty"`
	CallbackURL          *string `json:"callback_url,omitempty"`
	WebhookURL           *string `json:"webhook_url,omitempty"`
	AgentURL             *string `json:"agent_url,omitempty"`
	GARMAgentReleasesURL *string `json:"garm_agent_releases_url,omitempty"`
	EnableAgentToolsSync *bool   `json:"enable_agent_tools_sync,omitempty"`
	GARMAgentVersion     *string `json:"garm_agent_version,omitempty"`
	AllowInsecureAgent   *bool   `json:"allow_insecure_garm_agent,omitempty"`
	MinimumJobAgeBackoff *uint   `json:"minimum_job_age_backoff,omitempty"`
	CACertBundle         []byte  `json:"ca_cert_bundle,omitempty"`
	ClearCACertBundle    *bool   `json:"clear_ca_cert_bundle,omitempty"`
}

// CreateGithubEndpointParams is the body of POST /github/endpoints.
type CreateGithubEndpointParams struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	APIBaseURL    string `json:"api_base_url"`
	UploadBaseURL string `json:"upload_base_url"`
	BaseURL       string `json:"base_url"`
	CACertBundle  []byte `json:"ca_cert_bundle,omitempty"`
}

// UpdateGithubEndpointParams is the body of PUT /github/endpoints/{name}.
type UpdateGithubEndpointParams struct {
	Description   *string `json:"description,omitempty"`
	APIBaseURL    *string `json:"api_base_url,omitempty"`
	UploadBaseURL *string `json:"upload_base_url,omitempty"`
	BaseURL       *string `json:"base_url,omitempty"`
	CACertBundle  []byte  `json:"ca_cert_bundle,omitempty"`
}

// CreateGiteaEndpointParams is the body of POST /gitea/endpoints.
type CreateGiteaEndpointParams struct {
	Name                     string `json:"name"`
	Description              string `json:"description"`
	APIBaseURL               string `json:"api_base_url"`
	BaseURL                  string `json:"base_url"`
	CACertBundle             []byte `json:"ca_cert_bundle,omitempty"`
	ToolsMetadataURL         string `json:"tools_metadata_url,omitempty"`
	UseInternalToolsMetadata *bool  `json:"use_internal_tools_metadata,omitempty"`
}

// UpdateGiteaEndpointParams is the body of PUT /gitea/endpoints/{name}.
type UpdateGiteaEndpointParams struct {
	Description              *string `json:"description,omitempty"`
	APIBaseURL               *string `json:"api_base_url,omitempty"`
	BaseURL                  *string `json:"base_url,omitempty"`
	CACertBundle             []byte  `json:"ca_cert_bundle,omitempty"`
	ToolsMetadataURL         *string `json:"tools_metadata_url,omitempty"`
	UseInternalToolsMetadata *bool   `json:"use_internal_tools_metadata,omitempty"`
}

// GithubPAT is a personal access token.
type GithubPAT struct {
	OAuth2Token string `json:"oauth2_token,omitempty"`
}

// GithubApp is a GitHub App installation.
type GithubApp struct {
	AppID           int64  `json:"app_id,omitempty"`
	InstallationID  int64  `json:"installation_id,omitempty"`
	PrivateKeyBytes []byte `json:"private_key_bytes,omitempty"`
}

// CreateCredentialsParams is the body of POST /github/credentials and /gitea/credentials.
type CreateCredentialsParams struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Endpoint    string    `json:"endpoint"`
	AuthType    string    `json:"auth_type"`
	PAT         GithubPAT `json:"pat,omitempty"`
	App         GithubApp `json:"app,omitempty"`
}

// UpdateCredentialsParams is the body of PUT /github/credentials/{id} and the Gitea route.
type UpdateCredentialsParams struct {
	Name        *string    `json:"name,omitempty"`
	Description *string    `json:"description,omitempty"`
	PAT         *GithubPAT `json:"pat,omitempty"`
	App         *GithubApp `json:"app,omitempty"`
}

// CreateRepoParams is the body of POST /repositories.
type CreateRepoParams struct {
	Owner            string `json:"owner"`
	Name             string `json:"name"`
	CredentialsName  string `json:"credentials_name"`
	WebhookSecret    string `json:"webhook_secret"`
	PoolBalancerType string `json:"pool_balancer_type,omitempty"`
	ForgeType        string `json:"forge_type,omitempty"`
	AgentMode        bool   `json:"agent_mode,omitempty"`
}

// CreateOrgParams is the body of POST /organizations and /enterprises (no forge_type there).
type CreateOrgParams struct {
	Name             string `json:"name"`
	CredentialsName  string `json:"credentials_name"`
	WebhookSecret    string `json:"webhook_secret"`
	PoolBalancerType string `json:"pool_balancer_type,omitempty"`
	ForgeType        string `json:"forge_type,omitempty"`
	AgentMode        bool   `json:"agent_mode,omitempty"`
}

// UpdateEntityParams is the body of PUT on a repository, organization or enterprise.
type UpdateEntityParams struct {
	CredentialsName  string `json:"credentials_name,omitempty"`
	WebhookSecret    string `json:"webhook_secret,omitempty"`
	PoolBalancerType string `json:"pool_balancer_type,omitempty"`
	AgentMode        *bool  `json:"agent_mode,omitempty"`
}

// InstallWebhookParams is the body of POST /{entity}/{id}/webhook.
type InstallWebhookParams struct {
	WebhookEndpointType string `json:"webhook_endpoint_type"`
	InsecureSSL         bool   `json:"insecure_ssl"`
}

// CreatePoolParams is the body of POST /{entity}/{id}/pools.
type CreatePoolParams struct {
	RunnerPrefix           string          `json:"runner_prefix,omitempty"`
	ProviderName           string          `json:"provider_name,omitempty"`
	MaxRunners             uint            `json:"max_runners,omitempty"`
	MinIdleRunners         uint            `json:"min_idle_runners,omitempty"`
	Image                  string          `json:"image,omitempty"`
	Flavor                 string          `json:"flavor,omitempty"`
	OSType                 string          `json:"os_type,omitempty"`
	OSArch                 string          `json:"os_arch,omitempty"`
	Tags                   []string        `json:"tags,omitempty"`
	Enabled                bool            `json:"enabled,omitempty"`
	RunnerBootstrapTimeout uint            `json:"runner_bootstrap_timeout,omitempty"`
	ExtraSpecs             json.RawMessage `json:"extra_specs,omitempty"`
	GitHubRunnerGroup      string          `json:"github-runner-group,omitempty"`
	Priority               uint            `json:"priority,omitempty"`
	EnableShell            bool            `json:"enable_shell"`
	TemplateID             *uint           `json:"template_id,omitempty"`
	ProxyID                *uint           `json:"proxy_id,omitempty"`
}

// UpdatePoolParams is the body of PUT /pools/{id} and /{entity}/{id}/pools/{poolID}.
type UpdatePoolParams struct {
	RunnerPrefix           string          `json:"runner_prefix,omitempty"`
	Tags                   []string        `json:"tags,omitempty"`
	Enabled                *bool           `json:"enabled,omitempty"`
	MaxRunners             *uint           `json:"max_runners,omitempty"`
	MinIdleRunners         *uint           `json:"min_idle_runners,omitempty"`
	RunnerBootstrapTimeout *uint           `json:"runner_bootstrap_timeout,omitempty"`
	Image                  string          `json:"image,omitempty"`
	Flavor                 string          `json:"flavor,omitempty"`
	OSType                 string          `json:"os_type,omitempty"`
	OSArch                 string          `json:"os_arch,omitempty"`
	ExtraSpecs             json.RawMessage `json:"extra_specs,omitempty"`
	EnableShell            *bool           `json:"enable_shell"`
	GitHubRunnerGroup      *string         `json:"github-runner-group,omitempty"`
	Priority               *uint           `json:"priority,omitempty"`
	TemplateID             *uint           `json:"template_id,omitempty"`
	ProxyID                *uint           `json:"proxy_id,omitempty"`
}

// CreateForgeInstanceParams is the body of POST /forge-instances.
type CreateForgeInstanceParams struct {
	EndpointName     string `json:"endpoint_name"`
	CredentialsName  string `json:"credentials_name"`
	WebhookSecret    string `json:"webhook_secret"`
	ForgeType        string `json:"forge_type,omitempty"`
	PoolBalancerType string `json:"pool_balancer_type,omitempty"`
	AgentMode        bool   `json:"agent_mode,omitempty"`
}

// CreateProxyParams is the body of POST /proxies.
type CreateProxyParams struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	HTTPProxy   string `json:"http_proxy,omitempty"`
	HTTPSProxy  string `json:"https_proxy,omitempty"`
	NoProxy     string `json:"no_proxy,omitempty"`
	Username    string `json:"username,omitempty"`
	Password    string `json:"password,omitempty"`
}

// UpdateProxyParams is the body of PUT /proxies/{id}: absent keys are unchanged, ""
// clears (a name cannot be cleared).
type UpdateProxyParams struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	HTTPProxy   *string `json:"http_proxy,omitempty"`
	HTTPSProxy  *string `json:"https_proxy,omitempty"`
	NoProxy     *string `json:"no_proxy,omitempty"`
	Username    *string `json:"username,omitempty"`
	Password    *string `json:"password,omitempty"`
}

// UpdateFileObjectParams is the body of PUT /objects/{id}: null or absent keys are
// unchanged; tags [] clears them.
type UpdateFileObjectParams struct {
	Name        *string  `json:"name,omitempty"`
	Description *string  `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}
