package bootstrap

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// WrapperParams is what the bootstrap wrapper embeds.
type WrapperParams struct {
	MetadataURL   string // the instance's metadata base URL
	CallbackURL   string // the instance's callback base URL
	InstanceToken string // the instance JWT
	HTTPProxy     string
	HTTPSProxy    string
	NoProxy       string
	CACertBundle  []byte // PEM; trusted by the wrapper's own downloads when set
}

// ErrUnsupportedOS is returned for an OS type that has no script.
var ErrUnsupportedOS = errors.New("bootstrap: unsupported OS type")

// ErrInvalidExtraSpecs is returned by InjectTemplate for extra specs that are not JSON.
var ErrInvalidExtraSpecs = errors.New("bootstrap: extra specs are not valid JSON")

// TemplateKey is the extra-specs key holding a base64 runner install template.
const TemplateKey = "runner_install_template"

// wrapperFiles maps an OS type to its bootstrap wrapper.
var wrapperFiles = map[string]string{OSLinux: "wrapper_linux.sh.tmpl", OSWindows: "wrapper_windows.ps1.tmpl"}

// wrapperTemplates is wrapperFiles parsed.
var wrapperTemplates = templatesByOS(wrapperFiles)

// wrapperData is the template input: params plus the bundle as base64.
type wrapperData struct {
	WrapperParams
	CABundleB64 string
}

// Wrapper returns the bootstrap wrapper script for osType ("linux": bash, "windows":
// PowerShell starting with #ps1_sysnative). ErrUnsupportedOS for any other OS.
func Wrapper(osType string, p WrapperParams) ([]byte, error) {
	t, ok := wrapperTemplates()[osType]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedOS, osType)
	}
	d := wrapperData{WrapperParams: p}
	if len(p.CACertBundle) > 0 {
		d.CABundleB64 = base64.StdEncoding.EncodeToString(p.CACertBundle)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return nil, fmt.Errorf("bootstrap: rendering %s wrapper: %w", osType, err)
	}
	return buf.Bytes(), nil
}

// InjectTemplate applies provider-contract.md §10 X-2 to a pool's extra specs. Absent or
// empty specs, or a JSON object without runner_install_template, come back as an object
// with runner_install_template = base64(Wrapper(osType, p)). Specs that already have the
// key, JSON null, non-objects, and OS types without a wrapper come back unchanged. No
// other key is ever added. Specs that are not JSON at all give ErrInvalidExtraSpecs.
func InjectTemplate(extraSpecs json.RawMessage, osType string, p WrapperParams) (json.RawMessage, error) {
	if _, ok := wrapperFiles[osType]; !ok {
		return extraSpecs, nil
	}
	trimmed := bytes.TrimSpace(extraSpecs)
	var obj map[string]json.RawMessage
	if len(trimmed) > 0 {
		if !json.Valid(trimmed) {
			return nil, ErrInvalidExtraSpecs
		}
		if trimmed[0] != '{' {
			return extraSpecs, nil // null, array, string, number, bool
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidExtraSpecs, err)
		}
		if _, ok := obj[TemplateKey]; ok {
			return extraSpecs, nil
		}
	}
	script, err := Wrapper(osType, p)
	if err != nil {
		return nil, err
	}
	entry, err := json.Marshal(base64.StdEncoding.EncodeToString(script))
	if err != nil {
		return nil, err
	}
	return appendKey(trimmed, len(obj) == 0, entry), nil
}

// appendKey adds "runner_install_template": value to the JSON object obj (empty when
// isEmpty or obj is absent), keeping the original bytes and key order of the rest.
func appendKey(obj []byte, isEmpty bool, value []byte) json.RawMessage {
	var out bytes.Buffer
	if len(obj) == 0 || isEmpty {
		out.WriteString("{")
	} else {
		body := bytes.TrimSpace(obj[:bytes.LastIndexByte(obj, '}')])
		out.Write(body)
		out.WriteString(",")
	}
	out.WriteString(`"` + TemplateKey + `":`)
	out.Write(value)
	out.WriteString("}")
	return out.Bytes()
}
