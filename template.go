package garrison

import (
	"strings"
	"time"
)

// SystemOwner is the owner of the built-in (system) runner install templates. User
// templates are owned by their creator's username.
const SystemOwner = "system"

// MaxTemplateBytes is the largest runner install template garrison stores (the stock
// CLI refuses files over 1 MiB too).
const MaxTemplateBytes = 1 << 20

// Template is a runner install template: a text/template script (bash for linux,
// PowerShell for windows) that the metadata service renders for each runner of the pools
// that use it (rest-api-2.md §3).
type Template struct {
	ID          uint
	Name        string // unique, case-insensitively
	Description string
	OSType      string // linux or windows
	ForgeType   ForgeType
	Data        []byte // the template source
	Owner       string // SystemOwner, or the username of the user who created it
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// IsSystem reports whether t is one of the built-in templates.
func (t Template) IsSystem() bool { return t.Owner == SystemOwner }

// Validate checks the invariants every stored template must satisfy; the text of each
// error is the message GARM gives for the same mistake. It does not parse Data.
func (t Template) Validate() error {
	switch {
	case strings.TrimSpace(t.Name) == "":
		return Errorf(EInvalid, "name cannot be empty")
	case len(t.Data) == 0:
		return Errorf(EInvalid, "template data is empty")
	case len(t.Data) > MaxTemplateBytes:
		return Errorf(EInvalid, "template data is larger than %d bytes", MaxTemplateBytes)
	case !ValidOSType(t.OSType):
		return Errorf(EInvalid, "invalid OS type: %q", t.OSType)
	case !t.ForgeType.Valid():
		return Errorf(EInvalid, "invalid forge type: %q", t.ForgeType)
	}
	return nil
}
