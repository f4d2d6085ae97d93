package scaleset

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	gha "github.com/actions/scaleset"

	"github.com/garrison-ci/garrison"
)

// Job event types of a message's batch.
const (
	JobAvailable = string(gha.MessageTypeJobAvailable) // GHES: acquire it with AcquireJobs
	JobAssigned  = string(gha.MessageTypeJobAssigned)  // the job is the scale set's
	JobStarted   = string(gha.MessageTypeJobStarted)   // a runner took it (mark busy)
	JobCompleted = string(gha.MessageTypeJobCompleted) // finished, or canceled and requeued
)

// jobMessagesType is the only top-level message type the reference client accepts.
const jobMessagesType = "RunnerScaleSetJobMessages"

// maxBatch bounds the job events of one message; the service sends at most 50.
const maxBatch = 1000

// Message is one message of the queue: the scale set's statistics and a batch of job
// events in the order the service sent them.
type Message struct {
	ID         int64
	Statistics *Statistics // nil when the message carries none
	Jobs       []JobEvent
}

// JobEvent is one job event of a batch. RunnerRequestID may be 0 with a string JobID.
type JobEvent struct {
	Type            string // JobAvailable, JobAssigned, JobStarted, JobCompleted or another (ignored)
	RunnerRequestID int64
	JobID           string
	RepositoryName  string
	OwnerName       string
	WorkflowRef     string
	DisplayName     string
	WorkflowRunID   int64
	EventName       string
	Labels          []string
	QueueTime       time.Time
	AcquireJobURL   string // JobAvailable
	RunnerID        int64  // JobStarted, JobCompleted
	RunnerName      string // JobStarted, JobCompleted
	Result          string // JobCompleted: succeeded, failed, canceled, …
}

// rawMessage is the wire form: body is a JSON string holding a JSON array.
type rawMessage struct {
	MessageID   int64                        `json:"messageId"`
	MessageType string                       `json:"messageType"`
	Statistics  *gha.RunnerScaleSetStatistic `json:"statistics"`
	Body        string                       `json:"body"`
}

// ParseMessage decodes a message as the queue returns it (a UTF-8 BOM is allowed). Bad
// input is a garrison.ErrUnprocessable error.
func ParseMessage(b []byte) (*Message, error) {
	var raw rawMessage
	if err := json.Unmarshal(trimBOM(b), &raw); err != nil {
		return nil, fmt.Errorf("scaleset: message: %w: %w", garrison.ErrUnprocessable, err)
	}
	return raw.decode()
}

// jobWire is the union of the job event fields (the reference types, flattened).
type jobWire struct {
	gha.JobMessageBase
	AcquireJobURL string `json:"acquireJobUrl"`
	RunnerID      int64  `json:"runnerId"`
	RunnerName    string `json:"runnerName"`
	Result        string `json:"result"`
}

func (r rawMessage) decode() (*Message, error) {
	if r.MessageType != jobMessagesType {
		return nil, garrison.Errorf(garrison.EUnprocessable, "scaleset: message %d: unsupported message type %q", r.MessageID, r.MessageType)
	}
	m := &Message{ID: r.MessageID}
	if r.Statistics != nil {
		st := fromWireStats(r.Statistics)
		m.Statistics = &st
	}
	if r.Body == "" {
		return m, nil
	}
	var batch []jobWire
	if err := json.Unmarshal([]byte(r.Body), &batch); err != nil {
		return nil, fmt.Errorf("scaleset: message %d: body: %w: %w", r.MessageID, garrison.ErrUnprocessable, err)
	}
	if len(batch) > maxBatch {
		return nil, garrison.Errorf(garrison.EUnprocessable, "scaleset: message %d: %d job events (at most %d)", r.MessageID, len(batch), maxBatch)
	}
	m.Jobs = make([]JobEvent, 0, len(batch))
	for _, j := range batch {
		m.Jobs = append(m.Jobs, JobEvent{
			Type: string(j.MessageType), RunnerRequestID: j.RunnerRequestID, JobID: j.JobID,
			RepositoryName: j.RepositoryName, OwnerName: j.OwnerName, WorkflowRef: j.JobWorkflowRef,
			DisplayName: j.JobDisplayName, WorkflowRunID: j.WorkflowRunID, EventName: j.EventName,
			Labels: j.RequestLabels, QueueTime: j.QueueTime, AcquireJobURL: j.AcquireJobURL,
			RunnerID: j.RunnerID, RunnerName: j.RunnerName, Result: j.Result,
		})
	}
	return m, nil
}

// Available returns the runner request ids of the batch's JobAvailable events, to pass to
// AcquireJobs.
func (m *Message) Available() []int64 {
	var ids []int64
	for _, j := range m.Jobs {
		if j.Type == JobAvailable {
			ids = append(ids, j.RunnerRequestID)
		}
	}
	return ids
}

// DecodeJITConfig decodes an encodedJITConfig: base64 of a JSON object whose values are
// the base64 runner files (".runner", ".credentials", ".credentials_rsaparams"). Bad
// input is a garrison.ErrUnprocessable error.
func DecodeJITConfig(encoded string) (map[string]string, error) {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("scaleset: encodedJITConfig: %w: %w", garrison.ErrUnprocessable, err)
	}
	var files map[string]string
	if err := json.Unmarshal(raw, &files); err != nil {
		return nil, fmt.Errorf("scaleset: encodedJITConfig: %w: %w", garrison.ErrUnprocessable, err)
	}
	if len(files) == 0 {
		return nil, garrison.Errorf(garrison.EUnprocessable, "scaleset: encodedJITConfig holds no file")
	}
	for name, content := range files {
		if name == "" {
			return nil, garrison.Errorf(garrison.EUnprocessable, "scaleset: encodedJITConfig names a file \"\"")
		}
		if _, err := base64.StdEncoding.DecodeString(content); err != nil {
			return nil, fmt.Errorf("scaleset: encodedJITConfig: file %q: %w: %w", name, garrison.ErrUnprocessable, err)
		}
	}
	return files, nil
}
