package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// A trapKind is a kind of Actions-service call the scale-set crash test kills the server
// during.
type trapKind string

const (
	trapSession trapKind = "session" // POST .../sessions: the session is opened, the server never learns its id
	trapJIT     trapKind = "jit"     // POST .../generatejitconfig: the runner is registered, the server never learns it
	trapAcquire trapKind = "acquire" // POST .../acquirejobs: the jobs are acquired, the server never hears so
	trapAck     trapKind = "ack"     // DELETE .../messages/{id}: the message is deleted, the server never hears so
	trapRemove  trapKind = "remove"  // DELETE .../agents/{id}: the runner is removed, the server never hears so
	trapMessage trapKind = "message" // GET .../messages: a message was delivered; the kill lands while it is processed
)

var (
	setCallPath   = regexp.MustCompile(`/_apis/runtime/runnerscalesets/\d+/(sessions|generatejitconfig|acquirejobs|messages)(?:/(\d+))?$`)
	agentCallPath = regexp.MustCompile(`/_apis/distributedtask/pools/0/agents/\d+$`)
)

// classify names the trap kind of an Actions-service call ("" for the others) and, for a
// message delete, the message id.
func classify(r *http.Request) (trapKind, int64) {
	if r.Method == http.MethodDelete && agentCallPath.MatchString(r.URL.Path) {
		return trapRemove, 0
	}
	m := setCallPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		return "", 0
	}
	id, _ := strconv.ParseInt(m[2], 10, 64)
	switch {
	case r.Method == http.MethodPost && m[1] == "sessions" && m[2] == "":
		return trapSession, 0
	case r.Method == http.MethodPost && m[1] == "generatejitconfig":
		return trapJIT, 0
	case r.Method == http.MethodPost && m[1] == "acquirejobs":
		return trapAcquire, 0
	case r.Method == http.MethodGet && m[1] == "messages" && m[2] == "":
		return trapMessage, 0
	case r.Method == http.MethodDelete && m[1] == "messages" && m[2] != "":
		return trapAck, id
	}
	return "", 0
}

// simTrap sits in front of the forge simulator in the scale-set crash test. Armed for a
// kind of call, it lets the first such call do its work on the simulator, tells the test
// (which kills the server) and, except for a message poll, holds the answer until the
// kill is done: the server dies not knowing what the service did. It also checks the
// message traffic as it passes: garrison must never act on a message it recorded as
// processed (see violation).
type simTrap struct {
	fired  chan trapKind // the armed call happened (buffer 1)
	resume chan struct{} // lets a held call answer (buffer 1)

	mu        sync.Mutex // guards the fields below
	armed     trapKind
	recorded  int64           // the highest lastMessageId a poll sent: processed and stored
	acked     int64           // the highest message id acknowledged
	offeredIn map[int64]int64 // runner request id → the message that offered it (JobAvailable)
	delivered map[int64]int   // message id → how often a poll delivered it
	acquired  map[int64]int   // runner request id → how often it was acquired
	problems  []string
}

func newSimTrap() *simTrap {
	return &simTrap{fired: make(chan trapKind, 1), resume: make(chan struct{}, 1),
		offeredIn: map[int64]int64{}, delivered: map[int64]int{}, acquired: map[int64]int{}}
}

// wrap is the testbed's SimWrap.
func (tr *simTrap) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind, msgID := classify(r)
		if kind == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		tr.arrived(kind, r, body, msgID)
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if kind == trapMessage {
			tr.delivering(rec)
		}
		sprung := tr.spring(kind, rec.Code)
		if sprung && kind != trapMessage {
			tr.fired <- kind
			<-tr.resume // the server is dead: the answer goes nowhere
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		if sprung && kind == trapMessage {
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			tr.fired <- kind
		}
	})
}

// spring disarms the trap and reports whether this call sets it off: the armed kind,
// answered with success.
func (tr *simTrap) spring(kind trapKind, code int) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.armed != kind || code >= 300 || (kind == trapMessage && code != http.StatusOK) {
		return false
	}
	tr.armed = ""
	return true
}

