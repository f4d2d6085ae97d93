package gitea

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
)

type runnerJSON struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Busy      bool   `json:"busy"`
	Disabled  bool   `json:"disabled"`
	Ephemeral bool   `json:"ephemeral"`
	Labels    []struct {
		Name string `json:"name"`
	} `json:"labels"`
}

func (r runnerJSON) runner() garrison.Runner {
	out := garrison.Runner{ID: r.ID, Name: r.Name, Status: r.Status, Busy: r.Busy, Ephemeral: r.Ephemeral}
	for _, l := range r.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	return out
}

// CreateJITConfig always fails: Gitea has no just-in-time runner configurations; its
// runners register with RegistrationToken. The error wraps garrison.ErrJITUnsupported.
func (c *Client) CreateJITConfig(_ context.Context, e garrison.Entity, _ garrison.JITRequest) (garrison.JITConfig, error) {
	return garrison.JITConfig{}, fmt.Errorf("gitea: JIT config for %s %q: %w", e.Type, e.FullName(), garrison.ErrJITUnsupported)
}

// RegistrationToken returns the scope's registration token (Gitea keeps one per scope).
func (c *Client) RegistrationToken(ctx context.Context, e garrison.Entity) (string, error) {
	p, err := scopePath(e)
	if err != nil {
		return "", err
	}
	var out struct {
		Token string `json:"token"`
	}
	_, err = c.do(ctx, http.MethodPost, p+"/actions/runners/registration-token", nil, &out)
	return out.Token, err
}

const pageSize = 50

// maxPages bounds every listing: a forge that keeps answering full pages (or a total it
// never reaches) gets an error, not an endless loop.
const maxPages = 1000

// errTooManyPages answers a listing longer than maxPages pages.
func errTooManyPages(what string) error {
	return fmt.Errorf("gitea: %s: more than %d pages: %w", what, maxPages, errMalformed)
}

// runnerPage is one page of a runner listing.
type runnerPage struct {
	Runners    []runnerJSON `json:"runners"`
	TotalCount int          `json:"total_count"`
}

// jobPage is one page of a job listing.
type jobPage struct {
	Jobs       []jobJSON `json:"jobs"`
	TotalCount int       `json:"total_count"`
}

// ListRunners returns every runner of the scope.
func (c *Client) ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error) {
	p, err := scopePath(e)
	if err != nil {
		return nil, err
	}
	var out []garrison.Runner
	for page := 1; page <= maxPages; page++ {
		var pg runnerPage
		if _, err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/actions/runners?page=%d&limit=%d", p, page, pageSize), nil, &pg); err != nil {
			return nil, err
		}
		for _, r := range pg.Runners {
			out = append(out, r.runner())
		}
		if len(pg.Runners) < pageSize || len(out) >= pg.TotalCount {
			return out, nil
		}
	}
	return nil, errTooManyPages("list runners")
}

// GetRunner returns one runner (ENotFound when gone).
func (c *Client) GetRunner(ctx context.Context, e garrison.Entity, id int64) (garrison.Runner, error) {
	p, err := scopePath(e)
	if err != nil {
		return garrison.Runner{}, err
	}
	var r runnerJSON
	_, err = c.do(ctx, http.MethodGet, p+"/actions/runners/"+strconv.FormatInt(id, 10), nil, &r)
	return r.runner(), err
}

// DeleteRunner removes a runner (ENotFound when gone).
func (c *Client) DeleteRunner(ctx context.Context, e garrison.Entity, id int64) error {
	p, err := scopePath(e)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodDelete, p+"/actions/runners/"+strconv.FormatInt(id, 10), nil, nil)
	return err
}

type hookJSON struct {
	ID     int64             `json:"id"`
	Active bool              `json:"active"`
	Events []string          `json:"events"`
	Config map[string]string `json:"config"`
}

func (h hookJSON) hook() garrison.Hook {
	return garrison.Hook{ID: h.ID, URL: h.Config["url"], Events: h.Events, Active: h.Active}
}

// InstallHook installs a workflow_job webhook signed with secret. An existing hook with
// the same URL gives EConflict.
func (c *Client) InstallHook(ctx context.Context, e garrison.Entity, url, secret string) (garrison.Hook, error) {
	p, err := scopePath(e)
	if err != nil {
		return garrison.Hook{}, err
	}
	if _, err := c.FindHook(ctx, e, url); err == nil {
		return garrison.Hook{}, garrison.Errorf(garrison.EConflict, "gitea: a hook for %s is already installed on %s", url, scopeName(e))
	} else if garrison.CodeOf(err) != garrison.ENotFound {
		return garrison.Hook{}, err
	}
	cfg := map[string]string{"url": url, "content_type": "json", "http_method": "post", "secret": secret}
	if p == "/admin" {
		cfg["is_system_webhook"] = "true" // a system hook: deliveries for every repository
	}
	in := map[string]any{"type": "gitea", "active": true, "events": []string{"workflow_job"}, "branch_filter": "*", "config": cfg}
	var h hookJSON
	_, err = c.do(ctx, http.MethodPost, p+"/hooks", in, &h)
	return h.hook(), err
}

