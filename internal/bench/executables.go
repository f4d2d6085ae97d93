package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/garrison-ci/garrison/internal/testbed"
)

// program is an executable the bench runs that it can find beside garrison-dev or build
// from garrison's source.
type program struct {
	name string // the file name looked for beside garrison-dev, and built
	pkg  string // the package to build, relative to the module
	err  error  // wrapped by every failure to find or build it
}

var (
	// errSimProvider is wrapped by every unusable --sim-provider.
	errSimProvider = errors.New("simulation provider")
	// errGarrison is wrapped by every unusable --garrison.
	errGarrison = errors.New("garrison server")
)

// The programs bench runs besides garrison-dev itself.
var (
	simProviderProgram = program{name: simProviderName, pkg: "providers/sim", err: errSimProvider}
	garrisonProgram    = program{name: "garrison", pkg: "cmd/garrison", err: errGarrison}
)

// simProviderName is the standalone simulation provider's file name that bench looks for
// beside garrison-dev.
const simProviderName = "garrison-provider-sim"

// find returns the given path, which must be an executable file, or else the program
// beside exe when that is one, or else "".
func (p program) find(given, exe string) (string, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", fmt.Errorf("%w %s: %w", p.err, given, err)
		}
		if !isExecutableFile(abs) {
			return "", fmt.Errorf("%w %s: not an executable file", p.err, given)
		}
		return abs, nil
	}
	beside := filepath.Join(filepath.Dir(exe), p.name)
	if isExecutableFile(beside) {
		return beside, nil
	}
	return "", nil
}

// isExecutableFile reports whether path is a regular file with an execute bit set.
func isExecutableFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// build builds the program into a new temporary directory when dir is inside garrison's
// source and a Go toolchain is on PATH (as with `go run ./cmd/garrison-dev bench`). It
// returns the executable and a function that removes it.
func (p program) build(ctx context.Context, dir string) (string, func(), error) {
	bin, cleanup, err := testbed.Build(ctx, dir, p.pkg, p.name)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", p.err, err)
	}
	return bin, cleanup, nil
}

// simProviderNote says which simulation provider ran, for the result's notes.
func simProviderNote(path string) string {
	if path == "" {
		return "simulation provider: garrison-dev's `" + testbed.ToolSimProvider + "` (every call pays garrison-dev's start-up; build ./providers/sim as " + simProviderName + " beside it for the standalone one)"
	}
	return "simulation provider: " + path
}

// Executables say which programs a bench run starts besides garrison-dev (exe).
type Executables struct {
	Self        string // garrison-dev: the tools (testbed.RunTool)
	Garrison    string // --garrison: the server ("" = beside Self, else built)
	SimProvider string // --sim-provider ("" = beside Self, else built, else Self's tool)
}

// Use sets the programs of o: Tools is Self; the server is the garrison binary given,
// else the one beside Self, else a fresh build when the working directory is garrison's
// source (else an error); the simulation provider is the one given, else the one beside
// Self, else a fresh build, else Self's tool (said on out). It returns the cleanup of the
// builds.
func (x Executables) Use(ctx context.Context, o *Options, out io.Writer) (func(), error) {
	o.Tools = testbed.Command{Argv: []string{x.Self}}
	var cleanups []func()
	cleanup := func() {
		for _, c := range cleanups {
			c()
		}
	}
	garrison, err := garrisonProgram.find(x.Garrison, x.Self)
	if err == nil && garrison == "" {
		var c func()
		if garrison, c, err = buildInWorkingDir(ctx, garrisonProgram); err == nil {
			cleanups = append(cleanups, c)
			fmt.Fprintf(out, "built the garrison server (garrison not beside %s)\n", filepath.Base(x.Self))
		}
	}
	if err != nil {
		return cleanup, fmt.Errorf("%w; build ./cmd/garrison beside garrison-dev or give --garrison", err)
	}
	o.Server = testbed.Command{Argv: []string{garrison}}
	if o.SimProvider, err = simProviderProgram.find(x.SimProvider, x.Self); err != nil {
		return cleanup, err
	}
	if o.SimProvider == "" {
		path, c, err := buildInWorkingDir(ctx, simProviderProgram)
		if err != nil {
			fmt.Fprintf(out, "note: garrison-dev itself is the simulation provider (%v); every provider call pays its start-up\n", err)
			return cleanup, nil
		}
		cleanups = append(cleanups, c)
		o.SimProvider = path
		fmt.Fprintf(out, "built the standalone simulation provider (%s not beside %s)\n", simProviderName, filepath.Base(x.Self))
	}
	return cleanup, nil
}

// buildInWorkingDir builds p from the working directory's source.
func buildInWorkingDir(ctx context.Context, p program) (string, func(), error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", nil, fmt.Errorf("%w: %w", p.err, err)
	}
	return p.build(ctx, wd)
}
