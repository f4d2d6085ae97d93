package bootstrap

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateTemplate(t *testing.T) {
	for _, tc := range []struct {
		name, tmpl string
		line       int
		reason     string // substring; "" means valid
	}{
		{"plain", "#!/bin/bash\necho {{ .RunnerName }}\n", 0, ""},
		{"quoting functions", "X={{ sh .CallbackToken }}\n$Y={{ ps .CallbackURL }}", 0, ""},
		{"extra context", `{{ range $k, $v := .ExtraContext }}{{ $k }}={{ $v }}{{ end }}{{ .ExtraContext.anything }}`, 0, ""},
		{"with changes dot", `{{ with .ExtraContext }}{{ .whatever }}{{ end }}`, 0, ""},
		{"unclosed action", "echo {{ .RunnerName", 1, "unclosed action"},
		{"bad action on line 3", "#!/bin/bash\n\n{{ if }}\n", 3, "missing value for if"},
		{"unknown function", "a\n{{ shout .RunnerName }}", 2, `function "shout" not defined`},
		{"unknown field", "a\nb\n{{ .Nope }}", 3, "can't evaluate field Nope"},
		{"unknown field in an untaken branch", "ok\n{{ if .UseJITConfig }}{{ else }}\n{{ .RunerName }}{{ end }}", 3, "RunerName"},
		{"unknown root field in range", "{{ range .ExtraContext }}\n{{ $.Missing }}{{ end }}", 2, "Missing"},
		{"undefined template", "{{ template \"x\" }}", 1, `template "x" not defined`},
		{"field of a string", "\n{{ .RunnerName.Foo }}", 2, "can't evaluate field Foo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateTemplate([]byte(tc.tmpl))
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused a valid template: %v", err)
				}
				return
			}
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a TemplateError", err)
			}
			if te.Line != tc.line || !strings.Contains(te.Reason, tc.reason) {
				t.Fatalf("got line %d %q, want line %d containing %q", te.Line, te.Reason, tc.line, tc.reason)
			}
			if !strings.HasPrefix(err.Error(), "invalid template: line ") {
				t.Fatalf("message %q", err)
			}
		})
	}
}

func TestValidateRefusesRunaways(t *testing.T) {
	long := strings.Repeat("{{ $.RunnerName }}", 2000)
	for _, tc := range []struct{ tmpl, reason string }{
		{`{{ range 90000 }}` + long + `{{ end }}`, "larger than"},
		{`{{ range 9000000000 }}{{ end }}`, "repeat more than"},
		{"{{ range 1000 }}\n{{ range 1000 }}{{ end }}{{ end }}", "repeat more than"},
		{`{{ range 99999999999999999999 }}{{ end }}`, "overflow"},
	} {
		err := ValidateTemplate([]byte(tc.tmpl))
		var te *TemplateError
		if !errors.As(err, &te) || !strings.Contains(te.Reason, tc.reason) {
			t.Fatalf("%.40s: got %v", tc.tmpl, err)
		}
	}
	if err := ValidateTemplate([]byte(`{{ range 100 }}{{ range 100 }}x{{ end }}{{ end }}`)); err != nil {
		t.Fatal(err)
	}
}

func TestSystemTemplatesValidate(t *testing.T) {
	ts := SystemTemplates()
	want := []string{"github_windows", "github_linux", "gitea_linux", "gitea_windows"}
	if len(ts) != len(want) {
		t.Fatalf("got %d system templates", len(ts))
	}
	for i, st := range ts {
		if st.Name != want[i] || !strings.HasPrefix(st.Description, "Default ") {
			t.Fatalf("template %d: %+v", i, st)
		}
		if err := ValidateTemplate(st.Data); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		// A system template rendered as a stored template is the built-in script.
		c := testContext(true)
		c.Forge = st.ForgeType
		stored, err := RenderTemplate(st.Data, c)
		if err != nil {
			t.Fatal(err)
		}
		builtin, err := InstallScript(st.ForgeType, st.OSType, testContext(true))
		if err != nil || string(stored) != string(builtin) {
			t.Fatalf("%s: stored rendering differs from the built-in script (%v)", st.Name, err)
		}
	}
	for _, c := range [][3]string{
		{"gitlab", OSLinux, `could not find template for forge type: "gitlab"`},
		{ForgeGitea, "macos", `could not find template for forge gitea and OS type: "macos"`},
		{"", "", `could not find template for forge type: ""`},
	} {
		_, err := SystemTemplateFor(c[0], c[1])
		if !errors.Is(err, ErrNoTemplate) || err.Error() != c[2] {
			t.Fatalf("%v: %v", c, err)
		}
	}
}

// FuzzValidateTemplate: any input either validates and then renders, or is refused with
// a TemplateError; nothing panics.
func FuzzValidateTemplate(f *testing.F) {
	for _, s := range []string{"echo {{ .RunnerName }}", "{{ if .UseJITConfig }}x{{ end }}", "{{", "{{ .Nope }}",
		"{{ range $k, $v := .ExtraContext }}{{ $k }}{{ end }}", "{{ sh .RunnerName }}", "{{ define \"a\" }}x{{ end }}{{ template \"a\" }}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		err := ValidateTemplate(data)
		if err != nil {
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a TemplateError", err)
			}
			return
		}
		if _, err := RenderTemplate(data, testContext(false)); err != nil {
			t.Fatalf("validated template does not render: %v", err)
		}
	})
}
