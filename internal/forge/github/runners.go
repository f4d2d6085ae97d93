package github

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
)

// CreateJITConfig creates a JIT runner. The group id is resolved from the group name by
// listing the entity's runner groups (repositories only have group 1, "Default"). The
// files are the decoded encoded_jit_config map {".runner": b64, ".credentials": b64,
// ".credentials_rsaparams": b64}.
func (c *Client) CreateJITConfig(ctx context.Context, e garrison.Entity, req garrison.JITRequest) (garrison.JITConfig, error) {
	gid, err := c.RunnerGroupID(ctx, e, req.RunnerGroup)
	if err != nil {
		return garrison.JITConfig{}, err
	}
	body := gh.CreateJITConfigRequest{Name: req.Name, RunnerGroupID: gid, Labels: req.Labels, WorkFolder: gh.Ptr(cmp(req.WorkFolder, "_work"))}
	var cfg *gh.JITRunnerConfig
	switch e.Type {
	case garrison.Repository:
		cfg, _, err = c.gh.Actions.CreateRepoJITConfig(ctx, e.Owner, e.Name, body)
	case garrison.Organization:
		cfg, _, err = c.gh.Actions.CreateOrgJITConfig(ctx, e.Name, body)
	case garrison.Enterprise:
		cfg, _, err = c.gh.Enterprise.CreateJITConfig(ctx, e.Name, body)
	default:
		return garrison.JITConfig{}, errUnsupported("JIT config", e)
	}
	if err != nil {
		return garrison.JITConfig{}, wrap("create JIT config", err)
	}
	files, err := decodeJIT(cfg.GetEncodedJITConfig())
	if err != nil {
		return garrison.JITConfig{}, err
	}
	return garrison.JITConfig{RunnerID: cfg.GetRunner().GetID(), Files: files}, nil
}

// decodeJIT base64-decodes encoded_jit_config into its file map.
func decodeJIT(encoded string) (map[string]string, error) {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("github: encoded_jit_config: %w: %w", garrison.ErrUnprocessable, err)
	}
	var files map[string]string
	if err := json.Unmarshal(raw, &files); err != nil {
		return nil, fmt.Errorf("github: encoded_jit_config: %w: %w", garrison.ErrUnprocessable, err)
	}
	return files, nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// RunnerGroupID resolves a runner group name ("" = "Default") to its id.
func (c *Client) RunnerGroupID(ctx context.Context, e garrison.Entity, name string) (int64, error) {
	if e.Type == garrison.Repository {
		if name != "" && !strings.EqualFold(name, "Default") {
			return 0, garrison.Errorf(garrison.EInvalid, "github: repositories have no runner group %q", name)
		}
		return 1, nil
	}
	name = cmp(name, "Default")
	opts := gh.ListOptions{PerPage: 100}
	for {
		ids, resp, err := c.listGroups(ctx, e, opts)
		if err != nil {
			return 0, wrap("list runner groups", err)
		}
		if id, ok := ids[strings.ToLower(name)]; ok {
			return id, nil
		}
		if resp.NextPage == 0 {
			return 0, garrison.Errorf(garrison.ENotFound, "github: runner group %q not found in %s", name, e.FullName())
		}
		opts.Page = resp.NextPage
	}
}

func (c *Client) listGroups(ctx context.Context, e garrison.Entity, lo gh.ListOptions) (map[string]int64, *gh.Response, error) {
	ids := map[string]int64{}
	switch e.Type {
	case garrison.Organization:
		gs, resp, err := c.gh.Actions.ListOrganizationRunnerGroups(ctx, e.Name, &gh.ListOrgRunnerGroupOptions{ListOptions: lo})
		if err != nil {
			return nil, nil, err
		}
		for _, g := range gs.RunnerGroups {
			ids[strings.ToLower(g.GetName())] = g.GetID()
		}
		return ids, resp, nil
	case garrison.Enterprise:
		gs, resp, err := c.gh.Enterprise.ListRunnerGroups(ctx, e.Name, &gh.ListEnterpriseRunnerGroupOptions{ListOptions: lo})
		if err != nil {
			return nil, nil, err
		}
		for _, g := range gs.RunnerGroups {
			ids[strings.ToLower(g.GetName())] = g.GetID()
		}
		return ids, resp, nil
	}
	return nil, nil, errUnsupported("runner groups", e)
}

// RegistrationToken returns a new runner registration token (GitHub's expire after an
// hour).
func (c *Client) RegistrationToken(ctx context.Context, e garrison.Entity) (string, error) {
	var tok *gh.RegistrationToken
	var err error
	switch e.Type {
	case garrison.Repository:
		tok, _, err = c.gh.Actions.CreateRegistrationToken(ctx, e.Owner, e.Name)
	case garrison.Organization:
		tok, _, err = c.gh.Actions.CreateOrganizationRegistrationToken(ctx, e.Name)
	case garrison.Enterprise:
		tok, _, err = c.gh.Enterprise.CreateRegistrationToken(ctx, e.Name)
	default:
		return "", errUnsupported("registration token", e)
	}
	if err != nil {
		return "", wrap("create registration token", err)
	}
	return tok.GetToken(), nil
}

// ListRunners returns all runners of the entity (every page).
func (c *Client) ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error) {
	opts := &gh.ListRunnersOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	var out []garrison.Runner
	for {
		rs, resp, err := c.listRunnersPage(ctx, e, opts)
		if err != nil {
			return nil, err
		}
		for _, r := range rs.Runners {
			out = append(out, toRunner(r))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *Client) listRunnersPage(ctx context.Context, e garrison.Entity, opts *gh.ListRunnersOptions) (*gh.Runners, *gh.Response, error) {
	var rs *gh.Runners
	var resp *gh.Response
	var err error
	switch e.Type {
	case garrison.Repository:
		rs, resp, err = c.gh.Actions.ListRunners(ctx, e.Owner, e.Name, opts)
	case garrison.Organization:
		rs, resp, err = c.gh.Actions.ListOrganizationRunners(ctx, e.Name, opts)
	case garrison.Enterprise:
		rs, resp, err = c.gh.Enterprise.ListRunners(ctx, e.Name, opts)
	default:
		return nil, nil, errUnsupported("list runners", e)
	}
	return rs, resp, wrap("list runners", err)
}

func toRunner(r *gh.Runner) garrison.Runner {
	out := garrison.Runner{
		ID: r.GetID(), Name: r.GetName(), Status: r.GetStatus(), Busy: r.GetBusy(), Ephemeral: r.GetEphemeral(),
	}
	for _, l := range r.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

// DeleteRunner removes a runner. A busy runner gives EUnprocessable, a gone one ENotFound.
func (c *Client) DeleteRunner(ctx context.Context, e garrison.Entity, id int64) error {
	var err error
	switch e.Type {
	case garrison.Repository:
		_, err = c.gh.Actions.RemoveRunner(ctx, e.Owner, e.Name, id)
	case garrison.Organization:
		_, err = c.gh.Actions.RemoveOrganizationRunner(ctx, e.Name, id)
	case garrison.Enterprise:
		_, err = c.gh.Enterprise.RemoveRunner(ctx, e.Name, id)
	default:
		return errUnsupported("delete runner", e)
	}
	return wrap("delete runner", err)
}
