package archtest

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// devKit are the packages of the development tools: the forge simulator, the stand-in
// runner, the simulation provider, the provider conformance kit, the testbed and the
// benchmark. The production binary links none of them.
var devKit = []string{
	"internal/forgesim",
	"internal/standin",
	"providers/sim",
	"provider/providertest",
	"internal/testbed",
	"internal/bench",
}

// inDevKit reports whether the import path is a package of the development kit (or below
// one, as providers/sim/simprovider).
func inDevKit(path string) bool {
	return slices.ContainsFunc(devKit, func(k string) bool { return path == qualify(k) || strings.HasPrefix(path, qualify(k)+"/") })
}

// listDeps returns the import paths pkg links (go list -deps: no test files).
func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// TestProductionBinaryLinksNoDevKit keeps the simulator, the stand-in runner, the
// simulation provider, the conformance kit, the testbed and the benchmark out of the
// garrison binary; they belong in cmd/garrison-dev.
func TestProductionBinaryLinksNoDevKit(t *testing.T) {
	pkgs := listPackages(t)
	for _, k := range devKit {
		if _, ok := pkgs[qualify(k)]; !ok {
			t.Errorf("development kit package %s not found; update devKit", k)
		}
	}
	deps := listDeps(t, qualify("cmd/garrison"))
	if !slices.Contains(deps, qualify("internal/server")) {
		t.Fatalf("cmd/garrison does not link internal/server: the dependency list is wrong:\n%s", strings.Join(deps, "\n"))
	}
	for _, d := range deps {
		if inDevKit(d) {
			t.Errorf("the garrison binary links %s (development kit); keep it in cmd/garrison-dev", rel(d))
		}
	}
}

// cmdMayImport are the packages of garrison a command may import: commands parse flags
// and call these. The development commands may also import the development kit.
var cmdMayImport = []string{
	"internal/server",
	"internal/cli",
	"internal/config",
	"internal/apiclient",
	"internal/apiv1",
}

// TestCmdOnlyWires keeps cmd/ a wiring room: a command imports the composition root, the
// client and the config, never the store, the reconciler, the forges or the HTTP
// handlers directly; only the development binaries import the development kit.
func TestCmdOnlyWires(t *testing.T) {
	pkgs := listPackages(t)
	for path, p := range pkgs {
		r := rel(path)
		if !strings.HasPrefix(r, "cmd/") {
			continue
		}
		dev := r != "cmd/garrison"
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) || slices.Contains(cmdMayImport, rel(imp)) || (dev && inDevKit(imp)) {
				continue
			}
			t.Errorf("%s imports %s; commands only wire (allowed: %s, and in development binaries the development kit)",
				r, rel(imp), strings.Join(cmdMayImport, ", "))
		}
	}
}

// TestServerIsTheCompositionRoot: internal/server is the only package that wires the
// concrete parts, so nothing below it may import it (only cmd/ and the testbed, which
// runs it in-process), and it links no client code and none of the development kit.
func TestServerIsTheCompositionRoot(t *testing.T) {
	pkgs := listPackages(t)
	server := qualify("internal/server")
	if _, ok := pkgs[server]; !ok {
		t.Fatal("package internal/server not found")
	}
	for path, p := range pkgs {
		r := rel(path)
		if !slices.Contains(p.Imports, server) || strings.HasPrefix(r, "cmd/") || r == "internal/testbed" {
			continue
		}
		t.Errorf("%s imports internal/server; only cmd/ and internal/testbed may", r)
	}
	for _, imp := range pkgs[server].Imports {
		if inDevKit(imp) || imp == qualify("internal/cli") || imp == qualify("internal/apiclient") {
			t.Errorf("internal/server imports %s; the server links no client and no development kit", rel(imp))
		}
	}
}
