package userdata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// DecodeStrict decodes a JSON object into v refusing unknown keys; empty
// input and null leave v unchanged.
func DecodeStrict(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return fmt.Errorf("%w: extra specs must be a JSON object", ErrInvalidSpec)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the extra specs object", ErrInvalidSpec)
	}
	return nil
}

// Schema returns a closed draft-07 object schema with props.
func Schema(title string, props map[string]any) json.RawMessage {
	doc := map[string]any{
		"$schema": "http://json-schema.org/draft-07/schema#", "title": title, "type": "object",
		"properties": props, "additionalProperties": false,
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // static maps of strings and numbers always marshal
	}
	return b
}
