package bootstrap

import (
	"embed"
	"sync"
	"text/template"
)

// templateFS holds the script templates. Wrapper templates use the helper functions
// sh and ps (quote a value as a shell / PowerShell literal).
//
//go:embed templates/*.tmpl
var templateFS embed.FS

var quoteFuncs = template.FuncMap{"sh": shQuote, "ps": psQuote}

// mustTemplate parses one embedded template with the quoting helpers.
func mustTemplate(name string) *template.Template {
	return template.Must(template.New(name).Funcs(quoteFuncs).ParseFS(templateFS, "templates/"+name))
}

// templatesByOS parses an OS type → template file map on first use: a provider built on
// this package runs once per call, and most calls render no script.
func templatesByOS(files map[string]string) func() map[string]*template.Template {
	return sync.OnceValue(func() map[string]*template.Template {
		out := make(map[string]*template.Template, len(files))
		for os, name := range files {
			out[os] = mustTemplate(name)
		}
		return out
	})
}
