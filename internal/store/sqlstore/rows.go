package sqlstore

import "database/sql"

// collect scans every row with scan and closes rows. It never returns a nil slice.
func collect[T any](rows *sql.Rows, scan func(interface{ Scan(...any) error }) (T, error),
	wrap func(string, error) error) ([]T, error) {
	defer rows.Close()
	out := make([]T, 0)
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, wrap("scan", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("rows", err)
	}
	return out, nil
}
