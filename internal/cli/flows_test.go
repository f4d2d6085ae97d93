package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

const (
	repoID = "11111111-1111-1111-1111-111111111111"
	orgID  = "22222222-2222-2222-2222-222222222222"
	entID  = "33333333-3333-3333-3333-333333333333"
	poolID = "44444444-4444-4444-4444-444444444444"
)

// want is one expected request.
type want struct {
	method, path string
	query        string            // exact raw query (keys sorted)
	keys         []string          // exact body keys; nil = no body
	values       map[string]string // body key => expected JSON
}

var (
	testRepo = apiv1.Repository{
		ID: repoID, Owner: "octo", Name: "hello", CredentialsName: "creds",
		Endpoint:          apiv1.ForgeEndpoint{Name: "github.com", EndpointType: "github"},
		PoolManagerStatus: apiv1.PoolManagerStatus{IsRunning: true},
		PoolBalancerType:  "roundrobin",
		Pools:             []apiv1.Pool{{ID: poolID}},
		Events:            []apiv1.EntityEvent{{ID: 1, EventLevel: "info", EventType: "status", Message: "pool manager started"}},
	}
	testOrg = apiv1.Organization{
		ID: orgID, Name: "acme", CredentialsName: "creds",
		Endpoint:         apiv1.ForgeEndpoint{Name: "gitea.local", EndpointType: "gitea"},
		PoolBalancerType: "pack",
	}
	testEnt  = apiv1.Enterprise{ID: entID, Name: "bigcorp", CredentialsName: "creds", Endpoint: apiv1.ForgeEndpoint{Name: "github.com", EndpointType: "github"}}
	testPool = apiv1.Pool{
		ID: poolID, ProviderName: "lxd", Image: "ubuntu:24.04", Flavor: "small", OSType: "linux", OSArch: "amd64",
		Tags: []apiv1.Tag{{ID: "t1", Name: "self-hosted"}, {ID: "t2", Name: "gpu"}}, Enabled: true,
		RepoID: repoID, RepoName: "octo/hello", Endpoint: apiv1.ForgeEndpoint{Name: "github.com"},
		RunnerPrefix: "garm", MaxRunners: 5, MinIdleRunners: 1, RunnerBootstrapTimeout: 20, Priority: 7,
		Instances: []apiv1.Instance{{Name: "garm-abc", Status: "running", RunnerStatus: "idle"}},
	}
	testRunner = apiv1.Instance{
		Name: "garm-abc", Status: "running", RunnerStatus: "idle", PoolID: poolID, ProviderID: "lxd-123",
		OSType: "linux", OSArch: "amd64", OSName: "ubuntu", Addresses: []apiv1.Address{{Address: "10.0.0.5", Type: "private"}},
		StatusMessages: []apiv1.StatusMessage{{Message: "runner registered", EventLevel: "info"}},
	}
	testCreds = apiv1.ForgeCredentials{ID: 3, Name: "creds", Description: "main creds", AuthType: "pat", BaseURL: "https://github.com", Endpoint: apiv1.ForgeEndpoint{Name: "github.com"}}
	testEP    = apiv1.ForgeEndpoint{Name: "github.com", BaseURL: "https://github.com", APIBaseURL: "https://api.github.com/", UploadBaseURL: "https://uploads.github.com/", EndpointType: "github"}
	testCtl   = apiv1.ControllerInfo{
		ControllerID: "55555555-5555-5555-5555-555555555555", Hostname: "ctl1",
		MetadataURL: "http://ctl/api/v1/metadata", CallbackURL: "http://ctl/api/v1/callbacks",
		WebhookURL: "http://ctl/webhooks", ControllerWebhookURL: "http://ctl/webhooks/55555555-5555-5555-5555-555555555555",
		AgentURL: "http://ctl/agent", GARMAgentReleasesURL: "https://api.github.com/repos/cloudbase/garm-agent/releases",
		MinimumJobAgeBackoff: 30, Version: "v0.1.0",
	}
)

