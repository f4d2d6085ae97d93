package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/garrison-ci/garrison/provider"
)

// maxStdin bounds the CreateInstance document read from stdin.
const maxStdin = 64 << 20

// Main runs the provider for this process and exits with its status.
func Main(f Factory) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Getenv, os.Stdin, os.Stdout, os.Stderr, f)
	stop()
	os.Exit(code)
}

// Run performs one invocation: it validates the environment read through
// getenv, builds the provider with f, dispatches on GARM_COMMAND, writes the
// result to stdout and diagnostics to stderr, and returns the exit status.
// A panic in the provider is reported as exit 1.
func Run(ctx context.Context, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, f Factory) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "provider panic: %v\n", r)
			code = provider.ExitFailure
		}
	}()
	out, err := run(ctx, getenv, stdin, f)
	if err != nil {
		fmt.Fprintf(stderr, "%s\n", err)
		return ExitCode(err)
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "writing result: %s\n", err)
		return provider.ExitFailure
	}
	return provider.ExitOK
}

// run does the work of Run and returns what to print on stdout.
func run(ctx context.Context, getenv func(string) string, stdin io.Reader, f Factory) ([]byte, error) {
	env, err := readEnvironment(getenv)
	if err != nil {
		return nil, fmt.Errorf("invalid environment: %w", err)
	}
	if env.Command == provider.GetSupportedInterfaceVersions {
		return json.Marshal([]string{provider.InterfaceV010, provider.InterfaceV011})
	}
	var bi provider.BootstrapInstance
	if env.Command == provider.CreateInstance {
		if bi, err = readBootstrap(stdin); err != nil {
			return nil, err
		}
	}
	p, err := f(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("initializing provider: %w", err)
	}
	return dispatch(ctx, env, p, bi, stdin)
}

// readBootstrap decodes and checks the CreateInstance stdin document and
// fills a missing extra_specs with {}. Refusals match ErrInvalidInput.
func readBootstrap(stdin io.Reader) (provider.BootstrapInstance, error) {
	var bi provider.BootstrapInstance
	data, err := io.ReadAll(io.LimitReader(stdin, maxStdin))
	if err != nil {
		return bi, fmt.Errorf("reading stdin: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return bi, invalidInput{errors.New("no bootstrap instance on stdin")}
	}
	if err := json.Unmarshal(data, &bi); err != nil {
		return bi, invalidInput{fmt.Errorf("decoding bootstrap instance from stdin: %w", err)}
	}
	if bi.Name == "" {
		return bi, invalidInput{errors.New("bootstrap instance has no name")}
	}
	if t := bytes.TrimSpace(bi.ExtraSpecs); len(t) == 0 || string(t) == "null" {
		bi.ExtraSpecs = json.RawMessage(`{}`)
	}
	return bi, nil
}
