package garmimport

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// SealFormat names the form a GARM sealed value was stored in.
type SealFormat string

// Sealed value formats (spec A.5.3, A.5.4).
const (
	FormatEnvelope SealFormat = "envelope" // GARM v0.1.4 and later
	FormatLegacy   SealFormat = "legacy"   // GARM v0.1.3 and earlier: AES-256-GCM, the passphrase as key
)

// envelopeNonceLen is the length of an envelope's nonce, the HKDF salt.
const envelopeNonceLen = 32

// legacy AES-256-GCM layout: nonce || ciphertext || tag.
const (
	legacyNonceLen = 12
	legacyTagLen   = 16
)

// envelope is GARM's current sealed form: {"nonce": [32 integers], "data": "<base64>"}.
type envelope struct {
	Nonce []int  `json:"nonce"`
	Data  []byte `json:"data"`
}

// unsealer opens GARM's sealed values with the installation's passphrase.
type unsealer struct {
	passphrase []byte
}

func newUnsealer(passphrase string) unsealer { return unsealer{passphrase: []byte(passphrase)} }

// open opens one sealed value and tells which format it had. A value that parses as a
// JSON object is an envelope; anything else is tried as the legacy form, as GARM does.
// Every failure wraps errCorrupt.
func (u unsealer) open(sealed []byte) ([]byte, SealFormat, error) {
	var env envelope
	if err := json.Unmarshal(sealed, &env); err == nil {
		plain, err := u.openEnvelope(env)
		return plain, FormatEnvelope, err
	}
	plain, err := u.openLegacy(sealed)
	return plain, FormatLegacy, err
}

// openEnvelope derives the value's key with HKDF-SHA256 (the passphrase as input
// keying material, the nonce as salt, no info) and opens its DARE stream.
func (u unsealer) openEnvelope(env envelope) ([]byte, error) {
	if len(env.Nonce) != envelopeNonceLen {
		return nil, fmt.Errorf("envelope nonce has %d bytes, want %d: %w", len(env.Nonce), envelopeNonceLen, errCorrupt)
	}
	salt := make([]byte, envelopeNonceLen)
	for i, n := range env.Nonce {
		if n < 0 || n > 255 {
			return nil, fmt.Errorf("envelope nonce byte %d is %d: %w", i, n, errCorrupt)
		}
		salt[i] = byte(n)
	}
	key, err := hkdf.Key(sha256.New, u.passphrase, salt, "", 32)
	if err != nil {
		return nil, fmt.Errorf("envelope key: %w", err)
	}
	return openDARE(key, env.Data)
}

// openLegacy opens nonce || AES-256-GCM ciphertext || tag with the passphrase as key.
func (u unsealer) openLegacy(sealed []byte) ([]byte, error) {
	if len(sealed) < legacyNonceLen+legacyTagLen {
		return nil, fmt.Errorf("legacy value of %d bytes is too short: %w", len(sealed), errCorrupt)
	}
	block, err := aes.NewCipher(u.passphrase)
	if err != nil {
		return nil, fmt.Errorf("legacy key: %v: %w", err, errCorrupt)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("legacy key: %w", err)
	}
	plain, err := gcm.Open(nil, sealed[:legacyNonceLen], sealed[legacyNonceLen:], nil)
	if err != nil {
		return nil, fmt.Errorf("legacy value: %w", errCorrupt)
	}
	return plain, nil
}
