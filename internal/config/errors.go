package config

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrNotSupported is wrapped by the *FieldError of a documented key set to a value
// garrison does not implement yet (it refuses the value rather than ignore it).
var ErrNotSupported = errors.New("not supported yet")

// FieldError reports a key whose value is missing, of the wrong type or not
// acceptable. Key is the dotted TOML path, e.g. "apiserver.port" or
// "provider[1].external.config_file" for an entry of an array of tables.
type FieldError struct {
	Key     string // dotted TOML key
	Problem string // what is wrong and what is expected
	Err     error  // a sentinel such as ErrNotSupported, or nil
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Problem }

// Unwrap returns the sentinel the problem is an instance of, if any.
func (e *FieldError) Unwrap() error { return e.Err }

// UnknownKeyError reports a key that garrison does not know. Suggestion, when
// not empty, is a known key of the same table with a similar name.
type UnknownKeyError struct {
	Key        string // dotted TOML key as written
	Suggestion string // a similar known key of the same table, or ""
}

func (e *UnknownKeyError) Error() string {
	msg := "unknown key " + strconv.Quote(e.Key)
	if e.Suggestion != "" {
		msg += " (did you mean " + strconv.Quote(e.Suggestion) + "?)"
	}
	return msg
}

// SyntaxError reports a document that is not valid TOML.
type SyntaxError struct {
	Line, Column int    // 1-based position of the problem, 0 if unknown
	Message      string // the parser's description
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid TOML at line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// problems collects errors (or warnings) in the order they are found.
type problems struct{ errs []error }

// field records a *FieldError for key.
func (p *problems) field(key, format string, args ...any) {
	p.errs = append(p.errs, &FieldError{Key: key, Problem: fmt.Sprintf(format, args...)})
}

// add records err as is.
func (p *problems) add(err error) { p.errs = append(p.errs, err) }
