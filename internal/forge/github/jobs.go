package github

import (
	"context"

	gh "github.com/google/go-github/v90/github"

	"github.com/garrison-ci/garrison"
)

// QueuedJobs lists the queued jobs of a repository for the missed-webhook sweep: runs in
// status queued and in_progress (all pages), then their jobs with status queued. GitHub
// has no organization- or enterprise-wide listing: for those it answers none.
func (c *Client) QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error) {
	if e.Type != garrison.Repository {
		return nil, nil
	}
	owner, repo := e.Owner, e.Name
	var out []garrison.Job
	seen := map[int64]bool{}
	for _, status := range []string{"queued", "in_progress"} {
		runs, err := c.runs(ctx, owner, repo, status)
		if err != nil {
			return nil, err
		}
		for _, runID := range runs {
			if seen[runID] {
				continue
			}
			seen[runID] = true
			jobs, err := c.queuedJobsOfRun(ctx, owner, repo, runID)
			if err != nil {
				return nil, err
			}
			out = append(out, jobs...)
		}
	}
	return out, nil
}

func (c *Client) runs(ctx context.Context, owner, repo, status string) ([]int64, error) {
	opts := &gh.ListWorkflowRunsOptions{Status: status, ListOptions: gh.ListOptions{PerPage: 100}}
	var ids []int64
	for {
		rs, resp, err := c.gh.Actions.ListRepositoryWorkflowRuns(ctx, owner, repo, opts)
		if err != nil {
			return nil, wrap("list workflow runs", err)
		}
		for _, r := range rs.WorkflowRuns {
			ids = append(ids, r.GetID())
		}
		if resp.NextPage == 0 {
			return ids, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *Client) queuedJobsOfRun(ctx context.Context, owner, repo string, runID int64) ([]garrison.Job, error) {
	opts := &gh.ListWorkflowJobsOptions{Filter: "latest", ListOptions: gh.ListOptions{PerPage: 100}}
	var out []garrison.Job
	for {
		js, resp, err := c.gh.Actions.ListWorkflowJobs(ctx, owner, repo, runID, opts)
		if err != nil {
			return nil, wrap("list workflow jobs", err)
		}
		for _, j := range js.Jobs {
			if j.GetStatus() == "queued" {
				out = append(out, toJob(owner, repo, j))
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func toJob(owner, repo string, j *gh.WorkflowJob) garrison.Job {
	return garrison.Job{
		ID: j.GetID(), RunID: j.GetRunID(), Action: garrison.JobQueued, Status: j.GetStatus(),
		Conclusion: j.GetConclusion(), Name: j.GetName(), StartedAt: j.GetStartedAt().Time,
		CompletedAt: j.GetCompletedAt().Time, RunnerID: j.GetRunnerID(), RunnerName: j.GetRunnerName(),
		RunnerGroupID: j.GetRunnerGroupID(), RunnerGroupName: j.GetRunnerGroupName(),
		RepositoryOwner: owner, RepositoryName: repo, WorkflowRunURL: garrison.RunPageURL(j.GetHTMLURL(), "", j.GetRunID()),
		Labels: j.Labels, CreatedAt: j.GetCreatedAt().Time,
	}
}
