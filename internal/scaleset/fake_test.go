package scaleset_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/scaleset"
)

// fakeService is an in-memory Actions service with the protocol rules a listener
// depends on (forge-api §8): one open session per scale set (a second is a conflict),
// messages delivered in order after lastMessageId and redelivered until acked, queue
// tokens that expire, JIT runners, busy runners that refuse removal. It stands in for
// the client at the listener's consumer-side interface; the end-to-end tests run the real
// client against the forge simulator.
type fakeService struct {
	mu          sync.Mutex
	sessions    map[int]string // scale set id -> open session id
	nextSession int
	token       int  // current queue token generation
	expireNext  int  // how many upcoming queue calls answer token expired
	refreshFail bool // RefreshSession fails
	stats       scaleset.Statistics
	messages    []scaleset.Message // queue, in id order
	acked       map[int64]bool
	polls       []int64 // lastMessageId of every GetMessage
	acquired    []int64
	acquireFail error
	runners     map[int64]string // agent id -> name
	busy        map[int64]bool
	nextRunner  int64
	deleted     []string // session ids deleted
}

func newFakeService() *fakeService {
	return &fakeService{sessions: map[int]string{}, acked: map[int64]bool{}, runners: map[int64]string{},
		busy: map[int64]bool{}, nextRunner: 1000}
}

func (f *fakeService) Service(context.Context, garrison.Entity) (scaleset.Service, error) {
	return f, nil
}

func (f *fakeService) CreateSession(_ context.Context, id int, _ string) (scaleset.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, open := f.sessions[id]; open {
		return scaleset.Session{}, scaleset.ErrSessionConflict
	}
	f.nextSession++
	sid := fmt.Sprintf("session-%d", f.nextSession)
	f.sessions[id] = sid
	return scaleset.Session{ID: sid, QueueToken: fmt.Sprint(f.token), Statistics: f.stats}, nil
}

func (f *fakeService) RefreshSession(_ context.Context, _ int, s scaleset.Session) (scaleset.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refreshFail {
		return s, garrison.Errorf(garrison.EUnauthorized, "session gone")
	}
	s.QueueToken = fmt.Sprint(f.token)
	return s, nil
}

func (f *fakeService) DeleteSession(_ context.Context, id int, sid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sessions[id] == sid {
		delete(f.sessions, id)
	}
	f.deleted = append(f.deleted, sid)
	return nil
}

// queueCall applies token expiry to a queue call.
func (f *fakeService) queueCall(s scaleset.Session) error {
	if f.expireNext > 0 {
		f.expireNext--
		f.token++
	}
	if s.QueueToken != fmt.Sprint(f.token) {
		return scaleset.ErrQueueTokenExpired
	}
	return nil
}

func (f *fakeService) GetMessage(_ context.Context, s scaleset.Session, last int64, _ int) (*scaleset.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.queueCall(s); err != nil {
		return nil, err
	}
	f.polls = append(f.polls, last)
	for _, m := range f.messages {
		if !f.acked[m.ID] {
			m := m
			return &m, nil // un-acked messages are redelivered, whatever lastMessageId says
		}
	}
	return nil, nil
}

func (f *fakeService) AckMessage(_ context.Context, s scaleset.Session, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.queueCall(s); err != nil {
		return err
	}
	f.acked[id] = true
	return nil
}

func (f *fakeService) AcquireJobs(_ context.Context, _ int, s scaleset.Session, ids []int64) ([]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.queueCall(s); err != nil {
		return nil, err
	}
	if f.acquireFail != nil {
		return nil, f.acquireFail
	}
	f.acquired = append(f.acquired, ids...)
	return ids, nil
}

func (f *fakeService) GenerateJITConfig(_ context.Context, _ int, name string) (scaleset.JITConfig, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.runners {
		if n == name {
			return scaleset.JITConfig{}, garrison.ErrConflict
		}
	}
	f.nextRunner++
	f.runners[f.nextRunner] = name
	return scaleset.JITConfig{RunnerID: f.nextRunner, Name: name, Files: map[string]string{".runner": "e30="}}, nil
}

func (f *fakeService) RemoveRunner(_ context.Context, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.runners[id]; !ok {
		return garrison.ErrNotFound
	}
	if f.busy[id] {
		return scaleset.ErrJobStillRunning
	}
	delete(f.runners, id)
	return nil
}

// push queues a message with the given statistics and job events.
func (f *fakeService) push(id int64, assigned int, jobs ...scaleset.JobMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats.TotalAssignedJobs = assigned
	f.messages = append(f.messages, scaleset.Message{ID: id, Statistics: f.stats, Jobs: jobs})
}

func (f *fakeService) do(fn func(f *fakeService)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// Runner shows the fake's runners online; busy ones busy.
func (f *fakeService) Runner(_ context.Context, id int64) (scaleset.RunnerState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.runners[id]; !ok {
		return scaleset.RunnerState{}, garrison.ErrNotFound
	}
	return scaleset.RunnerState{Online: true, Busy: f.busy[id]}, nil
}
