package bootstrap

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template/parse"
)

// TemplateError is a runner install template that garrison refuses to store: it does not
// parse, refers to a field the install context does not have, or fails to render
// against sample values.
type TemplateError struct {
	Line   int // 1-based line of the template; 0 when unknown
	Reason string
}

func (e *TemplateError) Error() string {
	if e.Line == 0 {
		return "invalid template: " + e.Reason
	}
	return fmt.Sprintf("invalid template: line %d: %s", e.Line, e.Reason)
}

// ValidateTemplate checks a runner install template before it is stored, so that a
// mistake is reported when the template is saved, not when a runner boots. The template
// is parsed as RenderTemplate parses it; every field it reads from the install context
// must exist; and it must render against sample values, once with every flag off and once
// with every flag on. Errors are *TemplateError.
func ValidateTemplate(data []byte) error {
	t, err := parseTemplate(data)
	if err != nil {
		return templateError(err)
	}
	if err := checkFields(t.Tree); err != nil {
		return err
	}
	for _, flags := range []bool{false, true} {
		if _, err := executeRaw(t, sampleContext(flags)); err != nil {
			return templateError(err)
		}
	}
	return nil
}

// errLocation reads "template: NAME:LINE[:COL]: reason" as text/template formats its
// parse and execution errors.
var errLocation = regexp.MustCompile(`^template: ` + templateName + `:(\d+)(?::\d+)?: (?s:(.*))$`)

// templateError turns a text/template error into a TemplateError with its line.
func templateError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	m := errLocation.FindStringSubmatch(msg)
	if m == nil {
		return &TemplateError{Reason: msg}
	}
	line, _ := strconv.Atoi(m[1])
	reason := strings.Replace(m[2], `executing "`+templateName+`" at `, "at ", 1)
	return &TemplateError{Line: line, Reason: reason}
}

// sampleContext is an install context with every field set, flags as given.
func sampleContext(flags bool) InstallContext {
	return InstallContext{
		Forge: ForgeGitHub, FileName: "actions-runner-linux-x64.tar.gz", DownloadURL: "https://example.invalid/runner.tar.gz",
		TempDownloadToken: "token", RepoURL: "https://example.invalid/owner/repo", MetadataURL: "https://example.invalid/api/v1/metadata",
		CallbackURL: "https://example.invalid/api/v1/callbacks", CallbackToken: "jwt", RunnerName: "garm-sample",
		RunnerLabels: "linux,x64", CABundle: "", GitHubRunnerGroup: "group", EnableBootDebug: flags,
		ExtraContext: map[string]string{}, UseJITConfig: flags, AgentMode: flags, AgentDownloadURL: "https://example.invalid/agent",
		AgentURL: "https://example.invalid/agent", AgentToken: "agent-jwt", ForceInsecureGARMAgent: flags,
		HTTPProxy: "http://proxy.invalid:3128", HTTPSProxy: "http://proxy.invalid:3128", NoProxy: "localhost",
	}
}

// contextFields are the field names of InstallContext.
var contextFields = func() map[string]bool {
	out := map[string]bool{}
	rt := reflect.TypeFor[InstallContext]()
	for i := range rt.NumField() {
		out[rt.Field(i).Name] = true
	}
	return out
}()

// checkFields finds every field a template reads from the install context, also in
// branches the sample renders do not take: .Field where dot is the context (outside the
// bodies of range and with), and $.Field anywhere.
func checkFields(tree *parse.Tree) error {
	if tree == nil || tree.Root == nil {
		return nil
	}
	var bad parse.Node
	var reason string
	var walk func(n parse.Node, dotIsRoot bool)
	check := func(n parse.Node, field string) {
		if bad == nil && !contextFields[field] {
			bad, reason = n, fmt.Sprintf("can't evaluate field %s: the install context has no such field", field)
		}
	}
	loops := int64(1) // iterations of the literal ranges around the node being walked
	walk = func(n parse.Node, dotIsRoot bool) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c, dotIsRoot)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe, dotIsRoot)
		case *parse.TemplateNode:
			walk(n.Pipe, dotIsRoot)
		case *parse.IfNode:
			walk(n.Pipe, dotIsRoot)
			walk(n.List, dotIsRoot)
			walk(n.ElseList, dotIsRoot)
		case *parse.RangeNode:
			walk(n.Pipe, dotIsRoot)
			outer := loops
			if k, ok := literalCount(n.Pipe); ok {
				loops = outer * max(k, 1)
				if (k > maxRangeLoops || loops > maxRangeLoops) && bad == nil {
					bad, reason = n, fmt.Sprintf("ranges over numbers repeat more than %d times", maxRangeLoops)
				}
			}
			walk(n.List, false)
			loops = outer
			walk(n.ElseList, dotIsRoot)
		case *parse.WithNode:
			walk(n.Pipe, dotIsRoot)
			walk(n.List, false)
			walk(n.ElseList, dotIsRoot)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c, dotIsRoot)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a, dotIsRoot)
			}
		case *parse.ChainNode:
			walk(n.Node, dotIsRoot)
		case *parse.FieldNode:
			if dotIsRoot {
				check(n, n.Ident[0])
			}
		case *parse.VariableNode:
			if len(n.Ident) > 1 && n.Ident[0] == "$" {
				check(n, n.Ident[1])
			}
		}
	}
	walk(tree.Root, true)
	if bad == nil {
		return nil
	}
	loc, _ := tree.ErrorContext(bad)
	line := 0
	if parts := strings.Split(loc, ":"); len(parts) >= 2 {
		line, _ = strconv.Atoi(parts[1])
	}
	return &TemplateError{Line: line, Reason: reason}
}

