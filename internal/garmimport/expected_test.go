package garmimport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// expected is the part of the fixture's expected.json an import is compared with.
type expected struct {
	Users []struct {
		ID, Username, Email string
		FullName            string `json:"full_name"`
		IsAdmin             bool   `json:"is_admin"`
		Enabled             bool
		Generation          uint
		PasswordBcrypt      string `json:"password_bcrypt"`
		PasswordCleartext   string `json:"password_cleartext"`
	}
	Controller struct {
		ControllerID         string `json:"controller_id"`
		MetadataURL          string `json:"metadata_url"`
		CallbackURL          string `json:"callback_url"`
		WebhookBaseURL       string `json:"webhook_base_url"`
		AgentURL             string `json:"agent_url"`
		MinimumJobAgeBackoff uint   `json:"minimum_job_age_backoff"`
		ReleasesURL          string `json:"garm_agent_releases_url"`
		SyncTools            bool   `json:"sync_garm_agent_tools"`
		AgentVersion         string `json:"garm_agent_version"`
		AllowInsecure        bool   `json:"allow_insecure_garm_agent"`
	}
	Endpoints []struct {
		Name, Description        string
		Type                     string  `json:"endpoint_type"`
		BaseURL                  string  `json:"base_url"`
		APIBaseURL               string  `json:"api_base_url"`
		UploadBaseURL            string  `json:"upload_base_url"`
		ToolsMetadataURL         string  `json:"tools_metadata_url"`
		UseInternalToolsMetadata bool    `json:"use_internal_tools_metadata"`
		CABundlePEM              *string `json:"ca_cert_bundle_pem"`
	}
	GitHubCredentials []expectedCreds `json:"github_credentials"`
	GiteaCredentials  []expectedCreds `json:"gitea_credentials"`
	Repositories      []expectedEntity
	Organizations     []expectedEntity
	Enterprises       []expectedEntity
	ForgeInstances    []expectedEntity `json:"forge_instances"`
	Pools             []expectedPool
	Tags              []string
	Instances         []expectedInstance
	Jobs              []expectedJob
	Objects           []struct {
		ID                uint
		Name, Description string
		FileType          string `json:"file_type"`
		Size              int64
		SHA256            string
		Tags              []string
	}
	Proxies []struct {
		ID                 uint
		Name, Description  string
		HTTPProxy          string `json:"http_proxy"`
		HTTPSProxy         string `json:"https_proxy"`
		NoProxy            string `json:"no_proxy"`
		Username, Password string
	}
	Templates []expectedTemplate
}

type expectedCreds struct {
	ID                          uint
	Name, Description, Endpoint string
	AuthType                    string `json:"auth_type"`
	PATToken                    string `json:"pat_token"`
	App                         *struct {
		AppID          int64  `json:"app_id"`
		InstallationID int64  `json:"installation_id"`
		PrivateKeyPEM  string `json:"private_key_pem"`
	}
}

type expectedEntity struct {
	ID, Owner, Name, Endpoint string
	ForgeType                 string `json:"forge_type"`
	Credentials               struct {
		Kind string
		ID   uint
		Name string
	}
	WebhookSecret string `json:"webhook_secret"`
	BalancerAPI   string `json:"pool_balancer_type_api"`
	AgentMode     bool   `json:"agent_mode"`
	Events        []struct {
		EventType  string `json:"event_type"`
		EventLevel string `json:"event_level"`
		Message    string
	}
}

type expectedPool struct {
	ID     string
	Entity struct {
		Kind, ID string
	}
	ProviderName           string `json:"provider_name"`
	Image, Flavor          string
	OSType                 string `json:"os_type"`
	OSArch                 string `json:"os_arch"`
	Tags                   []string
	MinIdleRunners         uint            `json:"min_idle_runners"`
	MaxRunners             uint            `json:"max_runners"`
	RunnerPrefix           string          `json:"runner_prefix"`
	RunnerBootstrapTimeout uint            `json:"runner_bootstrap_timeout"`
	Priority               uint            `json:"priority"`
	Enabled                bool            `json:"enabled"`
	EnableShell            bool            `json:"enable_shell"`
	ExtraSpecs             json.RawMessage `json:"extra_specs"`
	RunnerGroup            string          `json:"github_runner_group"`
	Generation             uint64
	Template               *struct {
		ID   uint
		Name string
	}
	Proxy *struct{ Name string }
}

type expectedInstance struct {
	ID, Name         string
	ProviderID       string `json:"provider_id"`
	PoolID           string `json:"pool_id"`
	ProviderName     string `json:"provider_name"`
	Status           string
	RunnerStatus     string `json:"runner_status"`
	AgentID          int64  `json:"agent_id"`
	OSType           string `json:"os_type"`
	OSArch           string `json:"os_arch"`
	OSName           string `json:"os_name"`
	OSVersion        string `json:"os_version"`
	CreateAttempt    int    `json:"create_attempt"`
	TokenFetched     bool   `json:"token_fetched"`
	RunnerGroup      string `json:"github_runner_group"`
	Generation       uint64
	CallbackURL      string `json:"callback_url"`
	MetadataURL      string `json:"metadata_url"`
	JITConfiguration *struct {
		Files       []string
		Runner      map[string]string
		Credentials struct {
			Data struct {
				ClientID string `json:"ClientId"`
			}
		}
	} `json:"jit_configuration"`
	Addresses      []struct{ Address, Type string }
	StatusMessages []struct {
		EventType  string `json:"event_type"`
		EventLevel string `json:"event_level"`
		Message    string
	} `json:"status_messages"`
}

type expectedJob struct {
	WorkflowJobID        int64 `json:"workflow_job_id"`
	RunID                int64 `json:"run_id"`
	Name, Action, Status string
	Labels               []string
	RepositoryOwner      string `json:"repository_owner"`
	RepositoryName       string `json:"repository_name"`
	WorkflowRunURL       string `json:"workflow_run_url"`
	GitHubRunnerID       int64  `json:"github_runner_id"`
	Instance             *string
	Repo                 *string
	ForgeInstance        *string `json:"forge_instance"`
}

func loadExpected(t *testing.T) expected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}
