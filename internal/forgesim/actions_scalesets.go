package forgesim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

func (s *Sim) asGroups(r *http.Request, c caller) reply {
	name := r.URL.Query().Get("groupName")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	for _, g := range s.st.groupsLocked(c.scope) {
		if name == "" || strings.EqualFold(g.Name, name) {
			out = append(out, map[string]any{"id": g.ID, "name": g.Name, "size": s.st.groupSizeLocked(c.scope, g.ID), "isDefaultGroup": g.ID == defaultGroup.ID})
		}
	}
	return ok(http.StatusOK, map[string]any{"count": len(out), "value": out})
}

func (st *state) groupSizeLocked(sc scope, groupID int64) int {
	n := 0
	for _, rn := range st.runners {
		if rn.scope.key() == sc.key() && rn.groupID == groupID {
			n++
		}
	}
	return n
}

// setJSONLocked renders a scale set as the service does.
func (s *Sim) setJSONLocked(base string, set *scaleSet) map[string]any {
	labels := []map[string]string{}
	for _, l := range set.labels {
		labels = append(labels, map[string]string{"type": "System", "name": l})
	}
	self := s.serviceBaseLocked(base, set.scope) + setsPath + "/" + strconv.FormatInt(set.id, 10)
	return map[string]any{
		"id": set.id, "name": set.name, "runnerGroupId": set.groupID, "runnerGroupName": set.groupName,
		"labels": labels, "RunnerSetting": map[string]bool{"disableUpdate": set.disableUpdate},
		"createdOn": set.createdOn.UTC().Format(time.RFC3339), "runnerJitConfigUrl": self + "/generatejitconfig",
		"getAcquirableJobsUrl": self + "/acquirablejobs", "acquireJobsUrl": self + "/acquirejobs",
		"statistics": s.st.setStatsLocked(set), "status": "active", "enabled": true,
	}
}

func (s *Sim) asListSets(r *http.Request, c caller) reply {
	q := r.URL.Query()
	name := q.Get("name")
	group, _ := strconv.ParseInt(q.Get("runnerGroupId"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	for _, id := range sortedIDs(s.st.actions.sets) {
		set := s.st.actions.sets[id]
		if set.scope.key() != c.scope.key() || (name != "" && !strings.EqualFold(set.name, name)) || (group != 0 && set.groupID != group) {
			continue
		}
		out = append(out, s.setJSONLocked(c.base, set))
	}
	return ok(http.StatusOK, map[string]any{"count": len(out), "value": out})
}

// setOfLocked finds the scale set of the path in the caller's tenant.
func (s *Sim) setOfLocked(r *http.Request, c caller) (*scaleSet, *reply) {
	set := s.st.actions.sets[pathID(r, "id")]
	if set == nil || set.scope.key() != c.scope.key() {
		rp := exception(http.StatusNotFound, "RunnerScaleSetNotFoundException", fmt.Sprintf("No runner scale set found with identifier %s.", r.PathValue("id")))
		return nil, &rp
	}
	return set, nil
}

func (s *Sim) asGetSet(r *http.Request, c caller) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.setOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	return ok(http.StatusOK, s.setJSONLocked(c.base, set))
}

// setRequest is the body of create and update.
type setRequest struct {
	Name          *string `json:"name"`
	RunnerGroupID *int64  `json:"runnerGroupId"`
	Labels        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"labels"`
	RunnerSetting *struct {
		DisableUpdate bool `json:"disableUpdate"`
	} `json:"RunnerSetting"`
}

func (s *Sim) asCreateSet(r *http.Request, c caller) reply {
	var req setRequest
	if err := decodeJSON(r, &req); err != nil || req.Name == nil || strings.TrimSpace(*req.Name) == "" {
		return exception(http.StatusBadRequest, "ArgumentException", "A runner scale set needs a name.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set := &scaleSet{id: s.st.id(), scope: c.scope, name: *req.Name, groupID: defaultGroup.ID, createdOn: s.now(), notify: make(chan struct{})}
	if fail := s.applySetLocked(set, req); fail != nil {
		return *fail
	}
	s.st.actions.sets[set.id] = set
	s.routeQueuedJobsLocked()
	return ok(http.StatusOK, s.setJSONLocked(c.base, set))
}

func (s *Sim) asUpdateSet(r *http.Request, c caller) reply {
	var req setRequest
	if err := decodeJSON(r, &req); err != nil {
		return exception(http.StatusBadRequest, "ArgumentException", "Problems parsing JSON.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.setOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	if req.Name != nil && strings.TrimSpace(*req.Name) == "" {
		return exception(http.StatusBadRequest, "ArgumentException", "A runner scale set needs a name.")
	}
	next := *set
	if req.Name != nil {
		next.name = *req.Name
	}
	if fail := s.applySetLocked(&next, req); fail != nil {
		return *fail
	}
	*set = next
	s.routeQueuedJobsLocked()
	return ok(http.StatusOK, s.setJSONLocked(c.base, set))
}

// applySetLocked validates and applies the group, labels and setting of a request.
func (s *Sim) applySetLocked(set *scaleSet, req setRequest) *reply {
	if req.RunnerGroupID != nil && *req.RunnerGroupID != 0 {
		set.groupID = *req.RunnerGroupID
	}
	g, found := findGroup(s.st.groupsLocked(set.scope), set.groupID)
	if !found {
		rp := exception(http.StatusNotFound, "RunnerGroupNotFoundException", fmt.Sprintf("Runner group %d not found.", set.groupID))
		return &rp
	}
	set.groupName = g.Name
	for _, other := range s.st.actions.sets {
		if other.id != set.id && other.scope.key() == set.scope.key() && other.groupID == set.groupID && strings.EqualFold(other.name, set.name) {
			rp := exception(http.StatusConflict, "RunnerScaleSetExistsException", fmt.Sprintf("A runner scale set named %s exists in the runner group.", set.name))
			return &rp
		}
	}
	if req.Labels != nil {
		set.labels = nil
		for _, l := range req.Labels {
			if l.Name != "" {
				set.labels = append(set.labels, l.Name)
			}
		}
	}
	if len(set.labels) == 0 {
		set.labels = []string{set.name}
	}
	if req.RunnerSetting != nil {
		set.disableUpdate = req.RunnerSetting.DisableUpdate
	}
	return nil
}

func (s *Sim) asDeleteSet(r *http.Request, c caller) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.setOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	delete(s.st.actions.sets, set.id)
	s.closeSessionLocked(set)
	for _, j := range s.st.jobs {
		if j.setID == set.id && j.status == "queued" && j.runner == nil {
			j.setID, j.setState = 0, setNone
		}
	}
	for id, rn := range s.st.runners {
		if rn.setID == set.id && !rn.busy {
			delete(s.st.runners, id)
		}
	}
	close(set.notify)
	s.routeQueuedJobsLocked()
	return noContent()
}
