// Package storetest is the conformance suite every store.Store backend must pass, with a
// test Sealer. Backends call Run from their tests.
package storetest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"

	"github.com/garrison-ci/garrison/internal/store"
)

// NewSealer returns a store.NewSealer for tests: AES-256-GCM with the key
// SHA-256(passphrase || salt). It is not a key derivation function; use it in tests only.
func NewSealer(passphrase string) store.NewSealer {
	return func(salt []byte) (store.Sealer, error) {
		if len(salt) == 0 {
			return nil, errors.New("storetest: empty salt")
		}
		key := sha256.Sum256(append([]byte(passphrase), salt...))
		block, err := aes.NewCipher(key[:])
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		return gcmSealer{aead}, nil
	}
}

type gcmSealer struct{ aead cipher.AEAD }

func (g gcmSealer) Seal(plaintext []byte) ([]byte, error) {
	nonce := make([]byte, g.aead.NonceSize(), g.aead.NonceSize()+len(plaintext)+g.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return g.aead.Seal(nonce, nonce, plaintext, nil), nil
}

func (g gcmSealer) Open(sealed []byte) ([]byte, error) {
	n := g.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("storetest: sealed value too short")
	}
	return g.aead.Open(nil, sealed[:n], sealed[n:], nil)
}

// Passphrase is the passphrase the suite expects backends to be opened with; open
// functions should pass NewSealer(Passphrase).
const Passphrase = "storetest passphrase"
