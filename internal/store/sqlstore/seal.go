package sqlstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"

	"github.com/garrison-ci/garrison/internal/store"
)

// Keys of the meta table.
const (
	metaSalt  = "seal_salt"
	metaCheck = "seal_check"
)

// saltSize is the length of the random salt created on first open.
const saltSize = 32

// checkPlaintext is sealed on first open and opened on every later one, so that a wrong
// passphrase is refused at once rather than when a secret is first read.
var checkPlaintext = []byte("garrison seal check v1")

// initSealer reads the salt (creating it on first open), makes the sealer and verifies it
// against the stored check value (creating that on first open).
func (s *Store) initSealer(ctx context.Context, newSealer store.NewSealer) error {
	salt := make([]byte, saltSize)
	if _, err := rand.Read(salt); err != nil {
		return fmt.Errorf("sqlstore: salt: %w", err)
	}
	salt, err := s.metaOnce(ctx, metaSalt, salt)
	if err != nil {
		return err
	}
	sealer, err := newSealer(salt)
	if err != nil {
		return fmt.Errorf("sqlstore: make sealer: %w", err)
	}
	check, err := sealer.Seal(checkPlaintext)
	if err != nil {
		return fmt.Errorf("sqlstore: seal check value: %w", err)
	}
	if check, err = s.metaOnce(ctx, metaCheck, check); err != nil {
		return err
	}
	if got, err := sealer.Open(check); err != nil || !bytes.Equal(got, checkPlaintext) {
		return store.ErrWrongPassphrase
	}
	s.sealer, s.salt = sealer, salt
	return nil
}

// metaOnce stores value under key unless the key exists, and returns the stored value.
func (s *Store) metaOnce(ctx context.Context, key string, value []byte) ([]byte, error) {
	var stored []byte
	err := s.write(ctx, func(c conn) error {
		_, err := c.exec(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, value)
		if err != nil {
			return err
		}
		return c.row(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&stored)
	})
	if err != nil {
		return nil, s.wrap("meta "+key, err)
	}
	return stored, nil
}

// seal seals a secret; an empty secret is stored as NULL.
func (s *Store) seal(plain []byte) (any, error) {
	if len(plain) == 0 {
		return nil, nil
	}
	b, err := s.sealer.Seal(plain)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: seal: %w", err)
	}
	return b, nil
}

// unseal opens a sealed secret; NULL or empty opens to nil.
func (s *Store) unseal(sealed []byte) ([]byte, error) {
	if len(sealed) == 0 {
		return nil, nil
	}
	b, err := s.sealer.Open(sealed)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: unseal: %w", err)
	}
	return b, nil
}
