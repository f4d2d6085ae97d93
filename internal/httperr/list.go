package httperr

import (
	"bytes"
	"encoding"
	"encoding/json"
	"net/http"
	"reflect"
)

// listStreamed is the length from which WriteJSON streams a list; listChunk is how much
// of it is encoded before it is written.
const (
	listStreamed = 64
	listChunk    = 32 << 10
)

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// streamable reports whether v is a list WriteJSON streams: a slice of listStreamed
// elements or more, not bytes, whose type does not encode itself.
func streamable(v any) (reflect.Value, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.Len() < listStreamed {
		return rv, false
	}
	t := rv.Type()
	if t.Elem().Kind() == reflect.Uint8 {
		return rv, false // []byte is base64 text
	}
	for _, m := range []reflect.Type{jsonMarshaler, textMarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return rv, false
		}
	}
	return rv, true
}

// writeList writes list as a JSON array, byte for byte what json.Marshal gives, encoding
// listChunk at a time: a list of 10,000 instances is never held in memory whole (nor
// twice, as json.Marshal's buffer and its copy). An element that does not encode before
// anything is sent gives the 500 answer; after, the connection is cut (the answer has no
// end, so no client takes it for a whole list).
func writeList(w http.ResponseWriter, status int, list reflect.Value) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	encode := func(i int) error {
		if err := enc.Encode(list.Index(i).Addr().Interface()); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode ends each value with a newline
		return nil
	}
	buf.WriteByte('[')
	if err := encode(0); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write(serverErrorBody)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	for i := 1; i < list.Len(); i++ {
		if buf.Len() >= listChunk {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return // the client went away
			}
			buf.Reset()
		}
		buf.WriteByte(',')
		if err := encode(i); err != nil {
			panic(http.ErrAbortHandler)
		}
	}
	buf.WriteByte(']')
	_, _ = w.Write(buf.Bytes())
}
