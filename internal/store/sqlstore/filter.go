package sqlstore

import "strings"

// filter builds the conditions of a list query from the filters that are set: one
// condition each, joined with AND. A filter that is not set adds nothing: a condition
// that also holds when its argument is empty (col = ? OR ? is empty) would keep the planner
// off the column's index, and a pool's repair would scan every instance, the job cache's
// read the whole ledger.
type filter struct {
	conds []string
	args  []any
}

// when adds cond, with its arguments, when set.
func (f *filter) when(set bool, cond string, args ...any) {
	if set {
		f.conds = append(f.conds, cond)
		f.args = append(f.args, args...)
	}
}

// where is the query's WHERE clause: " WHERE a AND b", or "" without conditions.
func (f filter) where() string {
	if len(f.conds) == 0 {
		return ""
	}
	return " WHERE " + f.and()
}

// and is the conditions alone ("1 = 1" without any), for a query with a WHERE of its own.
func (f filter) and() string {
	if len(f.conds) == 0 {
		return "1 = 1"
	}
	return strings.Join(f.conds, " AND ")
}
