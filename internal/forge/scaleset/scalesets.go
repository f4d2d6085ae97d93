package scaleset

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	gha "github.com/actions/scaleset"

	"github.com/garrison-ci/garrison"
)

const (
	scaleSetsPath = "_apis/runtime/runnerscalesets"
	groupsPath    = "_apis/runtime/runnergroups/"
	agentsPath    = "_apis/distributedtask/pools/0/agents"
)

// RunnerGroup finds a runner group by name ("" means "Default"). A missing group is
// garrison.ErrNotFound.
func (c *Client) RunnerGroup(ctx context.Context, name string) (RunnerGroup, error) {
	if name == "" {
		name = "Default"
	}
	var list gha.RunnerGroupList
	r := request{op: "get runner group", method: http.MethodGet, want: http.StatusOK, out: &list}
	if err := c.adminCall(ctx, r, groupsPath, url.Values{"groupName": {name}}); err != nil {
		return RunnerGroup{}, err
	}
	for _, g := range list.RunnerGroups {
		if strings.EqualFold(g.Name, name) {
			return RunnerGroup{ID: int64(g.ID), Name: g.Name, IsDefault: g.IsDefault}, nil
		}
	}
	return RunnerGroup{}, garrison.Errorf(garrison.ENotFound, "scaleset: runner group %q not found", name)
}

// ScaleSetByName finds a scale set by name within a runner group. A missing one is
// garrison.ErrNotFound.
func (c *Client) ScaleSetByName(ctx context.Context, runnerGroupID int64, name string) (ScaleSet, error) {
	var list struct {
		Count int                  `json:"count"`
		Value []gha.RunnerScaleSet `json:"value"`
	}
	q := url.Values{"runnerGroupId": {strconv.FormatInt(runnerGroupID, 10)}, "name": {name}}
	r := request{op: "find scale set", method: http.MethodGet, want: http.StatusOK, out: &list}
	if err := c.adminCall(ctx, r, scaleSetsPath, q); err != nil {
		return ScaleSet{}, err
	}
	switch len(list.Value) {
	case 0:
		return ScaleSet{}, garrison.Errorf(garrison.ENotFound, "scaleset: scale set %q not found in runner group %d", name, runnerGroupID)
	case 1:
		return fromWireSet(list.Value[0]), nil
	}
	return ScaleSet{}, garrison.Errorf(garrison.EConflict, "scaleset: %d scale sets named %q in runner group %d", len(list.Value), name, runnerGroupID)
}

// ScaleSets lists the scale sets of the entity.
func (c *Client) ScaleSets(ctx context.Context) ([]ScaleSet, error) {
	var list struct {
		Value []gha.RunnerScaleSet `json:"value"`
	}
	r := request{op: "list scale sets", method: http.MethodGet, want: http.StatusOK, out: &list}
	if err := c.adminCall(ctx, r, scaleSetsPath, nil); err != nil {
		return nil, err
	}
	out := make([]ScaleSet, 0, len(list.Value))
	for _, w := range list.Value {
		out = append(out, fromWireSet(w))
	}
	return out, nil
}

// ScaleSet returns a scale set by id, statistics included.
func (c *Client) ScaleSet(ctx context.Context, id int64) (ScaleSet, error) {
	var w gha.RunnerScaleSet
	r := request{op: "get scale set", method: http.MethodGet, want: http.StatusOK, out: &w}
	if err := c.adminCall(ctx, r, scaleSetPath(id), nil); err != nil {
		return ScaleSet{}, err
	}
	return fromWireSet(w), nil
}

// Statistics returns the current statistics of a scale set.
func (c *Client) Statistics(ctx context.Context, id int64) (Statistics, error) {
	s, err := c.ScaleSet(ctx, id)
	return s.Statistics, err
}

// CreateScaleSet creates a scale set (names are unique within a runner group).
func (c *Client) CreateScaleSet(ctx context.Context, s ScaleSet) (ScaleSet, error) {
	if s.Name == "" {
		return ScaleSet{}, garrison.Errorf(garrison.EInvalid, "scaleset: a scale set needs a name")
	}
	var w gha.RunnerScaleSet
	r := request{op: "create scale set", method: http.MethodPost, want: http.StatusOK, body: toWireSet(s), out: &w}
	if err := c.adminCall(ctx, r, scaleSetsPath, nil); err != nil {
		return ScaleSet{}, err
	}
	return fromWireSet(w), nil
}

// UpdateScaleSet changes a scale set (name, group, labels, update setting).
func (c *Client) UpdateScaleSet(ctx context.Context, id int64, s ScaleSet) (ScaleSet, error) {
	var w gha.RunnerScaleSet
	r := request{op: "update scale set", method: http.MethodPatch, want: http.StatusOK, body: toWireSet(s), out: &w}
	if err := c.adminCall(ctx, r, scaleSetPath(id), nil); err != nil {
		return ScaleSet{}, err
	}
	return fromWireSet(w), nil
}

// DeleteScaleSet deletes a scale set (204). A missing one is garrison.ErrNotFound.
func (c *Client) DeleteScaleSet(ctx context.Context, id int64) error {
	r := request{op: "delete scale set", method: http.MethodDelete, want: http.StatusNoContent}
	return c.adminCall(ctx, r, scaleSetPath(id), nil)
}

func scaleSetPath(id int64) string { return fmt.Sprintf("%s/%d", scaleSetsPath, id) }

// JITConfig is a just-in-time runner of a scale set. Encoded goes to the runner as it is
// (its --jitconfig); Files is its decoded form.
type JITConfig struct {
	Runner  Runner
	Encoded string
	Files   map[string]string
}

// GenerateJITConfig creates a runner of the scale set and returns its JIT configuration.
// A runner of that name existing is ErrRunnerExists.
func (c *Client) GenerateJITConfig(ctx context.Context, scaleSetID int64, name, workFolder string) (JITConfig, error) {
	if name == "" {
		return JITConfig{}, garrison.Errorf(garrison.EInvalid, "scaleset: a runner needs a name")
	}
	if workFolder == "" {
		workFolder = "_work"
	}
	var w gha.RunnerScaleSetJitRunnerConfig
	body := gha.RunnerScaleSetJitRunnerSetting{Name: name, WorkFolder: workFolder}
	r := request{op: "generate JIT config", method: http.MethodPost, want: http.StatusOK, body: body, out: &w}
	if err := c.adminCall(ctx, r, scaleSetPath(scaleSetID)+"/generatejitconfig", nil); err != nil {
		return JITConfig{}, err
	}
	if w.Runner == nil {
		return JITConfig{}, garrison.Errorf(garrison.EUnprocessable, "scaleset: generate JIT config: the answer names no runner")
	}
	files, err := DecodeJITConfig(w.EncodedJITConfig)
	if err != nil {
		return JITConfig{}, err
	}
	return JITConfig{Runner: fromWireRunner(*w.Runner), Encoded: w.EncodedJITConfig, Files: files}, nil
}

// agentWire is an agent as the agents endpoints return it: the reference client's
// RunnerReference plus its status.
type agentWire struct {
	gha.RunnerReference
	Status string `json:"status"`
	Busy   bool   `json:"busy"`
}

func fromWireRunner(w gha.RunnerReference) Runner {
	return Runner{ID: int64(w.ID), Name: w.Name, ScaleSetID: int64(w.RunnerScaleSetID)}
}

func fromWireAgent(w agentWire) Runner {
	r := fromWireRunner(w.RunnerReference)
	r.Status, r.Busy = w.Status, w.Busy
	return r
}

// Runner returns a runner by id; a missing one is garrison.ErrNotFound.
func (c *Client) Runner(ctx context.Context, id int64) (Runner, error) {
	var w agentWire
	r := request{op: "get runner", method: http.MethodGet, want: http.StatusOK, out: &w}
	if err := c.adminCall(ctx, r, fmt.Sprintf("%s/%d", agentsPath, id), nil); err != nil {
		return Runner{}, err
	}
	return fromWireAgent(w), nil
}

// RunnerByName finds a runner by name; a missing one is garrison.ErrNotFound.
func (c *Client) RunnerByName(ctx context.Context, name string) (Runner, error) {
	var list struct {
		Value []agentWire `json:"value"`
	}
	r := request{op: "find runner", method: http.MethodGet, want: http.StatusOK, out: &list}
	if err := c.adminCall(ctx, r, agentsPath, url.Values{"agentName": {name}}); err != nil {
		return Runner{}, err
	}
	switch len(list.Value) {
	case 0:
		return Runner{}, garrison.Errorf(garrison.ENotFound, "scaleset: runner %q not found", name)
	case 1:
		return fromWireAgent(list.Value[0]), nil
	}
	return Runner{}, garrison.Errorf(garrison.EConflict, "scaleset: %d runners named %q", len(list.Value), name)
}

// RemoveRunner deletes a runner (204). A busy runner is ErrJobStillRunning; a missing one
// is garrison.ErrNotFound.
func (c *Client) RemoveRunner(ctx context.Context, id int64) error {
	r := request{op: "remove runner", method: http.MethodDelete, want: http.StatusNoContent}
	return c.adminCall(ctx, r, fmt.Sprintf("%s/%d", agentsPath, id), nil)
}
