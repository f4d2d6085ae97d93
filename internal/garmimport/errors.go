package garmimport

import "errors"

// The classes of failure of an import (spec B.9 exit statuses). Every error Run returns
// wraps one of them; tell them apart with errors.Is.
var (
	// ErrConfig: GARM's config.toml cannot be used (missing, unparsable, no passphrase,
	// an unknown backend). Exit status 2.
	ErrConfig = errors.New("GARM configuration unusable")
	// ErrSource: GARM's database cannot be read or opened (missing files, an unknown
	// schema, MySQL, a sealed value that does not open: wrong passphrase or corruption).
	// Exit status 4.
	ErrSource = errors.New("GARM database unreadable")
	// ErrNotEmpty: the garrison database holds data and Force was not set. Exit status 3.
	ErrNotEmpty = errors.New("the garrison database is not empty")
	// ErrBlocked: the plan has blocking problems (listed in the report), or GARM still
	// runs. Exit status 1.
	ErrBlocked = errors.New("import blocked")
)

// Exit statuses of `garrison import-garm` (spec B.9).
const (
	ExitOK       = 0
	ExitBlocked  = 1
	ExitConfig   = 2
	ExitNotEmpty = 3
	ExitSource   = 4
)

// ExitStatus is the process exit status for the error Run returned.
func ExitStatus(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrConfig):
		return ExitConfig
	case errors.Is(err, ErrNotEmpty):
		return ExitNotEmpty
	case errors.Is(err, ErrSource):
		return ExitSource
	}
	return ExitBlocked
}
