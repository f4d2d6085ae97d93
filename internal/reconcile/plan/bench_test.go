package plan

import (
	"fmt"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
)

// benchFleet returns pools spread over entities, ten instances per pool in mixed states,
// and a queued job per pool.
func benchFleet(pools, entities int) ([]garrison.Pool, map[string][]garrison.Instance, map[string][]garrison.Job) {
	var all []garrison.Pool
	insts := map[string][]garrison.Instance{}
	jobs := map[string][]garrison.Job{}
	states := []garrison.RunnerStatus{garrison.RunnerIdle, garrison.RunnerActive, garrison.RunnerInstalling}
	for i := range pools {
		ent := fmt.Sprintf("ent-%d", i%entities)
		p := testPool(fmt.Sprintf("pool-%04d", i), 2, 20)
		p.EntityID, p.Priority = ent, uint(i%3)
		all = append(all, p)
		for k := range 10 {
			in := inst(p.ID, fmt.Sprintf("garm-%04d-%02d", i, k), garrison.InstanceRunning, states[k%3], time.Duration(k)*time.Minute)
			insts[ent] = append(insts[ent], in)
		}
		j := queued(int64(i+1), time.Duration(i%60)*time.Second)
		j.EntityID = ent
		jobs[ent] = append(jobs[ent], j)
	}
	return all, insts, jobs
}

func BenchmarkPlan(b *testing.B) {
	for _, entities := range []int{1, 100} {
		b.Run(fmt.Sprintf("1000pools-10000instances-%dentities", entities), func(b *testing.B) {
			pools, insts, jobs := benchFleet(1000, entities)
			byEntity := map[string][]garrison.Pool{}
			for _, p := range pools {
				byEntity[p.EntityID] = append(byEntity[p.EntityID], p)
			}
			for b.Loop() {
				for _, p := range pools {
					Plan(Spec{Pool: p, Pools: byEntity[p.EntityID], MinimumJobAge: 30 * time.Second},
						Observed{Now: t0, Instances: insts[p.EntityID], Jobs: jobs[p.EntityID]})
				}
			}
		})
	}
}
