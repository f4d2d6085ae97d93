package garmimport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// checkTarget finds out whether garrison's database holds data (spec IMP-5): users,
// credentials, entities, pools, instances, jobs or endpoints besides the seeded
// github.com. The controller row garrison made at its first start does not count. It
// returns the credential ids in use, which the import must not reuse.
func checkTarget(ctx context.Context, st store.Store, o Options, rep *Report) (map[uint]bool, error) {
	if st == nil {
		if !o.DryRun {
			return nil, fmt.Errorf("%w: no garrison database to import into", ErrConfig)
		}
		rep.Target.Location += " (does not exist yet)"
		return nil, nil
	}
	counts, taken, err := targetCounts(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("import-garm: reading garrison's database: %w", err)
	}
	var held []string
	for _, k := range []string{"users", "endpoints", "credentials", "entities", "pools", "instances", "jobs"} {
		if counts[k] > 0 {
			held = append(held, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	if len(held) == 0 {
		return taken, nil
	}
	rep.Target.Empty, rep.Target.Holds = false, strings.Join(held, ", ")
	if !o.Force {
		return nil, fmt.Errorf("%w (%s); use --force to merge into it", ErrNotEmpty, rep.Target.Holds)
	}
	return taken, nil
}

// targetCounts counts what the target holds, and the credential ids it uses.
func targetCounts(ctx context.Context, st store.Store) (map[string]int, map[uint]bool, error) {
	counts := map[string]int{}
	if has, err := st.HasAdmin(ctx); err != nil {
		return nil, nil, err
	} else if has {
		counts["users"] = 1
	}
	eps, err := st.ListEndpoints(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range eps {
		if e.Name != garrison.GitHubComEndpoint {
			counts["endpoints"]++
		}
	}
	creds, err := st.ListCredentials(ctx, store.CredentialsFilter{})
	if err != nil {
		return nil, nil, err
	}
	taken := map[uint]bool{}
	for _, c := range creds {
		taken[c.ID] = true
	}
	counts["credentials"] = len(creds)
	ents, err := st.ListEntities(ctx, store.EntityFilter{})
	pools, err2 := st.ListPools(ctx, store.PoolFilter{})
	insts, err3 := st.ListInstances(ctx, store.InstanceFilter{})
	jobs, err4 := st.ListJobs(ctx, store.JobFilter{})
	if err := errors.Join(err, err2, err3, err4); err != nil {
		return nil, nil, err
	}
	counts["entities"], counts["pools"], counts["instances"], counts["jobs"] = len(ents), len(pools), len(insts), len(jobs)
	return counts, taken, nil
}

// checkCollisions lists, for an import into a database with data, what the store would
// refuse: ids and names that outside parties hold and that are taken (spec ID-1).
func checkCollisions(ctx context.Context, st store.Store, snap store.Snapshot, rep *Report) {
	taken := func(err error) bool { return err == nil }
	if has, _ := st.HasAdmin(ctx); has && len(snap.Users) > 0 {
		rep.blockf("garrison has an admin user already; GARM's users cannot be merged into it")
	}
	for _, e := range snap.Entities {
		if _, err := st.Entity(ctx, e.ID); taken(err) {
			rep.blockf("%s %s: id %s is taken in garrison", e.Type, e.FullName(), e.ID)
		}
	}
	for _, p := range snap.Pools {
		if _, err := st.Pool(ctx, p.ID); taken(err) {
			rep.blockf("pool %s: id is taken in garrison", p.ID)
		}
	}
	for _, i := range snap.Instances {
		if _, err := st.Instance(ctx, i.Name); taken(err) {
			rep.blockf("runner %s: name is taken in garrison", i.Name)
		}
	}
	for _, j := range snap.Jobs {
		if _, err := st.Job(ctx, j.ID); taken(err) {
			rep.blockf("job %d: garrison records it already", j.ID)
		}
	}
}

// verify reads back what the import wrote, opening every re-sealed secret with
// garrison's key (spec IMP-6), and lists the differences.
func verify(ctx context.Context, st store.Store, snap store.Snapshot) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if c, err := st.Controller(ctx); err != nil || c.ID != snap.Controller.ID {
		add("controller id %q, want %s (%v)", c.ID, snap.Controller.ID, err)
	}
	for _, want := range snap.Credentials {
		got, err := st.Credentials(ctx, want.ID)
		if err != nil || got.PAT != want.PAT || !bytes.Equal(got.PrivateKey, want.PrivateKey) || got.AppID != want.AppID {
			add("credentials %d (%s) do not read back (%v)", want.ID, want.Name, err)
		}
	}
	for _, want := range snap.Entities {
		got, err := st.Entity(ctx, want.ID)
		if err != nil || got.WebhookSecret != want.WebhookSecret {
			add("%s %s: webhook secret does not read back (%v)", want.Type, want.FullName(), err)
		}
	}
	for _, want := range snap.Instances {
		got, err := st.InstanceByID(ctx, want.ID)
		if err != nil || got.Name != want.Name || !maps.Equal(got.JITConfig, want.JITConfig) {
			add("runner %s does not read back (%v)", want.Name, err)
		}
	}
	for _, want := range snap.Pools {
		if _, err := st.Pool(ctx, want.ID); err != nil {
			add("pool %s does not read back (%v)", want.ID, err)
		}
	}
	for _, want := range snap.Jobs {
		if _, err := st.Job(ctx, want.ID); err != nil {
			add("job %d does not read back (%v)", want.ID, err)
		}
	}
	return diffs
}
