package forgesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// sessionIdleLocked reports whether a session went unpolled for longer than SessionIdle
// (the service then lets a new one be created).
func (s *Sim) sessionIdleLocked(ss *session) bool {
	return s.now().Sub(ss.lastPoll) > s.st.actions.opts.SessionIdle
}

func (s *Sim) asCreateSession(r *http.Request, c caller) reply {
	var req struct {
		OwnerName string `json:"ownerName"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return exception(http.StatusBadRequest, "ArgumentException", "Problems parsing JSON.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.setOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	if set.session != nil && !s.sessionIdleLocked(set.session) {
		return exception(http.StatusConflict, "TaskAgentSessionConflictException",
			fmt.Sprintf("The runner scale set %s already has an active session for owner %s.", set.name, set.session.owner))
	}
	s.closeSessionLocked(set)
	set.session = &session{id: newGUID(), owner: req.OwnerName, lastPoll: s.now()}
	return ok(http.StatusOK, s.sessionJSONLocked(c.base, set))
}

// sessionOfLocked finds the scale set and checks that {sid} is its open session.
func (s *Sim) sessionOfLocked(r *http.Request, c caller) (*scaleSet, *reply) {
	set, fail := s.setOfLocked(r, c)
	if fail != nil {
		return nil, fail
	}
	if set.session == nil || set.session.id != r.PathValue("sid") {
		rp := exception(http.StatusNotFound, "TaskAgentSessionNotFoundException", fmt.Sprintf("Session %s not found.", r.PathValue("sid")))
		return nil, &rp
	}
	return set, nil
}

func (s *Sim) asRefreshSession(r *http.Request, c caller) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.sessionOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	set.session.lastPoll = s.now()
	return ok(http.StatusOK, s.sessionJSONLocked(c.base, set))
}

func (s *Sim) asDeleteSession(r *http.Request, c caller) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, fail := s.sessionOfLocked(r, c)
	if fail != nil {
		return *fail
	}
	s.closeSessionLocked(set)
	return noContent()
}

// closeSessionLocked drops the session of a scale set and its queue tokens, and wakes
// its long polls. Un-acknowledged messages stay for the next session.
func (s *Sim) closeSessionLocked(set *scaleSet) {
	set.session = nil
	for tok, qt := range s.st.actions.queueTokens {
		if qt.setID == set.id {
			delete(s.st.actions.queueTokens, tok)
		}
	}
	wakeLocked(set)
}

func wakeLocked(set *scaleSet) {
	close(set.notify)
	set.notify = make(chan struct{})
}

// sessionJSONLocked renders the session with a new queue token.
func (s *Sim) sessionJSONLocked(base string, set *scaleSet) map[string]any {
	exp := s.now().Add(s.st.actions.opts.QueueTokenTTL)
	tok := mintJWT(exp, "session:"+set.session.id)
	s.st.actions.queueTokens[tok] = &queueToken{setID: set.id, session: set.session.id, expires: exp}
	queue := s.serviceBaseLocked(base, set.scope) + setsPath + "/" + strconv.FormatInt(set.id, 10) + "/messages?sessionId=" + set.session.id
	return map[string]any{
		"sessionId": set.session.id, "ownerName": set.session.owner, "runnerScaleSet": s.setJSONLocked(base, set),
		"messageQueueUrl": queue, "messageQueueAccessToken": tok, "statistics": s.st.setStatsLocked(set),
	}
}

// asGetMessage is the long poll: the oldest un-acknowledged message after lastMessageId,
// else one cut from the pending events, else 202 after the hold.
func (s *Sim) asGetMessage(r *http.Request, c caller) reply {
	if fail := wrongQueueURL(r, c); fail != nil {
		return *fail
	}
	last, _ := strconv.ParseInt(r.URL.Query().Get("lastMessageId"), 10, 64)
	capacity, capErr := strconv.Atoi(r.Header.Get("X-ScaleSetMaxCapacity"))
	s.mu.Lock()
	hold := s.st.actions.opts.Hold
	s.mu.Unlock()
	timer := time.NewTimer(hold)
	defer timer.Stop()
	for {
		s.mu.Lock()
		set := s.st.actions.sets[c.setID]
		if set == nil || set.session == nil {
			s.mu.Unlock()
			return exception(http.StatusUnauthorized, "VssUnauthorizedException", "The session is closed.")
		}
		set.session.lastPoll = s.now()
		if capErr == nil {
			set.maxCapacity = capacity
		}
		msg := s.nextMessageLocked(set, last)
		var rp reply
		if msg != nil {
			rp = ok(http.StatusOK, s.messageJSONLocked(set, msg))
		}
		wake := set.notify
		s.mu.Unlock()
		if msg != nil {
			return rp
		}
		select {
		case <-wake:
		case <-timer.C:
			return reply{status: http.StatusAccepted}
		case <-r.Context().Done():
			return reply{status: http.StatusAccepted}
		case <-s.closing:
			return reply{status: http.StatusAccepted}
		}
	}
}

// nextMessageLocked drops the messages up to last (processed), then returns the oldest
// un-acknowledged one or cuts a new one from the pending events. Nothing is delivered
// during an outage.
func (s *Sim) nextMessageLocked(set *scaleSet, last int64) *message {
	if last > 0 {
		kept := set.messages[:0]
		for _, m := range set.messages {
			if m.id > last {
				kept = append(kept, m)
			}
		}
		set.messages = kept
	}
	if s.st.actions.faults.outage {
		return nil
	}
	if len(set.messages) > 0 {
		return set.messages[0]
	}
	if len(set.pending) == 0 {
		return nil
	}
	n := min(len(set.pending), s.st.actions.opts.BatchSize)
	s.st.actions.nextMsgID++
	m := &message{id: s.st.actions.nextMsgID, events: append([]jobEvent(nil), set.pending[:n]...)}
	set.pending = append([]jobEvent(nil), set.pending[n:]...)
	set.messages = append(set.messages, m)
	return m
}

func (s *Sim) messageJSONLocked(set *scaleSet, m *message) map[string]any {
	body, _ := json.Marshal(m.events)
	return map[string]any{
		"messageId": m.id, "messageType": "RunnerScaleSetJobMessages",
		"statistics": s.st.setStatsLocked(set), "body": string(body),
	}
}

// wrongQueueURL refuses a queue call whose URL lost the query of the session's
// messageQueueUrl (clients must keep it).
func wrongQueueURL(r *http.Request, c caller) *reply {
	if r.URL.Query().Get("sessionId") == c.session {
		return nil
	}
	rp := exception(http.StatusBadRequest, "ArgumentException", "The message queue URL must keep its sessionId.")
	return &rp
}

// asDeleteMessage acknowledges a message; acknowledging twice is harmless.
func (s *Sim) asDeleteMessage(r *http.Request, c caller) reply {
	if fail := wrongQueueURL(r, c); fail != nil {
		return *fail
	}
	id := pathID(r, "mid")
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.st.actions.sets[c.setID]
	if set == nil {
		return noContent()
	}
	kept := set.messages[:0]
	for _, m := range set.messages {
		if m.id != id {
			kept = append(kept, m)
		}
	}
	set.messages = kept
	return noContent()
}

// asAcquireJobs gives the scale set the offered (JobAvailable) jobs it asks for; each
// acquired job is then assigned to it (JobAssigned).
func (s *Sim) asAcquireJobs(r *http.Request, c caller) reply {
	var ids []int64
	if err := decodeJSON(r, &ids); err != nil {
		return exception(http.StatusBadRequest, "ArgumentException", "The body must be a JSON array of request ids.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got := []int64{}
	for _, id := range ids {
		j := s.st.jobs[id]
		if j == nil || j.setID != c.setID || j.setState != setAvailable || j.status != "queued" {
			continue
		}
		j.setState = setAssigned
		s.emitSetLocked(j, "JobAssigned", nil)
		got = append(got, id)
	}
	return ok(http.StatusOK, map[string]any{"count": len(got), "value": got})
}