// replies every flow can use.
var commonReplies = map[string]reply{
	"GET /controller-info":                    {body: testCtl},
	"PUT /controller":                         {body: testCtl},
	"GET /github/endpoints":                   {body: []apiv1.ForgeEndpoint{testEP}},
	"GET /github/endpoints/github.com":        {body: testEP},
	"POST /github/endpoints":                  {body: testEP},
	"GET /gitea/endpoints":                    {body: []apiv1.ForgeEndpoint{{Name: "gitea.local", BaseURL: "https://gitea.local", EndpointType: "gitea"}}},
	"GET /github/credentials":                 {body: []apiv1.ForgeCredentials{testCreds}},
	"GET /credentials":                        {body: []apiv1.ForgeCredentials{testCreds}},
	"GET /gitea/credentials":                  {body: []apiv1.ForgeCredentials{{ID: 9, Name: "gcreds", AuthType: "pat", Endpoint: apiv1.ForgeEndpoint{Name: "gitea.local"}}}},
	"GET /github/credentials/3":               {body: apiv1.ForgeCredentials{ID: 3, Name: "creds", Repositories: []apiv1.Repository{testRepo}}},
	"POST /github/credentials":                {body: testCreds},
	"POST /repositories":                      {body: apiv1.Repository{ID: repoID, Owner: "octo", Name: "hello"}},
	"GET /repositories":                       {body: []apiv1.Repository{testRepo}},
	"GET /repositories/" + repoID:             {body: testRepo},
	"PUT /repositories/" + repoID:             {body: testRepo},
	"POST /organizations":                     {body: apiv1.Organization{ID: orgID, Name: "acme"}},
	"GET /organizations":                      {body: []apiv1.Organization{testOrg}},
	"GET /organizations/" + orgID:             {body: testOrg},
	"POST /enterprises":                       {body: testEnt},
	"GET /enterprises":                        {body: []apiv1.Enterprise{testEnt}},
	"GET /enterprises/" + entID:               {body: testEnt},
	"POST /repositories/" + repoID + "/pools": {body: testPool},
	"POST /organizations/" + orgID + "/pools": {body: testPool},
	"GET /pools":                              {body: []apiv1.Pool{testPool}},
	"GET /enterprises/" + entID + "/pools":    {body: []apiv1.Pool{testPool}},
	"GET /pools/" + poolID:                    {body: testPool},
	"PUT /pools/" + poolID:                    {body: testPool},
	"GET /templates":                          {body: []map[string]any{{"id": 4, "name": "my-template-2"}, {"id": 5, "name": "my-template"}}},
	"GET /proxies":                            {body: []map[string]any{{"id": 8, "name": "corp-proxy"}}},
	"GET /instances":                          {body: []apiv1.Instance{testRunner}},
	"GET /instances/garm-abc":                 {body: testRunner},
	"GET /pools/" + poolID + "/instances":     {body: []apiv1.Instance{testRunner}},
	"GET /pools/" + poolID + "/health": {body: apiv1.PoolHealth{PoolID: poolID, State: apiv1.PoolDegraded,
		Reason: "degraded: provider failing (3 failed runners in a row)"}},
	"GET /scalesets/7/instances":                 {body: []apiv1.Instance{{Name: "ss-runner", ScaleSetID: 7, Status: "running"}}},
	"GET /repositories/" + repoID + "/instances": {body: []apiv1.Instance{testRunner}},
	"GET /jobs":          {body: []apiv1.Job{{ID: 99, WorkflowJobID: 4242, Name: "build", Status: "queued", RepositoryOwner: "octo", RepositoryName: "hello", Labels: []string{"self-hosted", "gpu"}}}},
	"GET /providers":     {body: []apiv1.Provider{{Name: "lxd", Type: "external", Description: "LXD"}}},
	"GET /metrics-token": {body: apiv1.JWTResponse{Token: "metrics.jwt.token"}},
	"GET /replicas": {body: []apiv1.Replica{
		{ID: "host-a-1-aa", Address: "host-a:9997", Version: "v0.9.0", Alive: true, Self: true},
		{ID: "host-b-2-bb", Address: "host-b:9997", Version: "v0.9.0"}}},
	"GET /claims": {body: []apiv1.Claim{
		{Kind: "pool", Key: poolID, Holder: "host-a-1-aa", Token: 3, Held: true},
		{Kind: "sweep", Key: repoID, Holder: "", Token: 2}}},
	"POST /repositories/" + repoID + "/webhook":  {body: apiv1.HookInfo{ID: 42, URL: "http://ctl/webhooks/x", Events: []string{"workflow_job"}, Active: true}},
	"GET /repositories/" + repoID + "/webhook":   {body: apiv1.HookInfo{ID: 42, URL: "http://ctl/webhooks/x", Events: []string{"workflow_job"}, Active: true}},
	"GET /organizations/" + orgID + "/webhook":   {body: apiv1.HookInfo{ID: 43}},
	"PUT /organizations/" + orgID:                {body: testOrg},
	"PUT /enterprises/" + entID:                  {body: testEnt},
	"PUT /github/credentials/3":                  {body: testCreds},
	"PUT /github/endpoints/github.com":           {body: testEP},
	"POST /gitea/endpoints":                      {body: apiv1.ForgeEndpoint{Name: "gitea.local", EndpointType: "gitea"}},
	"POST /gitea/credentials":                    {body: apiv1.ForgeCredentials{ID: 9, Name: "gcreds"}},
	"POST /organizations/" + orgID + "/webhook":  {body: apiv1.HookInfo{ID: 43}},
	"GET /organizations/" + orgID + "/pools":     {body: []apiv1.Pool{testPool}},
	"GET /repositories/" + repoID + "/pools":     {body: []apiv1.Pool{testPool}},
	"GET /enterprises/" + entID + "/instances":   {body: []apiv1.Instance{testRunner}},
	"GET /organizations/" + orgID + "/instances": {body: []apiv1.Instance{testRunner}},
	"GET /gitea/credentials/9":                   {body: apiv1.ForgeCredentials{ID: 9, Name: "gcreds"}},
	"GET /gitea/endpoints/gitea.local":           {body: apiv1.ForgeEndpoint{Name: "gitea.local", EndpointType: "gitea"}},
	"PUT /gitea/endpoints/gitea.local":           {body: apiv1.ForgeEndpoint{Name: "gitea.local", EndpointType: "gitea"}},
	"PUT /gitea/credentials/9":                   {body: apiv1.ForgeCredentials{ID: 9, Name: "gcreds"}},
	"GET /controller":                            {body: testCtl},
}

