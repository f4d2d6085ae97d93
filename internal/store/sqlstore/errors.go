package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/garrison-ci/garrison"
)

// wrap annotates a database error with the operation, keeping it in the chain.
func (s *Store) wrap(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.d.Name, op, err)
}

// noRows maps sql.ErrNoRows to a not-found error with the given message, wraps any other
// error and returns nil for nil.
func (s *Store) noRows(err error, op, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return garrison.Errorf(garrison.ENotFound, format, args...)
	}
	return s.wrap(op, err)
}

func notFound(format string, args ...any) error {
	return garrison.Errorf(garrison.ENotFound, format, args...)
}

func conflict(format string, args ...any) error {
	return garrison.Errorf(garrison.EConflict, format, args...)
}

func invalid(format string, args ...any) error {
	return garrison.Errorf(garrison.EInvalid, format, args...)
}

// exists reports whether query, a SELECT of one row, returns a row.
func (c conn) exists(ctx context.Context, query string, args ...any) (bool, error) {
	var one int
	err := c.row(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", c.d.Name, err)
	}
	return true, nil
}

// wrapErr wraps err like wrap, and returns nil for a nil err.
func (s *Store) wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return s.wrap(op, err)
}
