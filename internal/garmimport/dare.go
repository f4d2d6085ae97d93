package garmimport

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// DARE 2.0 (minio/sio), as GARM's envelopes carry it (spec A.5.3): a stream of packages,
// each a 16-byte header, the ciphertext of 1..65536 payload bytes and a 16-byte tag.
const (
	dareVersion     = 0x20
	dareHeaderSize  = 16
	dareTagSize     = 16
	dareMaxPayload  = 1 << 16
	dareFinalFlag   = 0x80 // top bit of header byte 4: the final package
	dareSuiteAESGCM = 0
	dareSuiteChaCha = 1
)

// errCorrupt is wrapped by every failure to open a sealed value: a wrong passphrase, a
// modified or truncated value, or one that is not GARM's format at all.
var errCorrupt = errors.New("wrong passphrase or corrupted value")

// openDARE decrypts a DARE 2.0 stream with key (32 bytes). An empty stream is an empty
// plaintext. Every package is authenticated, the stream nonce must be the same in all of
// them, only the last may be short and must carry the final flag, and nothing may follow
// it.
func openDARE(key, stream []byte) ([]byte, error) {
	if len(stream) == 0 {
		return []byte{}, nil
	}
	var (
		out   []byte
		aead  cipher.AEAD
		ref   [12]byte // the first package's stream nonce, final flag cleared
		suite byte
	)
	for seq := uint32(0); ; seq++ {
		if len(stream) < dareHeaderSize {
			return nil, fmt.Errorf("DARE package %d: truncated header: %w", seq, errCorrupt)
		}
		h := stream[:dareHeaderSize]
		if h[0] != dareVersion {
			return nil, fmt.Errorf("DARE package %d: version %#x: %w", seq, h[0], errCorrupt)
		}
		if seq == 0 {
			suite = h[1]
			var err error
			if aead, err = dareAEAD(suite, key); err != nil {
				return nil, err
			}
			copy(ref[:], h[4:])
			ref[0] &^= dareFinalFlag
		}
		if h[1] != suite {
			return nil, fmt.Errorf("DARE package %d: cipher suite changed: %w", seq, errCorrupt)
		}
		final := h[4]&dareFinalFlag != 0
		want := ref
		if final {
			want[0] |= dareFinalFlag
		}
		if !bytes.Equal(h[4:], want[:]) {
			return nil, fmt.Errorf("DARE package %d: nonce mismatch: %w", seq, errCorrupt)
		}
		size := int(binary.LittleEndian.Uint16(h[2:4])) + 1
		if !final && size != dareMaxPayload {
			return nil, fmt.Errorf("DARE package %d: short package before the final one: %w", seq, errCorrupt)
		}
		end := dareHeaderSize + size + dareTagSize
		if len(stream) < end {
			return nil, fmt.Errorf("DARE package %d: truncated payload: %w", seq, errCorrupt)
		}
		var nonce [12]byte
		copy(nonce[:], h[4:])
		binary.LittleEndian.PutUint32(nonce[8:], binary.LittleEndian.Uint32(nonce[8:])^seq)
		var err error
		out, err = aead.Open(out, nonce[:], stream[dareHeaderSize:end], h[:4])
		if err != nil {
			return nil, fmt.Errorf("DARE package %d: %w", seq, errCorrupt)
		}
		stream = stream[end:]
		if final {
			if len(stream) != 0 {
				return nil, fmt.Errorf("DARE: %d bytes after the final package: %w", len(stream), errCorrupt)
			}
			return out, nil
		}
		if len(stream) == 0 {
			return nil, fmt.Errorf("DARE: no final package: %w", errCorrupt)
		}
	}
}

// dareAEAD returns the AEAD of a DARE cipher suite.
func dareAEAD(suite byte, key []byte) (cipher.AEAD, error) {
	switch suite {
	case dareSuiteAESGCM:
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("DARE: %w", err)
		}
		return cipher.NewGCM(block)
	case dareSuiteChaCha:
		return chacha20poly1305.New(key)
	}
	return nil, fmt.Errorf("DARE: unknown cipher suite %d: %w", suite, errCorrupt)
}
