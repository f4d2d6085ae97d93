package pgnotify

import (
	"errors"
	"fmt"
	"strings"
)

// Message is one notification between replicas: the sender's replica id, what kind of
// work (KindPool, KindScaleSet) and the keys of that work (pool ids, scale set ids).
type Message struct {
	From string
	Kind string
	Keys []string
}

// Kinds of work a message names.
const (
	KindPool     = "pool"
	KindScaleSet = "scaleset"
)

// Limits of a payload. PostgreSQL refuses payloads of 8000 bytes or more; a message with
// more keys is sent as several.
const (
	MaxPayload = 7900
	maxKey     = 200 // bytes of one key (pool ids are UUIDs, scale set ids numbers)
	version    = "v1"
)

// Encode returns the payloads carrying m, each under MaxPayload bytes. Keys that cannot
// be carried (empty, too long, or holding a space or a comma) are left out.
func Encode(m Message) []string {
	head := version + " " + m.From + " " + m.Kind + " "
	var (
		out []string
		b   strings.Builder
	)
	for _, k := range m.Keys {
		if validKey(k) != nil {
			continue
		}
		if b.Len() > 0 && len(head)+b.Len()+1+len(k) >= MaxPayload {
			out = append(out, head+b.String())
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
	}
	if b.Len() > 0 {
		out = append(out, head+b.String())
	}
	return out
}

// Decode parses a payload Encode made. Anyone who can connect to the database can send
// one: Decode checks every part.
func Decode(payload string) (Message, error) {
	if len(payload) >= MaxPayload {
		return Message{}, errors.New("pgnotify: payload too long")
	}
	parts := strings.Split(payload, " ")
	if len(parts) != 4 || parts[0] != version {
		return Message{}, errors.New("pgnotify: not a v1 message")
	}
	m := Message{From: parts[1], Kind: parts[2]}
	if err := validWord(m.From); err != nil {
		return Message{}, fmt.Errorf("pgnotify: sender: %w", err)
	}
	if err := validWord(m.Kind); err != nil {
		return Message{}, fmt.Errorf("pgnotify: kind: %w", err)
	}
	for _, k := range strings.Split(parts[3], ",") {
		if err := validKey(k); err != nil {
			return Message{}, fmt.Errorf("pgnotify: key: %w", err)
		}
		m.Keys = append(m.Keys, k)
	}
	return m, nil
}

// validWord checks a sender or kind: printable ASCII without spaces.
func validWord(s string) error {
	if s == "" || len(s) > maxKey {
		return errors.New("empty or too long")
	}
	for i := range len(s) {
		if c := s[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("byte %#x not allowed", c)
		}
	}
	return nil
}

// validKey checks a key: a word without commas.
func validKey(s string) error {
	if strings.Contains(s, ",") {
		return errors.New("comma in key")
	}
	return validWord(s)
}