// flow is one command line and what it must send and print.
type flow struct {
	name   string
	args   []string
	calls  []want
	stdout []string // substrings of the output
	check  func(t *testing.T, calls []call)
}

func get(path string) want               { return want{method: "GET", path: path} }
func getq(path, query string) want       { return want{method: "GET", path: path, query: query} }
func del(path, query string) want        { return want{method: "DELETE", path: path, query: query} }
func post(path string, k ...string) want { return want{method: "POST", path: path, keys: k} }
func put(path string, k ...string) want  { return want{method: "PUT", path: path, keys: k} }

func (w want) with(kv ...string) want {
	w.values = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		w.values[kv[i]] = kv[i+1]
	}
	return w
}

const fakePEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func b64(s string) string { return `"` + base64.StdEncoding.EncodeToString([]byte(s)) + `"` }

func flows() []flow {
	secretRE := regexp.MustCompile(`^"[A-Za-z0-9]{32}"$`)
	return []flow{
		// controller
		{name: "controller show", args: []string{"controller", "show"},
			calls:  []want{get("/controller-info")},
			stdout: []string{"Controller ID", testCtl.ControllerID, "Metadata URL", testCtl.MetadataURL, "Controller webhook URL", testCtl.ControllerWebhookURL, "Agent URL", "GARM agent releases URL", "Minimum job age backoff", "30", "Hostname", "ctl1"}},
		{name: "controller update some", args: []string{"controller", "update", "--metadata-url", "http://n/api/v1/metadata", "--minimum-job-age-backoff", "60", "--enable-agent-tools-sync=false", "--garm-agent-version", "latest"},
			calls: []want{put("/controller", "enable_agent_tools_sync", "garm_agent_version", "metadata_url", "minimum_job_age_backoff").
				with("metadata_url", `"http://n/api/v1/metadata"`, "minimum_job_age_backoff", "60", "enable_agent_tools_sync", "false", "garm_agent_version", `"latest"`)}},
		{name: "controller update all", args: []string{"controller", "update", "--callback-url", "http://c", "--webhook-url", "http://w", "--agent-url", "http://a",
			"--garm-agent-releases-url", "", "--allow-insecure-garm-agent=false", "--ca-bundle", "@CA@"},
			calls: []want{put("/controller", "agent_url", "allow_insecure_garm_agent", "ca_cert_bundle", "callback_url", "garm_agent_releases_url", "webhook_url").
				with("ca_cert_bundle", b64(fakePEM), "garm_agent_releases_url", `""`, "allow_insecure_garm_agent", "false")}},
		{name: "controller update clear ca", args: []string{"controller", "update", "--clear-ca-bundle"},
			calls: []want{put("/controller", "clear_ca_cert_bundle").with("clear_ca_cert_bundle", "true")}},

		// github endpoints
		{name: "github endpoint create", args: []string{"github", "endpoint", "create", "--name", "ghes", "--description", "GHES", "--base-url", "https://ghes", "--api-base-url", "https://ghes/api/v3", "--upload-url", "https://ghes/uploads", "--ca-cert-path", "@CA@"},
			calls: []want{post("/github/endpoints", "api_base_url", "base_url", "ca_cert_bundle", "description", "name", "upload_base_url").
				with("name", `"ghes"`, "upload_base_url", `"https://ghes/uploads"`, "ca_cert_bundle", b64(fakePEM))}},
		{name: "github endpoint list", args: []string{"github", "endpoint", "list"},
			calls: []want{get("/github/endpoints")}, stdout: []string{"NAME", "BASE URL", "github.com", "https://api.github.com/", "https://uploads.github.com/"}},
		{name: "github endpoint show", args: []string{"github", "endpoint", "show", "github.com"},
			calls: []want{get("/github/endpoints/github.com")}, stdout: []string{"Upload URL", "https://uploads.github.com/"}},
		{name: "github endpoint update", args: []string{"github", "endpoint", "update", "github.com", "--description", "public"},
			calls: []want{put("/github/endpoints/github.com", "description").with("description", `"public"`)}},
		{name: "github endpoint delete", args: []string{"github", "endpoint", "delete", "ghes"},
			calls: []want{del("/github/endpoints/ghes", "")}},

		// github credentials
		{name: "github credentials add pat", args: []string{"github", "credentials", "add", "--name", "creds", "--description", "d", "--endpoint", "github.com", "--auth-type", "pat", "--pat-oauth-token", "ghp_x"},
			calls: []want{post("/github/credentials", "app", "auth_type", "description", "endpoint", "name", "pat").
				with("auth_type", `"pat"`, "pat", `{"oauth2_token":"ghp_x"}`, "app", `{}`)}},
		{name: "github credentials add app", args: []string{"github", "credentials", "add", "--name", "app", "--description", "d", "--endpoint", "github.com", "--auth-type", "app", "--app-id", "12", "--app-installation-id", "34", "--private-key-path", "@KEY@"},
			calls: []want{post("/github/credentials", "app", "auth_type", "description", "endpoint", "name", "pat").
				with("auth_type", `"app"`, "pat", `{}`, "app", `{"app_id":12,"installation_id":34,"private_key_bytes":`+b64("KEY")+`}`)}},
		{name: "github credentials list", args: []string{"github", "credentials", "list"},
			calls: []want{get("/github/credentials")}, stdout: []string{"ID", "NAME", "creds", "main creds", "pat", "github.com"}},
		{name: "legacy credentials list", args: []string{"credentials", "list"},
			calls: []want{get("/credentials")}, stdout: []string{"creds"}},
		{name: "github credentials show by id", args: []string{"github", "credentials", "show", "3"},
			calls: []want{get("/github/credentials/3")}, stdout: []string{"Repositories", "octo/hello"}},
		{name: "github credentials show by name", args: []string{"github", "credentials", "show", "creds"},
			calls: []want{get("/github/credentials"), get("/github/credentials/3")}},
		{name: "github credentials update", args: []string{"github", "credentials", "update", "3", "--description", "new", "--pat-oauth-token", "t2"},
			calls: []want{put("/github/credentials/3", "description", "pat").with("pat", `{"oauth2_token":"t2"}`)}},
		{name: "github credentials delete", args: []string{"github", "credentials", "delete", "3"},
			calls: []want{del("/github/credentials/3", "")}},

		// gitea
		{name: "gitea endpoint create", args: []string{"gitea", "endpoint", "create", "--name", "gitea.local", "--description", "d", "--base-url", "https://gitea.local", "--api-base-url", "https://gitea.local/api/v1"},
			calls: []want{post("/gitea/endpoints", "api_base_url", "base_url", "description", "name", "tools_metadata_url", "use_internal_tools_metadata").
				with("tools_metadata_url", `"`+DefaultGiteaToolsMetadataURL+`"`, "use_internal_tools_metadata", "false")}},
		{name: "gitea endpoint create custom tools", args: []string{"gitea", "endpoint", "create", "--name", "g", "--description", "d", "--base-url", "https://g", "--api-base-url", "https://g/api/v1", "--tools-metadata-url", "https://mirror/releases", "--use-internal-tools-metadata", "--ca-cert-path", "@CA@"},
			calls: []want{post("/gitea/endpoints", "api_base_url", "base_url", "ca_cert_bundle", "description", "name", "tools_metadata_url", "use_internal_tools_metadata").
				with("tools_metadata_url", `"https://mirror/releases"`, "use_internal_tools_metadata", "true")}},
		{name: "gitea endpoint list", args: []string{"gitea", "endpoint", "list"},
			calls: []want{get("/gitea/endpoints")}, stdout: []string{"gitea.local", "https://gitea.local"}},
		{name: "gitea endpoint update", args: []string{"gitea", "endpoint", "update", "gitea.local", "--use-internal-tools-metadata=false"},
			calls: []want{put("/gitea/endpoints/gitea.local", "use_internal_tools_metadata")}},
		{name: "gitea credentials add", args: []string{"gitea", "credentials", "add", "--name", "gcreds", "--description", "d", "--endpoint", "gitea.local", "--auth-type", "pat", "--pat-oauth-token", "tok"},
			calls: []want{post("/gitea/credentials", "app", "auth_type", "description", "endpoint", "name", "pat").
				with("pat", `{"oauth2_token":"tok"}`, "app", `{}`, "endpoint", `"gitea.local"`)}},
		{name: "gitea credentials list", args: []string{"gitea", "credentials", "list"},
			calls: []want{get("/gitea/credentials")}, stdout: []string{"gcreds", "gitea.local"}},
		{name: "gitea credentials show by name", args: []string{"gitea", "credentials", "show", "gcreds"},
			calls: []want{get("/gitea/credentials"), get("/gitea/credentials/9")}},

		// repositories
		{name: "repo add random secret and webhook", args: []string{"repo", "add", "--owner", "octo", "--name", "hello", "--credentials", "creds", "--random-webhook-secret", "--install-webhook"},
			calls: []want{
				post("/repositories", "credentials_name", "name", "owner", "pool_balancer_type", "webhook_secret").with("pool_balancer_type", `"roundrobin"`, "owner", `"octo"`),
				post("/repositories/"+repoID+"/webhook", "insecure_ssl", "webhook_endpoint_type").with("webhook_endpoint_type", `"direct"`),
				get("/repositories/" + repoID),
			},
			stdout: []string{repoID, "octo", "hello", "github.com", "roundrobin", poolID, "pool manager started"},
			check: func(t *testing.T, calls []call) {
				if s := string(calls[0].Body["webhook_secret"]); !secretRE.MatchString(s) {
					t.Errorf("random webhook secret = %s, want 32 alphanumeric characters", s)
				}
			}},
		{name: "repo add all flags", args: []string{"repository", "create", "--owner", "octo", "--name", "hello", "--credentials", "creds", "--webhook-secret", "s3cret", "--forge-type", "github", "--pool-balancer-type", "pack", "--agent-mode=false"},
			calls: []want{
				post("/repositories", "credentials_name", "forge_type", "name", "owner", "pool_balancer_type", "webhook_secret").
					with("webhook_secret", `"s3cret"`, "forge_type", `"github"`, "pool_balancer_type", `"pack"`),
				get("/repositories/" + repoID),
			}},
		{name: "repo list filtered", args: []string{"repo", "list", "--owner", "octo", "--endpoint", "github.com"},
			calls:  []want{getq("/repositories", "endpoint=github.com&owner=octo")},
			stdout: []string{"ID", "OWNER", "NAME", "ENDPOINT", "CREDENTIALS", "POOL MGR RUNNING", repoID, "octo", "hello", "github", "creds", "roundrobin", "true"}},
		{name: "repo list", args: []string{"repo", "list"}, calls: []want{get("/repositories")}},
		{name: "repo show by name", args: []string{"repo", "show", "octo/hello"},
			calls: []want{getq("/repositories", "name=hello&owner=octo"), get("/repositories/" + repoID)}},
		{name: "repo show by name and endpoint", args: []string{"repo", "show", "octo/hello", "--endpoint", "github.com"},
			calls: []want{getq("/repositories", "endpoint=github.com&name=hello&owner=octo"), get("/repositories/" + repoID)}},
		{name: "repo show by id", args: []string{"repo", "show", repoID}, calls: []want{get("/repositories/" + repoID)}},
		{name: "repo update by name", args: []string{"repo", "update", "octo/hello", "--credentials", "c2", "--agent-mode=false"},
			calls: []want{getq("/repositories", "name=hello&owner=octo"), put("/repositories/"+repoID, "agent_mode", "credentials_name").with("agent_mode", "false", "credentials_name", `"c2"`)}},
		{name: "repo update secret only", args: []string{"repo", "update", repoID, "--webhook-secret", "new", "--pool-balancer-type", "pack"},
			calls: []want{put("/repositories/"+repoID, "pool_balancer_type", "webhook_secret")}},
		{name: "repo delete", args: []string{"repo", "delete", repoID},
			calls: []want{del("/repositories/"+repoID, "keepWebhook=false")}},
		{name: "repo delete keep webhook", args: []string{"repo", "rm", "octo/hello", "--keep-webhook"},
			calls: []want{getq("/repositories", "name=hello&owner=octo"), del("/repositories/"+repoID, "keepWebhook=true")}},
		{name: "repo webhook install", args: []string{"repo", "webhook", "install", repoID, "--insecure"},
			calls:  []want{post("/repositories/"+repoID+"/webhook", "insecure_ssl", "webhook_endpoint_type").with("insecure_ssl", "true", "webhook_endpoint_type", `"direct"`)},
			stdout: []string{"42", "workflow_job"}},
		{name: "repo webhook show", args: []string{"repo", "webhook", "show", repoID}, calls: []want{get("/repositories/" + repoID + "/webhook")}, stdout: []string{"http://ctl/webhooks/x"}},
		{name: "repo webhook uninstall", args: []string{"repo", "webhook", "uninstall", repoID}, calls: []want{del("/repositories/"+repoID+"/webhook", "")}},

		// organizations
		{name: "org add", args: []string{"org", "add", "--name", "acme", "--credentials", "gcreds", "--webhook-secret", "s", "--forge-type", "gitea", "--install-webhook"},
			calls: []want{
				post("/organizations", "credentials_name", "forge_type", "name", "pool_balancer_type", "webhook_secret").with("forge_type", `"gitea"`),
				post("/organizations/"+orgID+"/webhook", "insecure_ssl", "webhook_endpoint_type"),
				get("/organizations/" + orgID),
			},
			stdout: []string{orgID, "acme", "gitea.local", "pack"}},
		{name: "org add random secret", args: []string{"organization", "add", "--name", "acme", "--credentials", "creds", "--random-webhook-secret"},
			calls: []want{post("/organizations", "credentials_name", "name", "pool_balancer_type", "webhook_secret"), get("/organizations/" + orgID)}},
		{name: "org list", args: []string{"org", "list", "--name", "acme"}, calls: []want{getq("/organizations", "name=acme")}, stdout: []string{"ID", "NAME", orgID, "acme", "gitea"}},
		{name: "org show by name", args: []string{"org", "show", "acme", "--endpoint", "gitea.local"},
			calls: []want{getq("/organizations", "endpoint=gitea.local&name=acme"), get("/organizations/" + orgID)}},
		{name: "org update", args: []string{"org", "update", orgID, "--agent-mode=false"},
			calls: []want{put("/organizations/"+orgID, "agent_mode").with("agent_mode", "false")}},
		{name: "org delete", args: []string{"org", "delete", "acme"},
			calls: []want{getq("/organizations", "name=acme"), del("/organizations/"+orgID, "keepWebhook=false")}},
		{name: "org webhook show", args: []string{"org", "webhook", "show", orgID}, calls: []want{get("/organizations/" + orgID + "/webhook")}},

		// enterprises
		{name: "enterprise add", args: []string{"enterprise", "add", "--name", "bigcorp", "--credentials", "creds", "--webhook-secret", "s"},
			calls:  []want{post("/enterprises", "credentials_name", "name", "pool_balancer_type", "webhook_secret")},
			stdout: []string{entID, "bigcorp"}},
		{name: "enterprise list", args: []string{"enterprise", "list", "--endpoint", "github.com"}, calls: []want{getq("/enterprises", "endpoint=github.com")}, stdout: []string{"bigcorp"}},
		{name: "enterprise show by name", args: []string{"enterprise", "show", "bigcorp"},
			calls: []want{getq("/enterprises", "name=bigcorp"), get("/enterprises/" + entID)}},
		{name: "enterprise update", args: []string{"enterprise", "update", entID, "--pool-balancer-type", "pack"},
			calls: []want{put("/enterprises/"+entID, "pool_balancer_type")}},
		{name: "enterprise delete", args: []string{"enterprise", "delete", entID}, calls: []want{del("/enterprises/"+entID, "")}},

		// pools
		{name: "pool add defaults", args: []string{"pool", "add", "--repo", "octo/hello", "--provider-name", "lxd", "--image", "ubuntu:24.04", "--flavor", "small", "--tags", "self-hosted,gpu"},
			calls: []want{
				getq("/repositories", "name=hello&owner=octo"),
				post("/repositories/"+repoID+"/pools", "enable_shell", "flavor", "image", "max_runners", "min_idle_runners", "os_arch", "os_type", "provider_name", "runner_bootstrap_timeout", "tags").
					with("tags", `["self-hosted","gpu"]`, "os_type", `"linux"`, "os_arch", `"amd64"`, "max_runners", "5", "min_idle_runners", "1", "runner_bootstrap_timeout", "20", "enable_shell", "false"),
			},
			stdout: []string{poolID, "self-hosted,gpu", "octo/hello"}},
		{name: "pool add everything", args: []string{"pool", "add", "--org", orgID, "--provider-name", "lxd", "--image", "img", "--flavor", "f", "--tags", "a",
			"--os-type", "windows", "--os-arch", "arm64", "--max-runners", "10", "--min-idle-runners", "2", "--runner-bootstrap-timeout", "30",
			"--runner-prefix", "gx", "--runner-group", "grp", "--priority", "3", "--enabled", "--enable-shell=false", "--extra-specs", `{"disk": 20}`,
			"--runner-install-template", "my-template", "--proxy", "corp-proxy"},
			calls: []want{
				getq("/templates", "partialName=my-template"),
				get("/proxies"),
				post("/organizations/"+orgID+"/pools", "enable_shell", "enabled", "extra_specs", "flavor", "github-runner-group", "image", "max_runners", "min_idle_runners",
					"os_arch", "os_type", "priority", "provider_name", "proxy_id", "runner_bootstrap_timeout", "runner_prefix", "tags", "template_id").
					with("template_id", "5", "proxy_id", "8", "extra_specs", `{"disk":20}`, "enabled", "true", "enable_shell", "false", "github-runner-group", `"grp"`),
			}},
		{name: "pool add numeric template and proxy", args: []string{"pool", "add", "--enterprise", "bigcorp", "--provider-name", "lxd", "--image", "i", "--flavor", "f", "--tags", "a",
			"--runner-install-template", "12", "--proxy", "4", "--extra-specs-file", "@SPECS@"},
			calls: []want{
				getq("/enterprises", "name=bigcorp"),
				post("/enterprises/"+entID+"/pools", "enable_shell", "extra_specs", "flavor", "image", "max_runners", "min_idle_runners", "os_arch", "os_type", "provider_name", "proxy_id", "runner_bootstrap_timeout", "tags", "template_id").
					with("template_id", "12", "proxy_id", "4", "extra_specs", `{"from":"file"}`),
			}},
		{name: "pool list all", args: []string{"pool", "list"}, calls: []want{get("/pools")},
			stdout: []string{"ID", "IMAGE", "FLAVOR", "TAGS", "BELONGS TO", "ENDPOINT", "ENABLED", "RUNNER PREFIX", "MAX", "MIN IDLE", poolID, "ubuntu:24.04", "small", "self-hosted,gpu", "octo/hello", "repo", "garm", "true"}},
		{name: "pool list of enterprise", args: []string{"pool", "list", "--enterprise", entID}, calls: []want{get("/enterprises/" + entID + "/pools")}},
		{name: "pool list of repo by name", args: []string{"pool", "ls", "--repo", "octo/hello"}, calls: []want{getq("/repositories", "name=hello&owner=octo"), get("/repositories/" + repoID + "/pools")}},
		{name: "pool show", args: []string{"pool", "show", poolID}, calls: []want{get("/pools/" + poolID)},
			stdout: []string{"Runner bootstrap timeout", "20", "Priority", "7", "Instances", "garm-abc (running/idle)", "Max runners", "Min idle runners"}},
		{name: "replica list", args: []string{"replica", "list"}, calls: []want{get("/replicas")},
			stdout: []string{"LAST HEARTBEAT", "host-a-1-aa *", "host-a:9997", "host-b-2-bb", "false"}},
		{name: "claim list", args: []string{"claim", "list"}, calls: []want{get("/claims")},
			stdout: []string{"TOKEN", "pool", poolID, "host-a-1-aa", "3", "sweep", repoID}},
		{name: "pool health", args: []string{"pool", "health", poolID}, calls: []want{get("/pools/" + poolID + "/health")},
			stdout: []string{"State", "degraded", "provider failing (3 failed runners in a row)"}},
		{name: "pool update one flag", args: []string{"pool", "update", poolID, "--max-runners", "3"},
			calls: []want{put("/pools/"+poolID, "enable_shell", "max_runners").with("max_runners", "3", "enable_shell", "null")}},
		{name: "pool update many", args: []string{"pool", "update", poolID, "--enable-shell=false", "--clear-proxy", "--tags", "x,y", "--enabled=false", "--min-idle-runners", "0", "--image", "img2", "--runner-group", ""},
			calls: []want{put("/pools/"+poolID, "enable_shell", "enabled", "github-runner-group", "image", "min_idle_runners", "proxy_id", "tags").
				with("enable_shell", "false", "proxy_id", "0", "tags", `["x","y"]`, "enabled", "false", "min_idle_runners", "0", "github-runner-group", `""`)}},
		{name: "pool update template by name", args: []string{"pool", "update", poolID, "--runner-install-template", "my-template-2"},
			calls: []want{getq("/templates", "partialName=my-template-2"), put("/pools/"+poolID, "enable_shell", "template_id").with("template_id", "4")}},
		{name: "pool delete", args: []string{"pool", "delete", poolID}, calls: []want{del("/pools/"+poolID, "")}},
		{name: "pool runner rotate", args: []string{"pool", "runner", "rotate", poolID, "--outdated"},
			calls: []want{post("/pools/" + poolID + "/runners/rotate")}, stdout: []string{"outdated runner(s) marked for replacement"}},

		// runners
		{name: "runner list all", args: []string{"runner", "list"}, calls: []want{get("/instances")},
			stdout: []string{"NAME", "STATUS", "RUNNER STATUS", "garm-abc", "running", "idle", poolID, "lxd-123"}},
		{name: "runner list of pool", args: []string{"runner", "list", poolID}, calls: []want{get("/pools/" + poolID + "/instances")}},
		{name: "runner list of scale set", args: []string{"runner", "list", "7"}, calls: []want{get("/scalesets/7/instances")}, stdout: []string{"ss-runner", "scaleset 7"}},
		{name: "runner list of repo", args: []string{"runner", "list", "--repo", repoID}, calls: []want{get("/repositories/" + repoID + "/instances")}},
		{name: "runner list of org", args: []string{"runner", "list", "--org", "acme"}, calls: []want{getq("/organizations", "name=acme"), get("/organizations/" + orgID + "/instances")}},
		{name: "runner show", args: []string{"runner", "show", "garm-abc"}, calls: []want{get("/instances/garm-abc")},
			stdout: []string{"Provider ID", "lxd-123", "OS type", "linux", "OS arch", "amd64", "OS name", "ubuntu", "10.0.0.5 (private)", "runner registered", "Pool ID", poolID}},
		{name: "runner delete", args: []string{"runner", "delete", "garm-abc"}, calls: []want{del("/instances/garm-abc", "bypassGHUnauthorized=false&forceRemove=false")}},
		{name: "runner delete forced", args: []string{"runner", "rm", "garm-abc", "--force-remove-runner", "--bypass-github-unauthorized"},
			calls: []want{del("/instances/garm-abc", "bypassGHUnauthorized=true&forceRemove=true")}},

		// misc
		{name: "job list", args: []string{"job", "list"}, calls: []want{get("/jobs")}, stdout: []string{"99", "4242", "build", "queued", "octo/hello", "self-hosted,gpu"}},
		{name: "provider list", args: []string{"provider", "list"}, calls: []want{get("/providers")}, stdout: []string{"NAME", "lxd", "external", "LXD"}},
		{name: "metrics-token create", args: []string{"metrics-token", "create"}, calls: []want{get("/metrics-token")}, stdout: []string{"metrics.jwt.token\n"}},
	}
}

