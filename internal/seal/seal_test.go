package seal

import (
	"bytes"
	"errors"
	"sync"
	"testing"
)

var (
	salt1 = bytes.Repeat([]byte{0x5a}, SaltLen)
	salt2 = bytes.Repeat([]byte{0xa5}, SaltLen)

	boxOnce  sync.Once
	box      *Box
	errBoxes error
)

const pass1 = "correct horse battery staple 0123"

// testBox derives the shared test key once (derivation is slow on purpose).
func testBox(t testing.TB) *Box {
	t.Helper()
	boxOnce.Do(func() { box, errBoxes = New(pass1, salt1) })
	if errBoxes != nil {
		t.Fatal(errBoxes)
	}
	return box
}

func TestRoundTrip(t *testing.T) {
	b := testBox(t)
	for _, pt := range [][]byte{nil, {}, []byte("x"), []byte("ghp_0123456789abcdef"), bytes.Repeat([]byte{0}, 1<<16)} {
		sealed, err := b.Seal(pt)
		if err != nil {
			t.Fatal(err)
		}
		if len(sealed) != len(pt)+Overhead || sealed[0] != Version {
			t.Fatalf("sealed %d bytes as %d bytes, version %d", len(pt), len(sealed), sealed[0])
		}
		got, err := b.Open(sealed)
		if err != nil {
			t.Fatalf("Open(%d bytes): %v", len(pt), err)
		}
		if !bytes.Equal(got, pt) || got == nil {
			t.Fatalf("round trip of %d bytes gave %d bytes (nil=%v)", len(pt), len(got), got == nil)
		}
	}
}

func TestSealUsesFreshNonces(t *testing.T) {
	b := testBox(t)
	a, _ := b.Seal([]byte("same"))
	c, _ := b.Seal([]byte("same"))
	if bytes.Equal(a, c) {
		t.Fatal("two seals of the same plaintext are identical")
	}
}

func TestOpenRejectsTampering(t *testing.T) {
	b := testBox(t)
	good, err := b.Seal([]byte("webhook-secret"))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		c := bytes.Clone(good)
		c[i] ^= 0x01
		return c
	}
	tests := []struct {
		name   string
		sealed []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"version only", good[:1]},
		{"one short of minimum", good[:Overhead-1]},
		{"truncated tag", good[:len(good)-1]},
		{"extra byte", append(bytes.Clone(good), 0)},
		{"flipped version", flip(0)},
		{"version zero", append([]byte{0}, good[1:]...)},
		{"flipped nonce", flip(1)},
		{"flipped last nonce byte", flip(nonceLen)},
		{"flipped ciphertext", flip(1 + nonceLen)},
		{"flipped tag", flip(len(good) - 1)},
		{"foreign data", bytes.Repeat([]byte{Version}, 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pt, err := b.Open(tt.sealed)
			if !errors.Is(err, ErrDecrypt) || pt != nil {
				t.Fatalf("Open = %q, %v; want nil, ErrDecrypt", pt, err)
			}
		})
	}
}

func TestOpenWithWrongKey(t *testing.T) {
	sealed, err := testBox(t).Seal([]byte("token"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, pass string
		salt       []byte
	}{
		{"wrong passphrase", pass1 + "!", salt1},
		{"wrong salt", pass1, salt2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other, err := New(tt.pass, tt.salt)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := other.Open(sealed); !errors.Is(err, ErrDecrypt) {
				t.Fatalf("Open with %s: %v, want ErrDecrypt", tt.name, err)
			}
		})
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, pass string
		salt       []byte
	}{
		{"empty passphrase", "", salt1},
		{"nil salt", pass1, nil},
		{"short salt", pass1, salt1[:MinSaltLen-1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.pass, tt.salt); err == nil {
				t.Fatal("New succeeded")
			}
		})
	}
}

func TestNewSalt(t *testing.T) {
	a, err := NewSalt()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSalt()
	if len(a) != SaltLen || bytes.Equal(a, b) {
		t.Fatalf("NewSalt gave %x and %x", a, b)
	}
}

// TestKeyDerivedOnce checks that the slow KDF runs in New only, never per
// Seal or Open.
func TestKeyDerivedOnce(t *testing.T) {
	calls := 0
	orig := deriveKey
	deriveKey = func(p string, s []byte) ([]byte, error) {
		calls++
		return bytes.Repeat([]byte{7}, keyLen), nil // fast stand-in
	}
	t.Cleanup(func() { deriveKey = orig })

	b, err := New("pass", salt1)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		sealed, err := b.Seal([]byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Open(sealed); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Fatalf("KDF ran %d times, want 1", calls)
	}
}

func TestConcurrentUse(t *testing.T) {
	b := testBox(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				s, err := b.Seal([]byte("concurrent"))
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := b.Open(s); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzOpen(f *testing.F) {
	b := testBox(f)
	good, _ := b.Seal([]byte("seed"))
	empty, _ := b.Seal(nil)
	for _, s := range [][]byte{nil, {Version}, good, empty, good[:len(good)-1], bytes.Repeat([]byte{Version}, Overhead)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sealed []byte) {
		pt, err := b.Open(sealed)
		if err != nil {
			if !errors.Is(err, ErrDecrypt) {
				t.Fatalf("Open error %v does not match ErrDecrypt", err)
			}
			return
		}
		// Only genuine seals may open; resealing must round-trip.
		again, err := b.Seal(pt)
		if err != nil {
			t.Fatal(err)
		}
		if pt2, err := b.Open(again); err != nil || !bytes.Equal(pt, pt2) {
			t.Fatalf("reseal round trip failed: %v", err)
		}
	})
}

func BenchmarkSeal(b *testing.B) {
	bx := testBox(b)
	pt := bytes.Repeat([]byte("s"), 256)
	b.SetBytes(int64(len(pt)))
	for b.Loop() {
		if _, err := bx.Seal(pt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	bx := testBox(b)
	sealed, _ := bx.Seal(bytes.Repeat([]byte("s"), 256))
	b.SetBytes(256)
	for b.Loop() {
		if _, err := bx.Open(sealed); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(pass1, salt1); err != nil {
			b.Fatal(err)
		}
	}
}
