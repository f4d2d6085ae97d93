package httpapi

import (
	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// nilUUID is what GARM emits for an unset UUID-typed field such as a job's locked_by.
const nilUUID = "00000000-0000-0000-0000-000000000000"

func userView(u garrison.User) apiv1.User {
	return apiv1.User{ID: u.ID, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt, Email: u.Email,
		Username: u.Username, FullName: u.FullName, Enabled: u.Enabled, IsAdmin: u.IsAdmin}
}

// controllerView is the ControllerInfo of c; GET and PUT both include hostname.
// The garm-agent keys carry their neutral values whatever is stored, as garrison has no
// garm-agent (rest-api-2 AM-6).
func (s *Server) controllerView(c garrison.Controller) apiv1.ControllerInfo {
	return apiv1.ControllerInfo{
		ControllerID:           c.ID,
		Hostname:               s.opts.Hostname,
		MetadataURL:            c.MetadataURL,
		CallbackURL:            c.CallbackURL,
		WebhookURL:             c.WebhookURL,
		ControllerWebhookURL:   c.WebhookURLForController(), // "" when webhook_url is unset
		AgentURL:               c.EffectiveAgentURL(),
		GARMAgentReleasesURL:   garrison.DefaultAgentReleasesURL,
		EnableAgentToolsSync:   false,
		GARMAgentVersion:       "",
		AllowInsecureGARMAgent: false,
		MinimumJobAgeBackoff:   c.MinimumJobAgeBackoff,
		Version:                s.opts.Version,
		CACertBundle:           c.CACertBundle,
	}
}

func endpointView(e garrison.Endpoint) apiv1.ForgeEndpoint {
	v := apiv1.ForgeEndpoint{
		Name: e.Name, Description: e.Description, APIBaseURL: e.APIBaseURL, BaseURL: e.BaseURL,
		CACertBundle: e.CACertBundle, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		EndpointType: string(e.Type),
	}
	switch e.Type {
	case garrison.GitHub:
		v.UploadBaseURL = e.UploadBaseURL
	case garrison.Gitea:
		v.ToolsMetadataURL = e.ToolsMetadataURL
		if v.ToolsMetadataURL == "" {
			v.ToolsMetadataURL = garrison.DefaultGiteaToolsURL
		}
		v.UseInternalToolsMetadata = e.UseInternalToolsMetadata
	}
	return v
}

// credentialsView is c without its secrets; rl is its rate limit when known.
func credentialsView(c garrison.Credentials, ep garrison.Endpoint, rl *garrison.RateLimit) apiv1.ForgeCredentials {
	v := apiv1.ForgeCredentials{
		ID: c.ID, Name: c.Name, Description: c.Description,
		APIBaseURL: ep.APIBaseURL, UploadBaseURL: ep.UploadBaseURL, BaseURL: ep.BaseURL,
		CABundle: ep.CACertBundle, AuthType: string(c.AuthType), ForgeType: string(c.ForgeType),
		Endpoint: endpointView(ep), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
	if rl != nil {
		v.RateLimit = &apiv1.RateLimit{Limit: rl.Limit, Used: rl.Used, Remaining: rl.Remaining, Reset: rl.Reset}
	}
	return v
}

func eventViews(evs []garrison.Event) []apiv1.EntityEvent {
	out := make([]apiv1.EntityEvent, len(evs))
	for i, e := range evs {
		out[i] = apiv1.EntityEvent{ID: e.ID, CreatedAt: e.CreatedAt, EventType: string(e.Type),
			EventLevel: string(e.Level), Message: e.Message}
	}
	return out
}

// poolView is the API shape of p, owned by e (whose endpoint is ep). extra_specs and
// instances are left to the caller (GET by id only).
func poolView(p garrison.Pool, e garrison.Entity, ep garrison.Endpoint) apiv1.Pool {
	v := apiv1.Pool{
		ID: p.ID, RunnerPrefix: p.RunnerPrefix, ProviderName: p.ProviderName,
		MaxRunners: p.MaxRunners, MinIdleRunners: p.MinIdleRunners, Image: p.Image, Flavor: p.Flavor,
		OSType: p.OSType, OSArch: p.OSArch, Tags: make([]apiv1.Tag, len(p.Tags)), Enabled: p.Enabled,
		Generation: p.Generation, Endpoint: endpointView(ep), // enable_shell: always false (AM-6)
		RunnerBootstrapTimeout: p.RunnerBootstrapTimeout, GitHubRunnerGroup: p.RunnerGroup,
		Priority: p.Priority, TemplateID: p.TemplateID, ProxyID: p.ProxyID,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	if v.RunnerPrefix == "" {
		v.RunnerPrefix = garrison.DefaultRunnerPrefix
	}
	for i, t := range p.Tags {
		v.Tags[i] = apiv1.Tag{ID: t.ID, Name: t.Name}
	}
	switch p.EntityType {
	case garrison.Repository:
		v.RepoID, v.RepoName = p.EntityID, e.FullName()
	case garrison.Organization:
		v.OrgID, v.OrgName = p.EntityID, e.Name
	case garrison.Enterprise:
		v.EnterpriseID, v.EnterpriseName = p.EntityID, e.Name
	case garrison.ForgeInstance:
		v.ForgeInstanceID = p.EntityID
	}
	return v
}

// instanceView is the API shape of i; job is the bound job. Without garm-agent there is no
// shell and no heartbeat: capabilities.has_shell is false and heartbeat the zero time (AM-6).
func instanceView(i garrison.Instance, job *garrison.Job) apiv1.Instance {
	v := apiv1.Instance{
		ID: i.ID, ProviderID: i.ProviderID, ProviderName: i.ProviderName, AgentID: i.AgentID,
		Name: i.Name, OSType: i.OSType, OSName: i.OSName, OSVersion: i.OSVersion, OSArch: i.OSArch,
		Status: string(i.Status), RunnerStatus: string(i.RunnerStatus), PoolID: i.PoolID, ScaleSetID: i.ScaleSetID,
		ProviderFault: i.ProviderFault, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt,
		GitHubRunnerGroup: i.RunnerGroup, Generation: i.Generation,
	}
	for _, a := range i.Addresses {
		v.Addresses = append(v.Addresses, apiv1.Address{Address: a.Address, Type: a.Type})
	}
	msgs := i.StatusMessages
	if len(msgs) > garrison.MaxStatusMessages {
		msgs = msgs[len(msgs)-garrison.MaxStatusMessages:]
	}
	for _, m := range msgs {
		v.StatusMessages = append(v.StatusMessages, apiv1.StatusMessage{CreatedAt: m.CreatedAt,
			Message: m.Message, EventType: string(m.Type), EventLevel: string(m.Level)})
	}
	if job != nil {
		jv := jobView(*job)
		v.Job = &jv
	}
	return v
}

func jobView(j garrison.Job) apiv1.Job {
	v := apiv1.Job{
		ID: j.Seq, WorkflowJobID: j.ID, RunID: j.RunID, Action: string(j.Action), Status: j.Status,
		Conclusion: j.Conclusion, Name: j.Name, StartedAt: j.StartedAt, CompletedAt: j.CompletedAt,
		RunnerID: j.RunnerID, RunnerName: j.RunnerName, RunnerGroupID: j.RunnerGroupID,
		RunnerGroupName: j.RunnerGroupName, RepositoryName: j.RepositoryName,
		RepositoryOwner: j.RepositoryOwner, WorkflowRunURL: j.WorkflowRunURL, Labels: j.Labels,
		LockedBy: j.LockedBy, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, Reason: j.Reason,
	}
	if v.LockedBy == "" {
		v.LockedBy = nilUUID
	}
	if j.EntityID != "" {
		id := j.EntityID
		switch j.EntityType {
		case garrison.Repository:
			v.RepoID = &id
		case garrison.Organization:
			v.OrgID = &id
		case garrison.Enterprise:
			v.EnterpriseID = &id
		case garrison.ForgeInstance:
			v.ForgeInstanceID = &id
		}
	}
	return v
}

// scaleSetView is the list form of a scale set of entity e on endpoint ep. Unlike GARM,
// the per-entity list fills the endpoint too and status_messages is [] (R2-6).
func scaleSetView(ss garrison.ScaleSet, e garrison.Entity, ep garrison.Endpoint) apiv1.ScaleSet {
	v := apiv1.ScaleSet{
		ID: ss.ID, ScaleSetID: ss.ScaleSetID, Name: ss.Name, DisableUpdate: ss.DisableUpdate,
		State: string(ss.State), ExtendedState: ss.ExtendedState, RunnerPrefix: ss.RunnerPrefix,
		ProviderName: ss.ProviderName, Image: ss.Image, Flavor: ss.Flavor, OSType: ss.OSType, OSArch: ss.OSArch,
		MaxRunners: ss.MaxRunners, MinIdleRunners: ss.MinIdleRunners, Enabled: ss.Enabled,
		DesiredRunnerCount: ss.DesiredRunnerCount, EnableShell: ss.EnableShell, Generation: ss.Generation,
		Endpoint: endpointView(ep), RunnerBootstrapTimeout: ss.RunnerBootstrapTimeout,
		GitHubRunnerGroup: ss.RunnerGroup, Tags: make([]apiv1.Tag, len(ss.Tags)),
		StatusMessages: []apiv1.StatusMessage{}, TemplateID: ss.TemplateID, ProxyID: ss.ProxyID,
		CreatedAt: ss.CreatedAt, UpdatedAt: ss.UpdatedAt,
	}
	if v.RunnerPrefix == "" {
		v.RunnerPrefix = garrison.DefaultRunnerPrefix
	}
	for i, t := range ss.Tags {
		v.Tags[i] = apiv1.Tag{ID: t.ID, Name: t.Name}
	}
	switch e.Type {
	case garrison.Repository:
		v.RepoID, v.RepoName = e.ID, e.FullName()
	case garrison.Organization:
		v.OrgID, v.OrgName = e.ID, e.Name
	case garrison.Enterprise:
		v.EnterpriseID, v.EnterpriseName = e.ID, e.Name
	}
	return v
}