// writeFixtures writes the files flows refer to and substitutes their paths.
func writeFixtures(t *testing.T, args []string) []string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"@CA@": fakePEM, "@KEY@": "KEY", "@SPECS@": `{"from":"file"}`}
	out := slices.Clone(args)
	for i, a := range out {
		if content, ok := files[a]; ok {
			p := filepath.Join(dir, strings.Trim(a, "@"))
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			out[i] = p
		}
	}
	return out
}

// TestFlows runs every §5 flow against a recording server and checks the
// requests (in order, with query and body keys) and the table output.
func TestFlows(t *testing.T) {
	for _, f := range flows() {
		t.Run(f.name, func(t *testing.T) {
			srv := newFakeServer(t, commonReplies)
			e := newEnv(t).withProfile(t, srv)
			stdout, stderr, err := e.run(t, writeFixtures(t, f.args)...)
			if err != nil {
				t.Fatalf("%v failed: %v\nstderr: %s", f.args, err, stderr)
			}
			calls := srv.recorded()
			checkCalls(t, calls, f.calls)
			for _, s := range f.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("output lacks %q:\n%s", s, stdout)
				}
			}
			if f.check != nil && !t.Failed() {
				f.check(t, calls)
			}
		})
	}
}

// checkCalls compares the recorded requests with the expected ones,
// including the headers every API call carries.
func checkCalls(t *testing.T, got []call, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		var seen []string
		for _, c := range got {
			seen = append(seen, c.Method+" "+c.Path+"?"+c.Query)
		}
		t.Fatalf("got %d requests, want %d:\n%s", len(got), len(wants), strings.Join(seen, "\n"))
	}
	for i, w := range wants {
		c := got[i]
		if c.Method != w.method || c.Path != w.path || c.Query != w.query {
			t.Errorf("request %d = %s %s?%s, want %s %s?%s", i, c.Method, c.Path, c.Query, w.method, w.path, w.query)
		}
		if gk := keys(c.Body); !slices.Equal(gk, w.keys) {
			t.Errorf("request %d (%s %s) body keys = %v, want %v\nbody: %s", i, c.Method, c.Path, gk, w.keys, c.RawBody)
		}
		for k, v := range w.values {
			if got := compactJSON(t, c.Body[k]); got != compactJSON(t, []byte(v)) {
				t.Errorf("request %d (%s %s) %s = %s, want %s", i, c.Method, c.Path, k, got, v)
			}
		}
		if got := c.Header.Get("Authorization"); got != "Bearer tok" {
			t.Errorf("request %d Authorization = %q, want %q", i, got, "Bearer tok")
		}
		if got := c.Header.Get("Accept"); got != "application/json" {
			t.Errorf("request %d Accept = %q", i, got)
		}
		wantCT := ""
		if w.keys != nil {
			wantCT = "application/json"
		}
		if got := c.Header.Get("Content-Type"); got != wantCT {
			t.Errorf("request %d Content-Type = %q, want %q", i, got, wantCT)
		}
	}
}

