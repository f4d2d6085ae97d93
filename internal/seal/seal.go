// Package seal encrypts secrets at rest (forge tokens, webhook secrets,
// private keys) with AES-256-GCM.
//
// The 256-bit key is derived once from the operator's passphrase and a
// per-database random salt with PBKDF2-HMAC-SHA256 (KDFIterations rounds).
// The store generates the salt with NewSalt when it creates the database,
// persists it next to the data, and passes it to New on every start.
// Derivation is deliberately slow; do it once and reuse the *Box, which is
// safe for concurrent use.
//
// A sealed value is
//
//	version (1 byte, Version) || nonce (12 random bytes) || ciphertext || GCM tag (16 bytes)
//
// with the version byte also authenticated as additional data. Open rejects
// anything that is not such a value under this key — wrong passphrase or
// salt, truncated, modified, foreign — with an error matching ErrDecrypt.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

const (
	// Version is the format byte that starts every sealed value.
	Version byte = 1
	// KDFIterations is the PBKDF2-HMAC-SHA256 work factor (OWASP 2023).
	KDFIterations = 600_000
	// SaltLen is the length of a salt made by NewSalt.
	SaltLen = 32
	// MinSaltLen is the shortest salt New accepts.
	MinSaltLen = 16
	// Overhead is how many bytes Seal adds to the plaintext.
	Overhead = 1 + nonceLen + tagLen

	keyLen   = 32 // AES-256
	nonceLen = 12 // GCM standard nonce
	tagLen   = 16 // GCM tag
)

// ErrDecrypt is matched (errors.Is) by every Open failure.
var ErrDecrypt = errors.New("seal: cannot decrypt: wrong passphrase or salt, or corrupted data")

// Box seals and opens values under one derived key. It is safe for
// concurrent use.
type Box struct {
	aead cipher.AEAD // AES-256-GCM under the derived key; immutable
}

// NewSalt returns SaltLen random bytes for a new database.
func NewSalt() ([]byte, error) {
	salt := make([]byte, SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, fmt.Errorf("seal: generating salt: %w", err)
	}
	return salt, nil
}

// New derives the key from passphrase and salt (slow, by design) and
// returns a Box using it.
func New(passphrase string, salt []byte) (*Box, error) {
	if passphrase == "" {
		return nil, errors.New("seal: empty passphrase")
	}
	if len(salt) < MinSaltLen {
		return nil, fmt.Errorf("seal: salt must be at least %d bytes, got %d", MinSaltLen, len(salt))
	}
	key, err := deriveKey(passphrase, salt)
	if err != nil {
		return nil, fmt.Errorf("seal: deriving key: %w", err)
	}
	return newBox(key)
}

// deriveKey is the KDF; a variable so tests can count calls.
var deriveKey = func(passphrase string, salt []byte) ([]byte, error) {
	return pbkdf2.Key(sha256.New, passphrase, salt, KDFIterations, keyLen)
}

// newBox builds a Box from a raw 32-byte key.
func newBox(key []byte) (*Box, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Box{aead: aead}, nil
}

// versionAD is the additional data: the format version byte.
var versionAD = []byte{Version}

// Seal encrypts plaintext (which may be empty) under a fresh random nonce.
func (b *Box) Seal(plaintext []byte) ([]byte, error) {
	out := make([]byte, 1+nonceLen, Overhead+len(plaintext))
	out[0] = Version
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("seal: generating nonce: %w", err)
	}
	return b.aead.Seal(out, out[1:], plaintext, versionAD), nil
}

// Open authenticates and decrypts a value made by Seal. It never panics;
// every failure matches ErrDecrypt. The result is a new slice (empty, not
// nil, for an empty plaintext).
func (b *Box) Open(sealed []byte) ([]byte, error) {
	if len(sealed) < Overhead {
		return nil, fmt.Errorf("%w (too short: %d bytes)", ErrDecrypt, len(sealed))
	}
	if sealed[0] != Version {
		return nil, fmt.Errorf("%w (unknown format version %d)", ErrDecrypt, sealed[0])
	}
	nonce, ct := sealed[1:1+nonceLen], sealed[1+nonceLen:]
	pt, err := b.aead.Open(make([]byte, 0, len(ct)-tagLen), nonce, ct, versionAD)
	if err != nil {
		return nil, ErrDecrypt
	}
	return pt, nil
}
