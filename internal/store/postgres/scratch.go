package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
)

// scratchPrefix is what a scratch database's name prefix may hold.
var scratchPrefix = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// CreateScratchDatabase creates a new, randomly named database (prefix followed by 12 hex
// digits) on the server of serverDSN, a postgres:// URL of a role allowed to create
// databases, for the replica tests and the bench. It returns a DSN for the new database
// and a function that drops it (closing whatever connections are left).
func CreateScratchDatabase(ctx context.Context, serverDSN, prefix string) (string, func(context.Context) error, error) {
	if !scratchPrefix.MatchString(prefix) {
		return "", nil, fmt.Errorf("postgres: scratch database prefix %q: want lower-case letters, digits and _", prefix)
	}
	u, err := url.Parse(serverDSN)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, errors.New("postgres: the server DSN of a scratch database must be a postgres:// URL")
	}
	admin, err := sql.Open("pgx", serverDSN)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	name := prefix + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, errors.Join(fmt.Errorf("postgres: creating database %s: %w", name, err), admin.Close())
	}
	drop := func(ctx context.Context) error {
		_, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		if err != nil {
			err = fmt.Errorf("postgres: dropping database %s: %w", name, err)
		}
		return errors.Join(err, admin.Close())
	}
	db := *u
	db.Path = "/" + name
	return db.String(), drop, nil
}
