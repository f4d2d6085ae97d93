package garrison

// ScaleSetTarget is the number of runners a runner scale set should have (spec
// forge-api.md §8.4): its minimum of idle runners plus the jobs the Actions service has
// assigned to it (waiting and running, statistics field totalAssignedJobs), capped at its
// maximum:
//
//	target = min(minIdle + assignedJobs, maxRunners)
//
// The statistics of each message are the signal, not the job events of a message (a
// batch is cut at 50 events). When no message came within the long poll's hold, the last
// statistics apply again. Negative inputs count as 0; a maximum below the minimum caps
// the target all the same. Busy runners are never scaled down; choosing which idle ones
// go is the caller's work.
func ScaleSetTarget(minIdle, maxRunners, assignedJobs int) int {
	minIdle, maxRunners, assignedJobs = max(minIdle, 0), max(maxRunners, 0), max(assignedJobs, 0)
	return min(minIdle+assignedJobs, maxRunners)
}
