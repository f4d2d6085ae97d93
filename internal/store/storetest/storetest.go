package storetest

import (
	"database/sql"
	"testing"

	"github.com/garrison-ci/garrison/internal/store"
)

// Backend is what the suite needs beyond opening a store.
type Backend struct {
	// Open returns a new, empty store opened with NewSealer(Passphrase). It registers
	// the store's Close with t.Cleanup; closing twice must be harmless.
	Open func(t *testing.T) store.Store
	// Reopen opens the database of s again, after the suite closed s, with newSealer.
	// Nil skips the reopen and passphrase cases.
	Reopen func(t *testing.T, s store.Store, newSealer store.NewSealer) (store.Store, error)
	// RawContains reports whether needle appears anywhere in the raw stored data of s
	// (every file for SQLite, every table's text for PostgreSQL). Nil skips the secrets
	// at rest case.
	RawContains func(t *testing.T, s store.Store, needle []byte) bool
	// DB returns a handle on the database of s, closed at cleanup, for checks in portable
	// SQL without placeholders. Nil skips the migration cases.
	DB func(t *testing.T, s store.Store) *sql.DB
	// OpenAt returns a new store on a database migrated only up to schema version, for
	// the cases that check what a later migration does to existing rows: they write rows
	// of the old schema with DB, close the store and apply the rest with Reopen. Nil (or
	// a nil Reopen or DB) skips them.
	OpenAt func(t *testing.T, version int64) store.Store
}

// Option adds a backend capability to Run.
type Option func(*Backend)

// WithReopen lets the suite reopen a database; see Backend.Reopen.
func WithReopen(fn func(t *testing.T, s store.Store, newSealer store.NewSealer) (store.Store, error)) Option {
	return func(b *Backend) { b.Reopen = fn }
}

// WithRawContains lets the suite search the raw stored data; see Backend.RawContains.
func WithRawContains(fn func(t *testing.T, s store.Store, needle []byte) bool) Option {
	return func(b *Backend) { b.RawContains = fn }
}

// WithDB lets the suite query a store's database directly; see Backend.DB.
func WithDB(fn func(t *testing.T, s store.Store) *sql.DB) Option {
	return func(b *Backend) { b.DB = fn }
}

// WithOpenAt lets the suite open a database at an older schema; see Backend.OpenAt.
func WithOpenAt(fn func(t *testing.T, version int64) store.Store) Option {
	return func(b *Backend) { b.OpenAt = fn }
}

// testCase is one conformance case.
type testCase struct {
	name string
	run  func(t *testing.T, b Backend, s store.Store)
}

// Run runs the conformance suite against stores made by open, each case in parallel on a
// store of its own.
func Run(t *testing.T, open func(t *testing.T) store.Store, opts ...Option) {
	b := Backend{Open: open}
	for _, o := range opts {
		o(&b)
	}
	var cases []testCase
	for _, group := range [][]testCase{
		controllerCases, userCases, endpointCases, credentialsCases, entityCases, forgeInstanceCases, proxyCases, objectCases, objectContentCases, eventCases,
		poolCases, scaleSetCases, instanceCases, instanceEventCases, jobCases, jobRecordCases, leaseCases, fencingCases, replicaCases, lifecycleCases, migrationCases, orderCases,
		importCases, importScaleSetCases, templateCases,
	} {
		cases = append(cases, group...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, b, b.Open(t))
		})
	}
}
