package archtest

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/garrison-ci/garrison"

type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string // every package it depends on, directly or not
	Standard   bool
}

// listPackages runs `go list -json` over the module and returns its packages keyed by
// import path. Only non-test imports count: tests may wire whatever they need.
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]goPackage{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func rel(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// isStd reports whether an import path is in the standard library (no dot in its first
// element).
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// adapters are the packages that wrap one dependency each. None may import another.
var adapters = []string{
	"internal/store/sqlite",
	"internal/store/postgres",
	"internal/pgnotify",
	"internal/forge/github",
	"internal/forge/gitea",
	"internal/forge/scaleset",
	"internal/providerexec",
	"internal/httpapi",
	"internal/apiclient",
	"internal/forgesim",
}

func TestStdlibOnlyPackages(t *testing.T) {
	pkgs := listPackages(t)
	for _, name := range []string{".", "provider", "internal/apiv1", "internal/logx"} {
		p, ok := pkgs[qualify(name)]
		if !ok {
			t.Errorf("package %s not found", name)
			continue
		}
		for _, imp := range p.Imports {
			if !isStd(imp) {
				t.Errorf("%s must import only the standard library, imports %s", name, imp)
			}
		}
	}
}

func TestDomainImportsNothingOfOurs(t *testing.T) {
	pkgs := listPackages(t)
	for _, imp := range pkgs[module].Imports {
		if strings.HasPrefix(imp, module) {
			t.Errorf("the domain package must not import %s", rel(imp))
		}
	}
}

func TestAdaptersDoNotImportEachOther(t *testing.T) {
	pkgs := listPackages(t)
	for _, a := range adapters {
		p, ok := pkgs[qualify(a)]
		if !ok {
			continue // not written yet
		}
		for _, imp := range p.Imports {
			for _, b := range adapters {
				if b != a && (imp == qualify(b) || strings.HasPrefix(imp, qualify(b)+"/")) {
					t.Errorf("adapter %s imports adapter %s; wire them in internal/server instead", a, b)
				}
			}
		}
	}
}

// TestProviderContractIsSelfContained keeps the packages a provider author builds on free
// of garrison's internals. (The conformance kit, provider/providertest, drives the real
// host side in internal/providerexec on purpose: Go lets outside modules use it all the same.)
func TestProviderContractIsSelfContained(t *testing.T) {
	pkgs := listPackages(t)
	for _, r := range []string{"provider", "provider/sdk"} {
		p, ok := pkgs[qualify(r)]
		if !ok {
			t.Errorf("package %s not found", r)
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/internal/") {
				t.Errorf("public package %s imports %s; provider authors cannot import internal packages", r, rel(imp))
			}
		}
	}
}

// compositionRoots may import several adapters, and which: internal/server wires the
// production ones (any), the forge hub the two forge clients (and the REST API's webhook
// request), and the development kit the simulator and the API client.
var compositionRoots = map[string][]string{
	"internal/server":       nil,
	"internal/forge/forges": {"internal/forge/github", "internal/forge/gitea", "internal/httpapi"},
	"internal/testbed":      {"internal/forgesim", "internal/apiclient"},
	// The bench makes (and drops) a scratch PostgreSQL database for its replicas scenario.
	"internal/bench": {"internal/forgesim", "internal/apiclient", "internal/store/postgres"},
}

func TestOnlyCompositionRootsWireSeveralAdapters(t *testing.T) {
	pkgs := listPackages(t)
	for path, p := range pkgs {
		r := rel(path)
		var used []string
		for _, imp := range p.Imports {
			for _, a := range adapters {
				if imp == qualify(a) {
					used = append(used, a)
				}
			}
		}
		allowed, isRoot := compositionRoots[r]
		switch {
		case isRoot && allowed == nil:
		case isRoot:
			for _, a := range used {
				if !slices.Contains(allowed, a) {
					t.Errorf("%s imports adapter %s; it may wire only %s", r, a, strings.Join(allowed, ", "))
				}
			}
		case len(used) > 1:
			t.Errorf("%s imports several adapters (%s); only internal/server may wire them", r, strings.Join(used, ", "))
		}
	}
}

func qualify(name string) string {
	if name == "." {
		return module
	}
	return module + "/" + name
}

// depRules bound what a package may depend on, directly or not, among garrison's own
// packages (the standard library and third-party modules are not counted).
var depRules = []struct {
	pkg     string
	allowed []string
	why     string
}{
	{"internal/reconcile/plan", []string{"."},
		"the planner is pure: the domain and the standard library only"},
	{"internal/reconcile", []string{".", "provider", "internal/store", "internal/workqueue", "internal/reconcile/plan"},
		"the reconciler sees the domain, the provider contract, the store contract, the work queue and the planner; adapters are wired by the server"},
	{"internal/toolcache", []string{".", "provider"},
		"the runner-binary cache sees the domain and the provider contract; the forges and the store are wired by the server"},
}

func TestDependencyRules(t *testing.T) {
	pkgs := listPackages(t)
	for _, r := range depRules {
		p, ok := pkgs[qualify(r.pkg)]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		allowed := map[string]bool{}
		for _, a := range r.allowed {
			allowed[qualify(a)] = true
		}
		for _, dep := range p.Deps {
			if (dep == module || strings.HasPrefix(dep, module+"/")) && !allowed[dep] {
				t.Errorf("%s depends on %s: %s", r.pkg, rel(dep), r.why)
			}
		}
	}
}

// TestPlannerIsPure keeps the planner free of anything but the domain and the standard
// library, third-party modules included.
func TestPlannerIsPure(t *testing.T) {
	pkgs := listPackages(t)
	p, ok := pkgs[qualify("internal/reconcile/plan")]
	if !ok {
		t.Fatal("package internal/reconcile/plan not found")
	}
	for _, imp := range p.Imports {
		if !isStd(imp) && imp != module {
			t.Errorf("internal/reconcile/plan imports %s; it may import the domain and the standard library only", imp)
		}
	}
}
