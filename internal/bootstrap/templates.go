package bootstrap

import (
	"embed"
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
