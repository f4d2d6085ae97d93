package garmimport

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Report says what an import found, did or would do (spec B.9). It never holds a secret.
type Report struct {
	DryRun        bool                  `json:"dry_run"`
	Source        SourceInfo            `json:"source"`
	Target        TargetInfo            `json:"target"`
	Secrets       SecretsInfo           `json:"secrets"`
	Objects       map[string]*KindCount `json:"objects"`
	Renumbered    []Renumbering         `json:"renumbered"`
	StatusChanges map[string]int        `json:"status_changes"`
	NotImported   []NotImported         `json:"not_imported"`
	Warnings      []string              `json:"warnings"`
	Blocking      []string              `json:"blocking"`
	Notes         []string              `json:"notes"`
	Result        string                `json:"result"`

	// adoptJWT is GARM's JWT secret when the caller should make it garrison's (never
	// serialised).
	adoptJWT string
}

// SourceInfo describes the GARM installation read.
type SourceInfo struct {
	Backend      string `json:"backend"`
	Location     string `json:"location"`
	Layout       string `json:"layout"`
	ControllerID string `json:"controller_id"`
	MainDBBytes  int64  `json:"main_db_bytes,omitempty"`
	BlobDBBytes  int64  `json:"blob_db_bytes,omitempty"`
}

// TargetInfo describes the garrison database written.
type TargetInfo struct {
	Location string `json:"location"`
	Empty    bool   `json:"empty"`
	Holds    string `json:"holds,omitempty"` // what a non-empty target holds
}

// SecretsInfo counts the sealed values opened.
type SecretsInfo struct {
	Opened   int      `json:"opened"`
	Total    int      `json:"total"`
	Legacy   int      `json:"legacy"`
	Failures []string `json:"failures"`
}

// KindCount counts one kind of object.
type KindCount struct {
	Found     int      `json:"found"`
	Imported  int      `json:"imported"`
	Skipped   int      `json:"skipped"`
	Conflicts []string `json:"conflicts,omitempty"`
}

// Renumbering is an id that could not be kept.
type Renumbering struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Old  uint   `json:"old"`
	New  uint   `json:"new"`
}

// NotImported is something garrison cannot hold (yet), with what that means. InUse
// ones block the import unless the caller skips them knowingly.
type NotImported struct {
	Text  string `json:"text"`
	InUse bool   `json:"in_use"`
}

// Kinds of objects, in report order.
var kindOrder = []string{
	"users", "endpoints", "credentials", "repositories", "organizations", "enterprises", "forge instances",
	"pools", "tags", "instances", "jobs", "entity events", "status messages", "templates", "proxies",
	"scale sets", "file objects",
}

func newReport(dryRun bool) *Report {
	r := &Report{DryRun: dryRun, Objects: map[string]*KindCount{}, StatusChanges: map[string]int{},
		Renumbered: []Renumbering{}, NotImported: []NotImported{}, Warnings: []string{}, Blocking: []string{},
		Notes: []string{}, Secrets: SecretsInfo{Failures: []string{}}}
	for _, k := range kindOrder {
		r.Objects[k] = &KindCount{}
	}
	return r
}

// AdoptJWTSecret returns GARM's JWT secret when the import decided garrison should sign
// and check tokens with it (so garm-cli logins, metrics tokens and the tokens of booting
// runners keep working), and whether it did.
func (r *Report) AdoptJWTSecret() (string, bool) { return r.adoptJWT, r.adoptJWT != "" }

func (r *Report) kind(k string) *KindCount { return r.Objects[k] }

func (r *Report) warnf(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

func (r *Report) blockf(format string, args ...any) {
	r.Blocking = append(r.Blocking, fmt.Sprintf(format, args...))
}

func (r *Report) notef(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// notImported lists something garrison cannot hold; in use and not skipped, it blocks.
func (r *Report) notImported(inUse, skip bool, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	r.NotImported = append(r.NotImported, NotImported{Text: text, InUse: inUse})
	if inUse && !skip {
		r.Blocking = append(r.Blocking, text+" (pass --skip-unsupported to import without it)")
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.DryRun {
		b.WriteString("garrison import-garm: DRY RUN — nothing will be written\n")
	}
	s := r.Source
	fmt.Fprintf(&b, "source   %s %s, layout: %s\n", s.Backend, s.Location, s.Layout)
	if s.ControllerID != "" {
		fmt.Fprintf(&b, "         controller %s\n", s.ControllerID)
	}
	empty := "empty"
	if !r.Target.Empty {
		empty = "not empty: " + r.Target.Holds
	}
	fmt.Fprintf(&b, "target   %s — %s\n", r.Target.Location, empty)
	fmt.Fprintf(&b, "secrets  %d/%d opened (%d envelope, %d legacy)\n", r.Secrets.Opened, r.Secrets.Total,
		r.Secrets.Opened-r.Secrets.Legacy, r.Secrets.Legacy)
	b.WriteString("objects  " + r.objectsLine() + "\n")
	r.writeIDs(&b)
	r.writeStatus(&b)
	section(&b, "not imported (! = in use: blocks unless --skip-unsupported)", r.notImportedLines())
	section(&b, "notes", r.Notes)
	section(&b, "warnings", r.Warnings)
	section(&b, "blocking", r.Blocking)
	fmt.Fprintf(&b, "result   %s\n", r.Result)
	_, err := io.WriteString(w, b.String())
	return err
}

// objectsLine is "kind imported/found · ..." for the kinds found.
func (r *Report) objectsLine() string {
	verb := "imported"
	if r.DryRun {
		verb = "to import"
	}
	var parts []string
	for _, k := range kindOrder {
		c := r.Objects[k]
		if c.Found == 0 {
			continue
		}
		p := fmt.Sprintf("%s %d", k, c.Found)
		if c.Imported != c.Found {
			p += fmt.Sprintf(" (%s %d)", verb, c.Imported)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

func (r *Report) writeIDs(b *strings.Builder) {
	if len(r.Renumbered) == 0 {
		b.WriteString("ids      all kept\n")
		return
	}
	var parts []string
	for _, n := range r.Renumbered {
		parts = append(parts, fmt.Sprintf("%s %q: id %d → %d", n.Kind, n.Name, n.Old, n.New))
	}
	b.WriteString("ids      all kept except: " + strings.Join(parts, "; ") + "\n")
}

func (r *Report) writeStatus(b *strings.Builder) {
	if len(r.StatusChanges) == 0 {
		return
	}
	keys := make([]string, 0, len(r.StatusChanges))
	for k := range r.StatusChanges {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.StatusChanges[k]))
	}
	b.WriteString("status   instances: " + strings.Join(parts, " · ") + "\n")
}

func (r *Report) notImportedLines() []string {
	out := make([]string, 0, len(r.NotImported))
	for _, n := range r.NotImported {
		mark := "-"
		if n.InUse {
			mark = "!"
		}
		out = append(out, mark+" "+n.Text)
	}
	return out
}

// section writes a titled list, one indented line per entry; nothing when empty.
func section(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, l := range lines {
		b.WriteString("         " + l + "\n")
	}
}
