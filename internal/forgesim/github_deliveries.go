package forgesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison"
)

// deliveriesOfLocked returns a hook's deliveries, newest first, filtered by status
// ("success", "failure" or "").
func (st *state) deliveriesOfLocked(hookID int64, status string) []*Delivery {
	var out []*Delivery
	for i := len(st.deliveries) - 1; i >= 0; i-- {
		d := st.deliveries[i]
		if d.HookID != hookID || (status == "success" && !d.OK()) || (status == "failure" && d.OK()) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func deliveryJSON(d *Delivery) map[string]any {
	var action any
	if d.Action != "" {
		action = d.Action
	}
	return map[string]any{
		"id": d.ID, "guid": d.GUID, "delivered_at": d.DeliveredAt.UTC().Format(time.RFC3339),
		"redelivery": d.Redelivery, "duration": d.Duration.Seconds(), "status": d.Status,
		"status_code": d.StatusCode, "event": d.Event, "action": action, "throttled_at": nil,
	}
}

// ghListDeliveries pages with an opaque cursor (the offset into the newest-first list).
func (s *Sim) ghListDeliveries(r *http.Request, _ principal) reply {
	q := r.URL.Query()
	per := min(max(atoiDefault(q.Get("per_page"), 30), 1), 100)
	off := max(atoiDefault(q.Get("cursor"), 0), 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	if h == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	all := s.st.deliveriesOfLocked(h.id, q.Get("status"))
	out := []map[string]any{}
	for _, d := range all[min(off, len(all)):min(off+per, len(all))] {
		out = append(out, deliveryJSON(d))
	}
	rp := ok(http.StatusOK, out)
	if off+per < len(all) {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		nq := url.Values{"per_page": {strconv.Itoa(per)}, "cursor": {strconv.Itoa(off + per)}}
		if st := q.Get("status"); st != "" {
			nq.Set("status", st)
		}
		u.RawQuery = nq.Encode()
		rp = withLink(rp, fmt.Sprintf("<%s>; rel=\"next\"", u.String()))
	}
	return rp
}

func (s *Sim) deliveryInLocked(r *http.Request) (*hook, *Delivery) {
	h := s.st.hookInLocked(scopeOf(r), pathID(r, "id"), garrison.GitHub)
	if h == nil {
		return nil, nil
	}
	did := pathID(r, "delivery")
	for _, d := range s.st.deliveries {
		if d.ID == did && d.HookID == h.id {
			return h, d
		}
	}
	return h, nil
}

func (s *Sim) ghGetDelivery(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, d := s.deliveryInLocked(r)
	if d == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	m := deliveryJSON(d)
	hdr := map[string]string{}
	for k := range d.Header {
		hdr[k] = d.Header.Get(k)
	}
	resp, _ := json.Marshal(d.Response)
	m["request"] = map[string]any{"headers": hdr, "payload": json.RawMessage(d.Payload)}
	m["response"] = map[string]any{"headers": map[string]string{}, "payload": json.RawMessage(resp)}
	return ok(http.StatusOK, m)
}

// ghRedeliver queues the delivery again: a new delivery id, the same GUID, redelivery
// true, no faults. Answers 202 {}.
func (s *Sim) ghRedeliver(r *http.Request, _ principal) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, d := s.deliveryInLocked(r)
	if d == nil {
		return ghError(http.StatusNotFound, "Not Found")
	}
	o := s.outgoingLocked(h, d.Event, d.Payload)
	o.guid, o.action, o.jobID, o.redelivery = d.GUID, d.Action, d.JobID, true
	s.out.enqueue(o, 0)
	return ok(http.StatusAccepted, map[string]any{})
}