// ListHooks returns every hook of the scope.
func (c *Client) ListHooks(ctx context.Context, e garrison.Entity) ([]garrison.Hook, error) {
	p, err := scopePath(e)
	if err != nil {
		return nil, err
	}
	var out []garrison.Hook
	for page := 1; page <= maxPages; page++ {
		var hs []hookJSON
		if _, err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/hooks?page=%d&limit=%d", p, page, pageSize), nil, &hs); err != nil {
			return nil, err
		}
		for _, h := range hs {
			out = append(out, h.hook())
		}
		if len(hs) < pageSize {
			return out, nil
		}
	}
	return nil, errTooManyPages("list hooks")
}

// FindHook returns the hook whose URL is url (garrison.SameHookURL), or ENotFound.
func (c *Client) FindHook(ctx context.Context, e garrison.Entity, url string) (garrison.Hook, error) {
	hooks, err := c.ListHooks(ctx, e)
	if err != nil {
		return garrison.Hook{}, err
	}
	for _, h := range hooks {
		if garrison.SameHookURL(h.URL, url) {
			return h, nil
		}
	}
	return garrison.Hook{}, garrison.Errorf(garrison.ENotFound, "gitea: no hook for %s on %s", url, scopeName(e))
}

// RemoveHook deletes the hook whose URL is url (ENotFound when there is none).
func (c *Client) RemoveHook(ctx context.Context, e garrison.Entity, url string) error {
	h, err := c.FindHook(ctx, e, url)
	if err != nil {
		return err
	}
	return c.DeleteHook(ctx, e, h.ID)
}

// DeleteHook removes a hook by its id.
func (c *Client) DeleteHook(ctx context.Context, e garrison.Entity, id int64) error {
	p, err := scopePath(e)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodDelete, p+"/hooks/"+strconv.FormatInt(id, 10), nil, nil)
	return err
}

// TestHook asks Gitea to deliver a test event to a repository hook (POST
// /repos/{o}/{r}/hooks/{id}/tests: a synthetic push), Gitea's counterpart of GitHub's
// ping. Gitea offers it for repository hooks only: other scopes answer ErrInvalid.
func (c *Client) TestHook(ctx context.Context, e garrison.Entity, id int64) error {
	if e.Type != garrison.Repository {
		return garrison.Errorf(garrison.EInvalid, "gitea: only repository hooks can be tested")
	}
	p, err := scopePath(e)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodPost, p+"/hooks/"+strconv.FormatInt(id, 10)+"/tests", nil, nil)
	return err
}

// RateLimit reports no budget: Gitea sends no rate-limit headers.
func (c *Client) RateLimit() (garrison.RateLimit, bool) { return garrison.RateLimit{}, false }

type jobJSON struct {
	ID         int64    `json:"id"`
	RunID      int64    `json:"run_id"`
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Conclusion string   `json:"conclusion"`
	Labels     []string `json:"labels"`
	RunnerID   int64    `json:"runner_id"`
	RunnerName string   `json:"runner_name"`
	HTMLURL    string   `json:"html_url"`
	CreatedAt  string   `json:"created_at"`
}

// QueuedJobs lists the jobs of the scope waiting for a runner (status queued).
func (c *Client) QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error) {
	p, err := scopePath(e)
	if err != nil {
		return nil, err
	}
	var out []garrison.Job
	for page := 1; page <= maxPages; page++ {
		var pg jobPage
		if _, err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/actions/jobs?status=queued&page=%d&limit=%d", p, page, pageSize), nil, &pg); err != nil {
			return nil, err
		}
		for _, j := range pg.Jobs {
			out = append(out, j.job())
		}
		if len(pg.Jobs) < pageSize || len(out) >= pg.TotalCount {
			return out, nil
		}
	}
	return nil, errTooManyPages("list jobs")
}

// job is the queued job in the domain's shape; an unreadable creation time is zero.
func (j jobJSON) job() garrison.Job {
	created, _ := time.Parse(time.RFC3339, j.CreatedAt)
	return garrison.Job{
		ID: j.ID, RunID: j.RunID, Action: garrison.JobQueued, Status: j.Status, Conclusion: j.Conclusion,
		Name: j.Name, Labels: j.Labels, RunnerID: j.RunnerID, RunnerName: j.RunnerName,
		WorkflowRunURL: garrison.RunPageURL(j.HTMLURL, "", j.RunID), CreatedAt: created,
	}
}
