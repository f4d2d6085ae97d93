package providerexec

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/provider"
)

func TestTailBufferKeepsTail(t *testing.T) {
	tb := &tailBuffer{max: 8}
	for _, s := range []string{"abc", "defghij", strings.Repeat("x", 20), "klmnopqrstuv"} {
		if n, err := tb.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		if len(tb.buf) > 2*tb.max {
			t.Fatalf("buffer grew to %d", len(tb.buf))
		}
	}
	if got := string(tb.bytes()); got != "opqrstuv" {
		t.Fatalf("tail = %q", got)
	}
}

func TestCapWriterStopsAtLimit(t *testing.T) {
	calls := 0
	w := &capWriter{max: 5, onOverflow: func() { calls++ }}
	if _, err := w.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := w.Write([]byte("def")); !errors.Is(err, errStdoutOverflow) {
			t.Fatalf("err = %v", err)
		}
	}
	if !w.overflow || calls != 1 || w.buf.String() != "abc" {
		t.Fatalf("overflow %v calls %d buf %q", w.overflow, calls, w.buf.String())
	}
}

func TestInvalidExtraSpecsNotSent(t *testing.T) {
	t.Parallel()
	p, _ := fakeProvider(t, "env", func(c *Config) { c.InterfaceVersion = provider.InterfaceV011 })
	_, err := p.ListInstances(t.Context(), provider.Target{PoolID: "p", ExtraSpecs: []byte("{not json")})
	if !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("error %v is not ErrInvalidRequest", err)
	}
}

// onlyReader hides a reader's WriteTo, as os/exec's copy of a pipe does.
type onlyReader struct{ io.Reader }

// TestReadFromAsWrite: the buffers read a provider's output for themselves (io.Copy then
// allocates no buffer of its own) and keep what their Write keeps.
func TestReadFromAsWrite(t *testing.T) {
	long := strings.Repeat("0123456789", 10_000) // several reads' worth
	tb := &tailBuffer{max: 8}
	if n, err := io.Copy(tb, onlyReader{strings.NewReader(long)}); n != int64(len(long)) || err != nil {
		t.Fatalf("tail: io.Copy = %d, %v", n, err)
	}
	if got := string(tb.bytes()); got != "23456789" {
		t.Fatalf("tail = %q", got)
	}
	w := &capWriter{max: int64(len(long)), onOverflow: func() { t.Error("overflow within the cap") }}
	if n, err := io.Copy(w, onlyReader{strings.NewReader(long)}); n != int64(len(long)) || err != nil || w.buf.String() != long {
		t.Fatalf("cap: io.Copy = %d, %v, kept %d bytes", n, err, w.buf.Len())
	}
	calls := 0
	w = &capWriter{max: 50_000, onOverflow: func() { calls++ }}
	if _, err := io.Copy(w, onlyReader{strings.NewReader(long)}); !errors.Is(err, errStdoutOverflow) {
		t.Fatalf("over the cap: err = %v", err)
	}
	if !w.overflow || calls != 1 || w.buf.Len() > 50_000 || !strings.HasPrefix(long, w.buf.String()) {
		t.Fatalf("over the cap: overflow %v calls %d kept %d bytes", w.overflow, calls, w.buf.Len())
	}
}
