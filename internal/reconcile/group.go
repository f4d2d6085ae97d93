package reconcile

import "log/slog"

// runnerGroup is the runner group the pool's runners join. Repositories have no runner
// groups, so a repository pool's setting is ignored, as GARM does, and the runners join
// the default group; this is logged once per pool and setting.
func (r *Reconciler) runnerGroup(env *poolEnv) string {
	g := env.pool.RunnerGroup
	if eff := env.pool.RunnerGroupFor(env.entity.Type); eff == g {
		return g
	}
	r.mu.Lock()
	logged := r.groupIgnored[env.pool.ID] == g
	r.groupIgnored[env.pool.ID] = g
	r.mu.Unlock()
	if !logged {
		r.log.Warn("reconcile: ignoring the pool's runner group: repositories have no runner groups, so its runners join the default group",
			env.attrs(slog.String("runner_group", g))...)
	}
	return ""
}
