package webui_test

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/webui"
)

// assetFiles returns the embedded files by path with their contents.
func assetFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(webui.Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(webui.Assets(), p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAssetsKeepThePolicy: nothing in the UI needs what the Content-Security-Policy
// forbids (the browser would refuse it silently): no inline script or handler, no style
// attribute, no HTML built from strings, no eval, and no asset from another origin.
func TestAssetsKeepThePolicy(t *testing.T) {
	rules := []struct {
		ext  string
		re   *regexp.Regexp
		what string
	}{
		{".html", regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`), "inline script"},
		{".html", regexp.MustCompile(`<script(?:(?:\s[^>]*\s)|\s)(?:[^>]*\s)?type="importmap"`), "inline import map"},
		{".html", regexp.MustCompile(`\son[a-z]+\s*=`), "inline event handler"},
		{".html", regexp.MustCompile(`\sstyle\s*=|<style`), "inline style"},
		{".html", regexp.MustCompile(`javascript:`), "javascript: URL"},
		{".js", regexp.MustCompile(`\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write`), "HTML built from strings"},
		{".js", regexp.MustCompile(`\beval\(|new Function\(`), "eval"},
		{".js", regexp.MustCompile(`setAttribute\(\s*['"]style['"]|setAttribute\(\s*['"]on`), "inline style or handler set as an attribute"},
		{".js", regexp.MustCompile(`\bimport\(\s*['"]https?:`), "remote module"},
		{".css", regexp.MustCompile(`@import`), "CSS import"},
	}
	// Any http(s) URL in the assets must be one of these (an XML namespace is not loaded).
	allowedURL := regexp.MustCompile(`^https?://(www\.w3\.org/2000/svg|ghes\.example\.com|example\.com)`)
	anyURL := regexp.MustCompile(`https?://[^\s'"` + "`" + `)<>]+`)
	for p, body := range assetFiles(t) {
		for _, r := range rules {
			if path.Ext(p) == r.ext && r.re.MatchString(body) {
				t.Errorf("%s: %s (%q)", p, r.what, r.re.FindString(body))
			}
		}
		for _, u := range anyURL.FindAllString(body, -1) {
			if !allowedURL.MatchString(u) {
				t.Errorf("%s: refers to %s: the UI loads nothing from other origins", p, u)
			}
		}
	}
}

var (
	importRE   = regexp.MustCompile(`(?m)^import\s+(?:\{([^}]*)\}|\*\s+as\s+\w+)\s+from\s+'([^']+)';`)
	sideImport = regexp.MustCompile(`(?m)^import\s+'([^']+)';`)
	exportRE   = regexp.MustCompile(`(?m)^export\s+(?:async\s+)?(?:function|const|let|class)\s+([A-Za-z_$][\w$]*)`)
	exportList = regexp.MustCompile(`(?m)^export\s+\{([^}]*)\};`)
	srcRE      = regexp.MustCompile(`(?:src|href)="(/ui/[^"]*)"`)
)

// exportsOf returns the names a module exports.
func exportsOf(body string) []string {
	var out []string
	for _, m := range exportRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	for _, m := range exportList.FindAllStringSubmatch(body, -1) {
		out = append(out, names(m[1])...)
	}
	return out
}

// names splits an import or export list, taking the local name of "a as b".
func names(list string) []string {
	var out []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		first, _, _ := strings.Cut(n, " as ")
		out = append(out, strings.TrimSpace(first))
	}
	return out
}

// TestModuleGraph: index.html's files exist, every module import resolves to an
// embedded file that exports the imported names, and every module is reachable from
// main.js — a broken path or name would only show as a blank page in a browser.
func TestModuleGraph(t *testing.T) {
	files := assetFiles(t)
	for _, m := range srcRE.FindAllStringSubmatch(files["index.html"], -1) {
		rel := strings.TrimPrefix(m[1], "/ui/")
		if _, ok := files[rel]; !ok && rel != "" {
			t.Errorf("index.html refers to %s, which is not embedded", m[1])
		}
	}
	reached := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if reached[p] {
			return
		}
		reached[p] = true
		body := files[p]
		for _, m := range importRE.FindAllStringSubmatch(body, -1) {
			target := path.Join(path.Dir(p), m[2])
			tb, ok := files[target]
			if !ok {
				t.Errorf("%s imports %s: no such file", p, m[2])
				continue
			}
			exported := exportsOf(tb)
			for _, n := range names(m[1]) {
				if !slices.Contains(exported, n) {
					t.Errorf("%s imports %s from %s, which does not export it", p, n, m[2])
				}
			}
			walk(target)
		}
		for _, m := range sideImport.FindAllStringSubmatch(body, -1) {
			walk(path.Join(path.Dir(p), m[1]))
		}
	}
	walk("js/main.js")
	for p := range files {
		if path.Ext(p) == ".js" && !reached[p] {
			t.Errorf("%s is not imported by any module", p)
		}
	}
}
