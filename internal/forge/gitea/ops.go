package gitea

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
)

// Runner is a registered Gitea runner.
type Runner struct {
	ID        int64
	Name      string
	Status    string // online or offline
	Busy      bool
	Disabled  bool
	Ephemeral bool
	Labels    []string
}

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

func (r runnerJSON) runner() Runner {
	out := Runner{ID: r.ID, Name: r.Name, Status: r.Status, Busy: r.Busy, Disabled: r.Disabled, Ephemeral: r.Ephemeral}
	for _, l := range r.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	return out
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

// ListRunners returns every runner of the scope.
func (c *Client) ListRunners(ctx context.Context, e garrison.Entity) ([]Runner, error) {
	p, err := scopePath(e)
	if err != nil {
		return nil, err
	}
	var out []Runner
	for page := 1; ; page++ {
		var pg struct {
			Runners    []runnerJSON `json:"runners"`
			TotalCount int          `json:"total_count"`
		}
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
}

// GetRunner returns one runner (ENotFound when gone).
func (c *Client) GetRunner(ctx context.Context, e garrison.Entity, id int64) (Runner, error) {
	p, err := scopePath(e)
	if err != nil {
		return Runner{}, err
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

// Hook is an installed Gitea webhook.
type Hook struct {
	ID     int64
	URL    string
	Events []string
	Active bool
}

type hookJSON struct {
	ID     int64             `json:"id"`
	Active bool              `json:"active"`
	Events []string          `json:"events"`
	Config map[string]string `json:"config"`
}

func (h hookJSON) hook() Hook {
	return Hook{ID: h.ID, URL: h.Config["url"], Events: h.Events, Active: h.Active}
}

// CreateHook installs a workflow_job webhook signed with secret.
func (c *Client) CreateHook(ctx context.Context, e garrison.Entity, url, secret string) (Hook, error) {
	p, err := scopePath(e)
	if err != nil {
		return Hook{}, err
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
func (c *Client) ListHooks(ctx context.Context, e garrison.Entity) ([]Hook, error) {
	p, err := scopePath(e)
	if err != nil {
		return nil, err
	}
	var out []Hook
	for page := 1; ; page++ {
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
}

// DeleteHook removes a hook.
func (c *Client) DeleteHook(ctx context.Context, e garrison.Entity, id int64) error {
	p, err := scopePath(e)
	if err != nil {
		return err
	}
	_, err = c.do(ctx, http.MethodDelete, p+"/hooks/"+strconv.FormatInt(id, 10), nil, nil)
	return err
}

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
	for page := 1; ; page++ {
		var pg struct {
			Jobs       []jobJSON `json:"jobs"`
			TotalCount int       `json:"total_count"`
		}
		if _, err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/actions/jobs?status=queued&page=%d&limit=%d", p, page, pageSize), nil, &pg); err != nil {
			return nil, err
		}
		for _, j := range pg.Jobs {
			created, _ := time.Parse(time.RFC3339, j.CreatedAt)
			out = append(out, garrison.Job{
				ID: j.ID, RunID: j.RunID, Action: garrison.JobQueued, Status: j.Status, Conclusion: j.Conclusion,
				Name: j.Name, Labels: j.Labels, RunnerID: j.RunnerID, RunnerName: j.RunnerName,
				WorkflowRunURL: garrison.RunPageURL(j.HTMLURL, "", j.RunID), CreatedAt: created,
			})
		}
		if len(pg.Jobs) < pageSize || len(out) >= pg.TotalCount {
			return out, nil
		}
	}
}
