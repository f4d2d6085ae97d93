package bench

import (
	"context"
	"fmt"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// scaleSetsPerRepo is how many scale sets scaleset-burst puts on each repository.
const scaleSetsPerRepo = 4

// runScaleSetBurst queues 1,000 jobs (scaled) within --duration across 20 runner scale
// sets (scaled) of at most 50 runners each. Demand reaches garrison through the
// simulator's Actions service (sessions, long polls, statistics), not through webhooks;
// the webhooks the simulator still sends only time the jobs (webhook → CreateInstance is
// then queue → CreateInstance for a scale set's runner).
func runScaleSetBurst(ctx context.Context, e *env, r *Result) error {
	l := jobLoad{pools: e.o.scaled(20, 1), poolsPerRepo: scaleSetsPerRepo, max: 50, jobs: e.o.scaled(1000, 10),
		spread: e.o.Duration}
	repos, err := e.setupRepos(ctx, (l.pools+scaleSetsPerRepo-1)/scaleSetsPerRepo, false)
	if err != nil {
		return err
	}
	if err := e.createScaleSets(ctx, repos, l.pools, l.max); err != nil {
		return err
	}
	r.note("runner scale sets: demand from the Actions service; latencies timed from the job's queued webhook")
	return e.runLoad(ctx, r, l)
}

// createScaleSets creates n scale sets, scaleSetsPerRepo per repository, named like the
// bench's pool labels (p0000, ...) and labelled self-hosted, linux, so that the bench's
// jobs and runners treat them as pools. Their pool id (in provider calls) is
// <name>-<repository id>.
func (e *env) createScaleSets(ctx context.Context, repos []apiv1.Repository, n int, maxRunners uint) error {
	sets := make([]benchPool, n)
	err := forEachLimit(ctx, n, 4, func(ctx context.Context, i int) error {
		repo := repos[i/scaleSetsPerRepo]
		name := fmt.Sprintf("p%04d", i)
		_, err := e.API.CreateScaleSet(ctx, apiclient.Repositories, repo.ID, apiv1.CreateScaleSetParams{
			Name: name, ProviderName: testbed.ProviderName, MaxRunners: maxRunners, Image: "bench", Flavor: "bench",
			OSType: "linux", OSArch: "amd64", Labels: []string{"self-hosted", "linux"}, Enabled: true,
		})
		if err != nil {
			return fmt.Errorf("creating scale set %s: %w", name, err)
		}
		sets[i] = benchPool{id: name + "-" + repo.ID, repo: repo.Owner + "/" + repo.Name, label: name}
		return nil
	})
	e.pools = append(e.pools, sets...)
	return err
}
