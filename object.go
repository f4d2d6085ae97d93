package garrison

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// FileObject is the catalogue entry of a file in the object store (rest-api-2 §7); the
// store keeps the content next to it, in chunks.
type FileObject struct {
	ID          uint
	Name        string
	Description string
	Size        int64
	SHA256      string // hex
	FileType    string // MIME type sniffed from the content
	Tags        []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// MaxObjectNameBytes bounds an object's name.
const MaxObjectNameBytes = 255

// ValidateObjectName checks an object name: a plain file name (it ends up in
// Content-Disposition and in the file a client writes), not a path.
func ValidateObjectName(name string) error {
	switch {
	case name == "":
		return Errorf(EInvalid, "name cannot be empty")
	case len(name) > MaxObjectNameBytes:
		return Errorf(EInvalid, "name is longer than %d bytes", MaxObjectNameBytes)
	case !utf8.ValidString(name):
		return Errorf(EInvalid, "name is not valid UTF-8")
	case name == "." || name == ".." || strings.ContainsAny(name, `/\`):
		return Errorf(EInvalid, "name must be a file name, not a path: %q", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0 || strings.ContainsRune(name, '"'):
		return Errorf(EInvalid, "name contains control characters or quotes")
	}
	return nil
}

// ParseObjectTags reads a comma-separated tag list: each tag trimmed and lower-cased,
// empties dropped, duplicates removed, first occurrence kept.
func ParseObjectTags(list string) []string {
	return NormalizeObjectTags(strings.Split(list, ","))
}

// NormalizeObjectTags trims and lower-cases tags, drops empties and duplicates.
func NormalizeObjectTags(tags []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