// TestFlowsJSON checks that --format json prints the decoded structs.
func TestFlowsJSON(t *testing.T) {
	tests := []struct {
		args []string
		into any
		want []string // JSON keys or values that must appear
	}{
		{[]string{"controller", "show"}, &apiv1.ControllerInfo{}, []string{`"controller_id"`, `"garm_agent_releases_url"`, `"minimum_job_age_backoff": 30`}},
		{[]string{"repo", "list"}, &[]apiv1.Repository{}, []string{`"pool_balancing_type": "roundrobin"`, `"credentials_name": "creds"`, `"running": true`}},
		{[]string{"repo", "show", repoID}, &apiv1.Repository{}, []string{`"pool": [`, `"events": [`}},
		{[]string{"org", "list"}, &[]apiv1.Organization{}, []string{`"name": "acme"`}},
		{[]string{"enterprise", "show", entID}, &apiv1.Enterprise{}, []string{`"name": "bigcorp"`}},
		{[]string{"pool", "list"}, &[]apiv1.Pool{}, []string{`"tags": [`, `"name": "gpu"`, `"repo_name": "octo/hello"`}},
		{[]string{"pool", "show", poolID}, &apiv1.Pool{}, []string{`"instances": [`, `"enable_shell": false`}},
		{[]string{"pool", "health", poolID}, &apiv1.PoolHealth{}, []string{`"state": "degraded"`, `"reason": "degraded: provider failing`}},
		{[]string{"runner", "list"}, &[]apiv1.Instance{}, []string{`"provider_id": "lxd-123"`}},
		{[]string{"runner", "show", "garm-abc"}, &apiv1.Instance{}, []string{`"addresses"`, `"status_messages"`}},
		{[]string{"job", "list"}, &[]apiv1.Job{}, []string{`"id": 99`, `"labels"`}},
		{[]string{"provider", "list"}, &[]apiv1.Provider{}, []string{`"type": "external"`}},
		{[]string{"replica", "list"}, &[]apiv1.Replica{}, []string{`"heartbeat_at"`, `"self": true`}},
		{[]string{"claim", "list"}, &[]apiv1.Claim{}, []string{`"token": 3`, `"holder": "host-a-1-aa"`}},
		{[]string{"github", "endpoint", "list"}, &[]apiv1.ForgeEndpoint{}, []string{`"upload_base_url"`}},
		{[]string{"github", "credentials", "list"}, &[]apiv1.ForgeCredentials{}, []string{`"auth-type": "pat"`}},
		{[]string{"gitea", "credentials", "list"}, &[]apiv1.ForgeCredentials{}, []string{`"name": "gcreds"`}},
		{[]string{"repo", "webhook", "show", repoID}, &apiv1.HookInfo{}, []string{`"events": [`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			srv := newFakeServer(t, commonReplies)
			e := newEnv(t).withProfile(t, srv)
			stdout, stderr, err := e.run(t, append(tt.args, "--format", "json")...)
			if err != nil {
				t.Fatalf("failed: %v\n%s", err, stderr)
			}
			if err := json.Unmarshal([]byte(stdout), tt.into); err != nil {
				t.Fatalf("output is not the JSON of %T: %v\n%s", tt.into, err, stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("JSON output lacks %s:\n%s", w, stdout)
				}
			}
		})
	}
}
