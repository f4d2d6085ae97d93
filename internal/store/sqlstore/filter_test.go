package sqlstore

import (
	"slices"
	"testing"
)

func TestFilter(t *testing.T) {
	for _, tt := range []struct {
		name       string
		build      func(*filter)
		where, and string
		args       []any
	}{
		{"nothing set", func(f *filter) { f.when(false, "a = ?", 1) }, "", "1 = 1", nil},
		{"one set", func(f *filter) { f.when(false, "a = ?", 1); f.when(true, "b = ?", 2) }, " WHERE b = ?", "b = ?", []any{2}},
		{"two set", func(f *filter) { f.when(true, "a = ?", 1); f.when(true, "b IN (?, ?)", 2, 3) },
			" WHERE a = ? AND b IN (?, ?)", "a = ? AND b IN (?, ?)", []any{1, 2, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f filter
			tt.build(&f)
			if f.where() != tt.where || f.and() != tt.and || !slices.Equal(f.args, tt.args) {
				t.Fatalf("where %q, and %q, args %v; want %q, %q, %v", f.where(), f.and(), f.args, tt.where, tt.and, tt.args)
			}
		})
	}
}
