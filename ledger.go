package garrison

import "fmt"

// Job ledger rules shared by everything that records jobs (the webhook receiver and the
// missed-webhook sweep): a job's action only moves forward, and a new queued job is worth
// recording only when a pool can serve it.

// Advance merges u, a newer report of the same job, into j. The action only moves forward
// (queued < in_progress < completed): a report ranking below j's current action is refused
// with an EInvalid error and j is left unchanged; an equal rank refreshes the fields. Empty
// and zero fields of u never erase what j knows (runner names, timestamps, conclusion).
// Entity fields and LockedBy are left to the caller.
func (j *Job) Advance(u Job) error {
	if u.Action.Rank() < j.Action.Rank() {
		return Errorf(EInvalid, "job %d cannot go back from %s to %s", j.ID, j.Action, u.Action)
	}
	if u.Action.Rank() > 0 {
		j.Action = u.Action
	}
	setString(&j.Status, u.Status)
	setString(&j.Conclusion, u.Conclusion)
	setString(&j.Name, u.Name)
	setString(&j.RunnerName, u.RunnerName)
	setString(&j.RunnerGroupName, u.RunnerGroupName)
	setString(&j.RepositoryName, u.RepositoryName)
	setString(&j.RepositoryOwner, u.RepositoryOwner)
	setString(&j.WorkflowRunURL, u.WorkflowRunURL)
	setInt(&j.RunID, u.RunID)
	setInt(&j.RunnerID, u.RunnerID)
	setInt(&j.RunnerGroupID, u.RunnerGroupID)
	if !u.StartedAt.IsZero() {
		j.StartedAt = u.StartedAt
	}
	if !u.CompletedAt.IsZero() {
		j.CompletedAt = u.CompletedAt
	}
	if len(u.Labels) > 0 {
		j.Labels = append([]string(nil), u.Labels...)
	}
	return nil
}

func setString(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func setInt(dst *int64, v int64) {
	if v != 0 {
		*dst = v
	}
}

// MatchingPools returns the enabled pools that can run a job with these labels: every
// label is among the pool's tags, case-insensitively (Pool.HasLabels). No labels match
// nothing: a job without labels is not garrison's to serve.
func MatchingPools(pools []Pool, labels []string) []Pool {
	if len(labels) == 0 {
		return nil
	}
	var out []Pool
	for _, p := range pools {
		if p.Enabled && p.HasLabels(labels) {
			out = append(out, p)
		}
	}
	return out
}

// UnservedReason says why no pool can serve a job with these labels, in the words the
// job ledger records and the planner uses: "" when an enabled pool of pools (one entity's)
// has all of them.
func UnservedReason(pools []Pool, labels []string) string {
	matched := false
	for _, p := range pools {
		if p.HasLabels(labels) {
			if p.Enabled {
				return ""
			}
			matched = true
		}
	}
	if matched {
		return ReasonPoolsDisabled(labels)
	}
	return ReasonNoPool(labels)
}

// ReasonNoPool is the reason of a job whose labels no pool has.
func ReasonNoPool(labels []string) string {
	return fmt.Sprintf("no pool has all of the labels %v", labels)
}

// ReasonPoolsDisabled is the reason of a job whose every matching pool is disabled.
func ReasonPoolsDisabled(labels []string) string {
	return fmt.Sprintf("every pool matching labels %v is disabled", labels)
}

// ReasonScaleSet is the reason of a job that a runner scale set of its entity serves:
// no pool is asked for it, the scale set's listener gets it from the Actions service.
func ReasonScaleSet(name string) string {
	return fmt.Sprintf("served by runner scale set %s (its demand comes from the Actions service)", name)
}
