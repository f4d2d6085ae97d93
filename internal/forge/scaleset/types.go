package scaleset

import (
	"time"

	gha "github.com/actions/scaleset"
)

// RunnerGroup is a runner group of the entity.
type RunnerGroup struct {
	ID        int64
	Name      string
	IsDefault bool
}

// ScaleSet is a runner scale set as the service reports it.
type ScaleSet struct {
	ID              int64
	Name            string
	RunnerGroupID   int64
	RunnerGroupName string
	Labels          []string // the labels jobs target it by; default: its name
	DisableUpdate   bool     // runners do not self-update
	CreatedOn       time.Time
	Statistics      Statistics
}

// Statistics are the service's counts for a scale set. AssignedJobs (waiting and running)
// is the scaling signal; see DesiredRunners.
type Statistics struct {
	AvailableJobs     int
	AcquiredJobs      int
	AssignedJobs      int
	RunningJobs       int
	RegisteredRunners int
	BusyRunners       int
	IdleRunners       int
}

// Runner is a runner (agent) registered with the service. Status ("online" or
// "offline") and Busy are filled when the answer carries them (the agents endpoints do;
// a JIT configuration's runner does not).
type Runner struct {
	ID         int64
	Name       string
	ScaleSetID int64
	Status     string
	Busy       bool
}

func fromWireStats(s *gha.RunnerScaleSetStatistic) Statistics {
	if s == nil {
		return Statistics{}
	}
	return Statistics{
		AvailableJobs: s.TotalAvailableJobs, AcquiredJobs: s.TotalAcquiredJobs, AssignedJobs: s.TotalAssignedJobs,
		RunningJobs: s.TotalRunningJobs, RegisteredRunners: s.TotalRegisteredRunners, BusyRunners: s.TotalBusyRunners,
		IdleRunners: s.TotalIdleRunners,
	}
}

func fromWireSet(w gha.RunnerScaleSet) ScaleSet {
	s := ScaleSet{
		ID: int64(w.ID), Name: w.Name, RunnerGroupID: int64(w.RunnerGroupID), RunnerGroupName: w.RunnerGroupName,
		DisableUpdate: w.RunnerSetting.DisableUpdate, CreatedOn: w.CreatedOn, Statistics: fromWireStats(w.Statistics),
	}
	for _, l := range w.Labels {
		s.Labels = append(s.Labels, l.Name)
	}
	return s
}

// toWireSet builds the request body; labels default to the name, label type to System.
func toWireSet(s ScaleSet) gha.RunnerScaleSet {
	w := gha.RunnerScaleSet{
		Name: s.Name, RunnerGroupID: int(s.RunnerGroupID), RunnerGroupName: s.RunnerGroupName,
		RunnerSetting: gha.RunnerSetting{DisableUpdate: s.DisableUpdate},
	}
	labels := s.Labels
	if len(labels) == 0 && s.Name != "" {
		labels = []string{s.Name}
	}
	for _, l := range labels {
		w.Labels = append(w.Labels, gha.Label{Type: "System", Name: l})
	}
	return w
}
