package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/garrison-ci/garrison/internal/httperr"
	"io"
	"net/http"
)

// MaxBodyBytes is the largest request body the API reads; larger bodies get 413.
const MaxBodyBytes = 1 << 20

// decode reads r's JSON body into v. Unknown keys are ignored. Errors are 400s whose
// details start with "invalid request" and say what went wrong, or the 413 of an
// oversized body.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeLimited(w, r, v, MaxBodyBytes)
}

// decodeLimited is decode with a body limit of its own (template bodies are larger).
func decodeLimited(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return invalid("invalid request: could not read the body")
	}
	return decodeBytes(body, v)
}

// decodeBytes unmarshals one JSON value from body into v.
func decodeBytes(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return invalid("invalid request: %s", describeJSONError(err, int64(len(body))))
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("invalid request: unexpected data after the JSON value at offset %d", dec.InputOffset())
	}
	return nil
}

// describeJSONError says where and why JSON decoding failed, without echoing input; size
// is the body length, where a truncated body ends.
func describeJSONError(err error, size int64) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "empty body"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("unexpected EOF at offset %d", size)
	case errors.As(err, &syn):
		return fmt.Sprintf("%s at offset %d", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("json: cannot unmarshal %s into value of type %s", typ.Value, typ.Type)
		}
		return fmt.Sprintf("json: cannot unmarshal %s into field %s of type %s", typ.Value, typ.Field, typ.Type)
	}
	return "malformed JSON"
}

// writeJSON writes v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) { httperr.WriteJSON(w, status, v) }

// writeOK writes v with 200.
func writeOK(w http.ResponseWriter, v any) { writeJSON(w, http.StatusOK, v) }

// writeEmpty answers a successful delete with an empty 200 JSON response.
func writeEmpty(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
}

// writeNoContent answers a successful endpoint or credentials delete.
func writeNoContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }
