package scaleset

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/garrison-ci/garrison"
)

// wireMessage builds a message as the service sends it: body is a JSON string holding
// the JSON array of job events.
func wireMessage(t testing.TB, id int64, events ...map[string]any) []byte {
	t.Helper()
	body, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{
		"messageId": id, "messageType": "RunnerScaleSetJobMessages", "body": string(body),
		"statistics": map[string]int{"totalAssignedJobs": 2, "totalRunningJobs": 1, "totalBusyRunners": 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseMessageKeepsOrderAndFields(t *testing.T) {
	b := wireMessage(t, 7,
		map[string]any{"messageType": "JobAvailable", "runnerRequestId": 11, "acquireJobUrl": "http://x/acquire", "requestLabels": []string{"set"}},
		map[string]any{"messageType": "JobAssigned", "runnerRequestId": 0, "jobId": "bb518439-aa", "repositoryName": "repo", "ownerName": "org", "workflowRunId": 123},
		map[string]any{"messageType": "JobStarted", "runnerRequestId": 12, "runnerId": 5, "runnerName": "r-5"},
		map[string]any{"messageType": "JobCompleted", "runnerRequestId": 12, "runnerId": 5, "runnerName": "r-5", "result": "canceled"},
		map[string]any{"messageType": "SomethingNew"},
	)
	m, err := ParseMessage(append([]byte("\xef\xbb\xbf"), b...))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != 7 || m.Statistics == nil || m.Statistics.AssignedJobs != 2 || m.Statistics.BusyRunners != 1 {
		t.Fatalf("message = %+v", m)
	}
	types := []string{JobAvailable, JobAssigned, JobStarted, JobCompleted, "SomethingNew"}
	if len(m.Jobs) != len(types) {
		t.Fatalf("%d jobs, want %d", len(m.Jobs), len(types))
	}
	for i, typ := range types {
		if m.Jobs[i].Type != typ {
			t.Errorf("job %d type %q, want %q", i, m.Jobs[i].Type, typ)
		}
	}
	if j := m.Jobs[1]; j.JobID != "bb518439-aa" || j.RunnerRequestID != 0 || j.RepositoryName != "repo" || j.WorkflowRunID != 123 {
		t.Errorf("JobAssigned = %+v", j)
	}
	if j := m.Jobs[3]; j.RunnerID != 5 || j.RunnerName != "r-5" || j.Result != "canceled" {
		t.Errorf("JobCompleted = %+v", j)
	}
	if got := m.Available(); len(got) != 1 || got[0] != 11 || m.Jobs[0].AcquireJobURL != "http://x/acquire" {
		t.Errorf("Available = %v, job 0 = %+v", got, m.Jobs[0])
	}
}

func TestParseMessageEmptyBodyAndNoStatistics(t *testing.T) {
	m, err := ParseMessage([]byte(`{"messageId": 3, "messageType": "RunnerScaleSetJobMessages"}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != 3 || m.Statistics != nil || len(m.Jobs) != 0 {
		t.Fatalf("message = %+v", m)
	}
}

func TestParseMessageRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"not JSON", `{`},
		{"other message type", `{"messageId": 1, "messageType": "Nope", "body": "[]"}`},
		{"body not a string", `{"messageId": 1, "messageType": "RunnerScaleSetJobMessages", "body": []}`},
		{"body string not an array", `{"messageId": 1, "messageType": "RunnerScaleSetJobMessages", "body": "{}"}`},
		{"body array of wrong things", `{"messageId": 1, "messageType": "RunnerScaleSetJobMessages", "body": "[1]"}`},
		{"bad field type", `{"messageId": 1, "messageType": "RunnerScaleSetJobMessages", "body": "[{\"runnerRequestId\":\"x\"}]"}`},
		{"id not a number", `{"messageId": "1", "messageType": "RunnerScaleSetJobMessages"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseMessage([]byte(tt.in))
			if !errors.Is(err, garrison.ErrUnprocessable) {
				t.Fatalf("err = %v, want ErrUnprocessable", err)
			}
		})
	}
}

func FuzzParseMessage(f *testing.F) {
	f.Add(wireMessage(f, 1, map[string]any{"messageType": "JobAssigned", "jobId": "a"}))
	f.Add([]byte(`{"messageId": 3, "messageType": "RunnerScaleSetJobMessages", "body": "[{\"messageType\":\"JobCompleted\",\"result\":\"canceled\"}]"}`))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Add([]byte(`{"messageType": "RunnerScaleSetJobMessages", "body": "[null]"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		if err != nil {
			if m != nil || !errors.Is(err, garrison.ErrUnprocessable) {
				t.Fatalf("ParseMessage = %v, %v: an error must be ErrUnprocessable with no message", m, err)
			}
			return
		}
		if len(m.Jobs) > maxBatch {
			t.Fatalf("%d jobs accepted", len(m.Jobs))
		}
	})
}

func encodeJIT(files map[string]string) string {
	b, _ := json.Marshal(files)
	return base64.StdEncoding.EncodeToString(b)
}

func TestDecodeJITConfig(t *testing.T) {
	good := map[string]string{".runner": base64.StdEncoding.EncodeToString([]byte(`{"agentId": 1}`)), ".credentials": "e30="}
	files, err := DecodeJITConfig(encodeJIT(good))
	if err != nil || len(files) != 2 || files[".runner"] != good[".runner"] {
		t.Fatalf("DecodeJITConfig = %v, %v", files, err)
	}
	bad := []struct{ name, in string }{
		{"not base64", "%%%"},
		{"not JSON", base64.StdEncoding.EncodeToString([]byte("nope"))},
		{"not a map of strings", base64.StdEncoding.EncodeToString([]byte(`{".runner": 1}`))},
		{"empty map", encodeJIT(map[string]string{})},
		{"file not base64", encodeJIT(map[string]string{".runner": "%%"})},
		{"empty file name", encodeJIT(map[string]string{"": "e30="})},
		{"empty", ""},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := DecodeJITConfig(tt.in); !errors.Is(err, garrison.ErrUnprocessable) {
				t.Fatalf("err = %v, want ErrUnprocessable", err)
			}
		})
	}
}

func FuzzDecodeJITConfig(f *testing.F) {
	f.Add(encodeJIT(map[string]string{".runner": "e30=", ".credentials": "e30="}))
	f.Add("")
	f.Add("e30=")
	f.Fuzz(func(t *testing.T, in string) {
		files, err := DecodeJITConfig(in)
		if err != nil {
			if files != nil || !errors.Is(err, garrison.ErrUnprocessable) {
				t.Fatalf("DecodeJITConfig = %v, %v", files, err)
			}
			return
		}
		if len(files) == 0 {
			t.Fatal("success with no file")
		}
		for name, content := range files {
			if name == "" {
				t.Fatal("empty file name accepted")
			}
			if _, err := base64.StdEncoding.DecodeString(content); err != nil {
				t.Fatalf("file %q not base64: %v", name, err)
			}
		}
	})
}

// BenchmarkParseMessage parses a full batch of 50 job events.
func BenchmarkParseMessage(b *testing.B) {
	events := make([]map[string]any, 50)
	for i := range events {
		events[i] = map[string]any{"messageType": "JobAssigned", "jobId": "bb518439-aa", "repositoryName": "repo",
			"ownerName": "org", "requestLabels": []string{"set"}, "queueTime": "2026-01-02T03:04:05Z"}
	}
	msg := wireMessage(b, 1, events...)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := ParseMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}