// arm makes the next successful call of kind set the trap off.
func (tr *simTrap) arm(kind trapKind) {
	tr.mu.Lock()
	tr.armed = kind
	tr.mu.Unlock()
}

// await waits up to limit for the armed call and reports whether it came; the trap is
// disarmed either way. A held call waits for release.
func (tr *simTrap) await(limit time.Duration) bool {
	select {
	case <-tr.fired:
		return true
	case <-time.After(limit):
	}
	tr.mu.Lock()
	missed := tr.armed != ""
	tr.armed = ""
	tr.mu.Unlock()
	if missed {
		return false
	}
	<-tr.fired // it went off as the wait ended
	return true
}

// release lets a held call answer (after the kill).
func (tr *simTrap) release(kind trapKind) {
	if kind != trapMessage {
		tr.resume <- struct{}{}
	}
}

// arrived checks a call as it arrives (a dead server sends none, so arrival order is the
// order of what the live servers did): the lastMessageId of polls never goes back and
// is never below a message already acknowledged (garrison stores a message as processed
// before it acknowledges it), and no job is acquired for a message already recorded.
func (tr *simTrap) arrived(kind trapKind, r *http.Request, body []byte, msgID int64) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch kind {
	case trapMessage:
		last, _ := strconv.ParseInt(r.URL.Query().Get("lastMessageId"), 10, 64)
		if last < tr.recorded || last < tr.acked {
			tr.violation("a poll sent lastMessageId %d after %d was recorded and %d acknowledged", last, tr.recorded, tr.acked)
		}
		tr.recorded = max(tr.recorded, last)
	case trapAck:
		tr.acked = max(tr.acked, msgID)
	case trapAcquire:
		var ids []int64
		_ = json.Unmarshal(body, &ids)
		for _, id := range ids {
			tr.acquired[id]++
			if m := tr.offeredIn[id]; m <= tr.recorded || m <= tr.acked {
				tr.violation("job request %d of message %d acquired after the message was processed (recorded %d, acked %d)",
					id, m, tr.recorded, tr.acked)
			}
		}
	}
}

// delivering notes the message a poll delivers and the job requests it offers.
func (tr *simTrap) delivering(rec *httptest.ResponseRecorder) {
	if rec.Code != http.StatusOK {
		return
	}
	var msg struct {
		MessageID int64  `json:"messageId"`
		Body      string `json:"body"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(rec.Body.Bytes(), []byte("\xef\xbb\xbf")), &msg); err != nil {
		tr.mu.Lock()
		tr.violation("undecodable message: %v", err)
		tr.mu.Unlock()
		return
	}
	var events []struct {
		MessageType     string `json:"messageType"`
		RunnerRequestID int64  `json:"runnerRequestId"`
	}
	_ = json.Unmarshal([]byte(msg.Body), &events)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.delivered[msg.MessageID]++
	for _, e := range events {
		if e.MessageType == "JobAvailable" {
			tr.offeredIn[e.RunnerRequestID] = msg.MessageID
		}
	}
}

func (tr *simTrap) violation(format string, args ...any) {
	if len(tr.problems) < 20 {
		tr.problems = append(tr.problems, fmt.Sprintf(format, args...))
	}
}

// report returns the violations seen and a summary of the traffic.
func (tr *simTrap) report() (problems []string, summary string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	redelivered, reacquired := 0, 0
	for _, n := range tr.delivered {
		redelivered += n - 1
	}
	for _, n := range tr.acquired {
		reacquired += n - 1
	}
	return append([]string(nil), tr.problems...), fmt.Sprintf("%d messages (%d redeliveries of messages not yet recorded), %d job requests acquired (%d again, from redeliveries), last message %d",
		len(tr.delivered), redelivered, len(tr.acquired), reacquired, tr.recorded)
}