// maxRangeLoops bounds the iterations of {{ range N }} over literal numbers, nested ones
// multiplied, so that validating or rendering a template cannot spin for long.
const maxRangeLoops = 100_000

// literalCount returns N for a range pipeline that is the number literal N.
func literalCount(p *parse.PipeNode) (int64, bool) {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return 0, false
	}
	num, ok := p.Cmds[0].Args[0].(*parse.NumberNode)
	if !ok {
		return 0, false
	}
	switch {
	case num.IsInt:
		return num.Int64, true
	case num.IsUint:
		return maxRangeLoops + 1, true
	case num.IsFloat:
		return int64(min(num.Float64, maxRangeLoops+1)), true
	}
	return 0, false
}

// SystemTemplate is one of garrison's built-in runner install templates, stored as a
// system template and put back by a restore.
type SystemTemplate struct {
	Name        string // <forge>_<os>
	Description string
	ForgeType   string
	OSType      string
	Data        []byte
}

// systemOrder is GARM's seed order, so that the system templates get GARM's IDs.
var systemOrder = []struct{ forge, os, desc string }{
	{ForgeGitHub, OSWindows, "Default Windows runner install template for GitHub"},
	{ForgeGitHub, OSLinux, "Default Linux runner install template for GitHub"},
	{ForgeGitea, OSLinux, "Default Linux runner install template for Gitea"},
	{ForgeGitea, OSWindows, "Default Windows runner install template for Gitea"},
}

// installFiles maps an OS type to the file of its built-in install script.
var installFiles = map[string]string{OSLinux: "install_linux.sh.tmpl", OSWindows: "install_windows.ps1.tmpl"}

// SystemTemplates returns the four built-in templates in seed order.
func SystemTemplates() []SystemTemplate {
	out := make([]SystemTemplate, 0, len(systemOrder))
	for _, s := range systemOrder {
		st, err := SystemTemplateFor(s.forge, s.os)
		if err != nil {
			panic(err) // the embedded files always exist
		}
		st.Description = s.desc
		out = append(out, st)
	}
	return out
}

// SystemTemplateFor returns the built-in template for a forge and OS type, described as
// a restore describes a template it has to create; the errors are GARM's.
func SystemTemplateFor(forge, osType string) (SystemTemplate, error) {
	if forge != ForgeGitHub && forge != ForgeGitea {
		return SystemTemplate{}, &NoTemplateError{fmt.Sprintf("could not find template for forge type: %q", forge)}
	}
	file, ok := installFiles[osType]
	if !ok {
		return SystemTemplate{}, &NoTemplateError{fmt.Sprintf("could not find template for forge %s and OS type: %q", forge, osType)}
	}
	data, err := templateFS.ReadFile("templates/" + file)
	if err != nil {
		return SystemTemplate{}, err
	}
	return SystemTemplate{Name: forge + "_" + osType, Description: fmt.Sprintf("Default template for %s runners on %s", forge, osType),
		ForgeType: forge, OSType: osType, Data: data}, nil
}

// NoTemplateError says there is no built-in template for a forge and OS type; it matches
// ErrNoTemplate with errors.Is.
type NoTemplateError struct{ msg string }

func (e *NoTemplateError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrNoTemplate) true.
func (e *NoTemplateError) Is(target error) bool { return target == ErrNoTemplate }
