package intake

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/garrison-ci/garrison/internal/forge/webhook"
)

// TestLogsLimitedPerResult checks the receiver's logs: one line per result and interval,
// with the result named, and the next line after the interval counting the ones dropped.
func TestLogsLimitedPerResult(t *testing.T) {
	var buf bytes.Buffer
	e := newEnv(t, func(o *Options) { o.Logger = slog.New(slog.NewJSONHandler(&buf, nil)) })
	other := delivery{path: "/webhooks/not-this-controller"}
	badSig := gh(queued(14, stdLabels...), "d1")
	badSig.header.Set(webhook.HeaderSignature256, webhook.Signature256(badSig.body, []byte("wrong")))
	for range 3 {
		e.send(other)
	}
	e.send(badSig) // another result: logged at once
	e.clock.advance(DefaultLogEvery)
	e.send(other)

	type line struct {
		Msg        string `json:"msg"`
		Result     string `json:"result"`
		Suppressed int    `json:"suppressed"`
		Entity     string `json:"entity"`
	}
	var got []line
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var l line
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	want := []line{
		{"webhook: delivery for another controller ignored", string(ResultWrongController), 0, ""},
		{"webhook: signature check failed", string(ResultBadSignature), 0, "octo-org/octo-repo"},
		{"webhook: delivery for another controller ignored", string(ResultWrongController), 2, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("logged %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
