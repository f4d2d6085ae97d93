package garmimport

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// source is an open GARM database, read in one transaction.
type source struct {
	backend  string // backendSQLite or backendPostgres
	location string // for the report: a file path or user@host:port/database
	main     *sql.Tx
	blob     *sql.Tx // SQLite's blob database; nil when there is none (PostgreSQL: main)
	sizes    [2]int64
	tables   map[*sql.Tx]map[string]bool
	closers  []func() error
}

// close ends the transactions and closes the databases (and, for SQLite, removes the
// private copies).
func (s *source) close() error {
	var first error
	for _, c := range slices.Backward(s.closers) {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// begin starts the read transaction of db and registers its cleanup.
func (s *source) begin(ctx context.Context, db *sql.DB, opts *sql.TxOptions) (*sql.Tx, error) {
	s.closers = append(s.closers, db.Close)
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSource, s.location, err)
	}
	s.closers = append(s.closers, tx.Rollback)
	return tx, nil
}

// hasTable reports whether the database of tx has the table.
func (s *source) hasTable(ctx context.Context, tx *sql.Tx, table string) (bool, error) {
	if s.tables == nil {
		s.tables = map[*sql.Tx]map[string]bool{}
	}
	if s.tables[tx] == nil {
		names, err := s.strings(ctx, tx, s.tablesQuery())
		if err != nil {
			return false, err
		}
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		s.tables[tx] = m
	}
	return s.tables[tx][table], nil
}

func (s *source) tablesQuery() string {
	if s.backend == backendPostgres {
		return `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	return `SELECT name FROM sqlite_master WHERE type = 'table'`
}

// columns lists the columns of a table.
func (s *source) columns(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
	q := `SELECT name FROM pragma_table_info('` + table + `')`
	if s.backend == backendPostgres {
		q = `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = '` + table + `' ORDER BY ordinal_position`
	}
	return s.strings(ctx, tx, q)
}

// strings runs a query of one text column.
func (s *source) strings(ctx context.Context, tx *sql.Tx, q string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSource, s.location, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrSource, s.location, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSource, s.location, err)
	}
	return out, nil
}

// rows reads every live row of a table (deleted_at unset, where the table has that
// column) as column → value maps, ordered by orderBy. A missing table reads as no rows;
// columns the table lacks (older GARM) are absent from the maps. It also returns how
// many soft-deleted rows it skipped.
func (s *source) rows(ctx context.Context, tx *sql.Tx, table, orderBy string) ([]row, int, error) {
	if tx == nil {
		return nil, 0, nil
	}
	ok, err := s.hasTable(ctx, tx, table)
	if err != nil || !ok {
		return nil, 0, err
	}
	cols, err := s.columns(ctx, tx, table)
	if err != nil {
		return nil, 0, err
	}
	where, deleted := "", 0
	if slices.Contains(cols, "deleted_at") {
		where = ` WHERE deleted_at IS NULL`
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE deleted_at IS NOT NULL`).Scan(&deleted); err != nil {
			return nil, 0, fmt.Errorf("%w: %s: counting deleted rows of %s: %v", ErrSource, s.location, table, err)
		}
	}
	q := `SELECT ` + strings.Join(quoted(cols), ", ") + ` FROM ` + table + where
	if orderBy != "" {
		q += ` ORDER BY ` + orderBy
	}
	out, err := scanRows(ctx, tx, q, cols)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s: reading %s: %v", ErrSource, s.location, table, err)
	}
	return out, deleted, nil
}

// quoted double-quotes column names (both databases accept it; GARM has a column
// named "type").
func quoted(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = `"` + c + `"`
	}
	return out
}

func scanRows(ctx context.Context, tx *sql.Tx, q string, cols []string) ([]row, error) {
	rs, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := make(row, len(cols))
		for i, c := range cols {
			r[c] = vals[i]
		}
		out = append(out, r)
	}
	return out, rs.Err()
}
