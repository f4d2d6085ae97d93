package providerexec

import (
	"errors"
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
