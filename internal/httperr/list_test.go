package httperr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

type listItem struct {
	Name    string            `json:"name"`
	Labels  map[string]string `json:"labels,omitempty"`
	Created time.Time         `json:"created_at"`
	HTML    string            `json:"html"`
}

// ptrMarshaler encodes itself through a pointer receiver, as json.Marshal of a slice
// does for addressable elements.
type ptrMarshaler struct{ n int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `{"n":%d}`, p.n), nil }

// selfList is a slice type that encodes itself: WriteJSON must not take it apart.
type selfList []int

func (selfList) MarshalJSON() ([]byte, error) { return []byte(`"self"`), nil }

// failing fails to encode from element fail on.
type failing struct{ i, fail int }

func (f failing) MarshalJSON() ([]byte, error) {
	if f.i >= f.fail {
		return nil, errors.New("boom")
	}
	return []byte(`1`), nil
}

func items(n int) []listItem {
	out := make([]listItem, n)
	for i := range out {
		out[i] = listItem{Name: fmt.Sprint("runner-", i), Labels: map[string]string{"b": "2", "a": "1"},
			Created: time.Unix(int64(i), 0).UTC(), HTML: "<a&b>"}
	}
	return out
}

// WriteJSON writes what json.Marshal gives, streamed or not.
func TestWriteJSONListMatchesMarshal(t *testing.T) {
	ptrs := make([]ptrMarshaler, 100)
	for i := range ptrs {
		ptrs[i].n = i
	}
	cases := map[string]any{
		"short list":         items(3),
		"long list":          items(5000),
		"exactly the bound":  items(listStreamed),
		"pointer marshalers": ptrs,
		"maps":               []map[string]int{{"z": 1, "a": 2}, {}},
		"nil list":           []listItem(nil),
		"empty list":         []listItem{},
		"bytes":              bytes.Repeat([]byte("x"), 1000),
		"self-encoding list": selfList(make([]int, 200)),
		"pointers":           []*listItem{nil, {Name: "x"}},
		"strings":            make([]string, 300),
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			WriteJSON(rec, http.StatusCreated, v)
			if rec.Code != http.StatusCreated || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("answer %d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			if got := rec.Body.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("body differs from json.Marshal:\n got %.200s\nwant %.200s", got, want)
			}
		})
	}
}

// countingWriter records the size of each write.
type countingWriter struct {
	*httptest.ResponseRecorder
	writes []int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.writes = append(c.writes, len(b))
	return c.ResponseRecorder.Write(b)
}

// A long list goes out in chunks: no write holds more than a chunk and an element.
func TestWriteJSONListIsChunked(t *testing.T) {
	w := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
	WriteJSON(w, http.StatusOK, items(5000))
	if len(w.writes) < 2 {
		t.Fatalf("%d writes for %d bytes; want the list in chunks", len(w.writes), w.Body.Len())
	}
	for _, n := range w.writes {
		if n > listChunk+1024 {
			t.Fatalf("a write of %d bytes; want at most about %d", n, listChunk)
		}
	}
}

// An element that does not encode: before anything is sent, the 500 answer; after, the
// connection is cut.
func TestWriteJSONListFailures(t *testing.T) {
	list := func(fail int) []failing {
		out := make([]failing, 5000)
		for i := range out {
			out[i] = failing{i: i, fail: fail}
		}
		return out
	}
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, list(0))
	if rec.Code != http.StatusInternalServerError || rec.Body.String() != string(serverErrorBody) {
		t.Fatalf("first element fails: %d %s", rec.Code, rec.Body)
	}
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Fatalf("a later element fails: recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	WriteJSON(httptest.NewRecorder(), http.StatusOK, list(4000))
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}

// BenchmarkWriteJSONList10k: answering a list of 10,000 items, against json.Marshal of
// the whole list. B/op understates json.Marshal's cost: its growing buffer is pooled and
// reused across iterations, while a server holds it and its copy at once per answer.
func BenchmarkWriteJSONList10k(b *testing.B) {
	list := items(10_000)
	b.Run("streamed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			WriteJSON(discardWriter{http.Header{}}, http.StatusOK, list)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(list); err != nil {
				b.Fatal(err)
			}
		}
	})
}
