package providerexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/garrison-ci/garrison/provider"
)

// Provider runs one configured provider executable. It is safe for
// concurrent use; at most Config.MaxConcurrency executions run at a time.
type Provider struct {
	cfg      Config
	version  string        // GARM_INTERFACE_VERSION value
	prefixes []string      // pass-through prefixes incl. proxy variables
	sem      chan struct{} // one token per running execution
}

// New validates cfg, applies defaults and returns a Provider.
func New(cfg Config) (*Provider, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	version, _ := provider.NormalizeInterfaceVersion(cfg.InterfaceVersion)
	prefixes := append(append([]string(nil), cfg.EnvPrefixes...), provider.ProxyEnvVars...)
	return &Provider{
		cfg:      cfg,
		version:  version,
		prefixes: prefixes,
		sem:      make(chan struct{}, cfg.MaxConcurrency),
	}, nil
}

// Name returns the provider's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// InterfaceVersion returns the GARM_INTERFACE_VERSION sent to the provider.
func (p *Provider) InterfaceVersion() string { return p.version }

// request is one provider invocation.
type request struct {
	cmd    provider.Command
	target provider.Target
	label  string // instance named in errors and logs
	stdin  []byte // nil: empty stream
	// parse, if set, validates a successful stdout; its error makes the
	// call fail with ErrBadOutput.
	parse func(stdout []byte) error
}

// call runs req and returns stdout of a successful (exit 0) execution.
func (p *Provider) call(ctx context.Context, req request) (stdout []byte, err error) {
	start := time.Now()
	defer func() { p.finish(ctx, req, time.Since(start), err) }()
	env, err := p.buildEnv(req.cmd, req.target)
	if err != nil {
		return nil, p.newError(req, ErrInvalidRequest, err)
	}
	if err := p.acquire(ctx); err != nil {
		return nil, p.newError(req, ctxKind(err), err)
	}
	defer p.release()
	if d := p.cfg.timeoutFor(req.cmd); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	res := p.execute(ctx, env, req.stdin)
	if err := p.classify(ctx, req, res); err != nil {
		return nil, err
	}
	if req.parse != nil {
		if err := req.parse(res.stdout); err != nil {
			return nil, p.newError(req, ErrBadOutput, err, res)
		}
	}
	if len(res.stderr) > 0 {
		p.cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "provider stderr",
			p.attrs(req, slog.String("stderr", excerpt(res.stderr)))...)
	}
	return res.stdout, nil
}

// acquire takes a concurrency token, honouring ctx.
func (p *Provider) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case p.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release returns a concurrency token.
func (p *Provider) release() { <-p.sem }

// ctxKind maps a context error to a sentinel.
func ctxKind(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrFailed
}

// classify turns an execution result into nil or a *CallError.
func (p *Provider) classify(ctx context.Context, req request, res execResult) error {
	switch {
	case res.overflow:
		return p.newError(req, ErrBadOutput,
			fmt.Errorf("stdout exceeded the limit of %d bytes; provider killed", p.cfg.MaxStdout), res)
	case res.err == nil:
		return nil
	case ctx.Err() != nil:
		return p.newError(req, ctxKind(ctx.Err()), fmt.Errorf("provider killed: %w", context.Cause(ctx)), res)
	case res.state != nil:
		return p.newError(req, exitKind(res.state.ExitCode()), res.err, res)
	}
	return p.newError(req, ErrFailed, res.err, res)
}

// exitKind maps a non-zero exit status to a sentinel.
func exitKind(code int) error {
	switch code {
	case provider.ExitNotFound:
		return ErrNotFound
	case provider.ExitDuplicate:
		return ErrDuplicate
	}
	return ErrFailed
}

// maxKeptStdout bounds the stdout kept in a CallError.
const maxKeptStdout = 4 << 10

// newError builds a *CallError; res, if given, supplies exit details.
func (p *Provider) newError(req request, kind, cause error, res ...execResult) *CallError {
	e := &CallError{
		Provider: p.cfg.Name, Command: req.cmd, Instance: req.label, PoolID: req.target.PoolID,
		ExitCode: -1, Kind: kind, Err: cause,
	}
	if len(res) == 0 {
		return e
	}
	r := res[0]
	e.Stderr = r.stderr
	if r.state != nil {
		e.ExitCode = r.state.ExitCode()
		e.Signal = signalName(r.state)
	}
	if e.ExitCode > 0 || kind == ErrBadOutput {
		out := r.stdout
		if len(out) > maxKeptStdout {
			out = out[:maxKeptStdout]
		}
		e.Stdout = sanitize(out)
	}
	return e
}

// finish logs a failed call and notifies the observer.
func (p *Provider) finish(ctx context.Context, req request, d time.Duration, err error) {
	if p.cfg.Observer != nil {
		p.cfg.Observer.ObserveProviderCall(p.cfg.Name, string(req.cmd), d, err)
	}
	if err == nil || errors.Is(err, ErrNotFound) && req.cmd == provider.DeleteInstance {
		return
	}
	attrs := p.attrs(req, slog.Duration("duration", d), slog.Any("err", err))
	var ce *CallError
	if errors.As(err, &ce) {
		attrs = append(attrs, slog.Int("exit_code", ce.ExitCode), slog.String("stderr", excerpt(ce.Stderr)))
	}
	p.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "provider call failed", attrs...)
}

// attrs returns the identifying log attributes of req plus extra.
func (p *Provider) attrs(req request, extra ...slog.Attr) []slog.Attr {
	a := []slog.Attr{
		slog.String("provider", p.cfg.Name),
		slog.String("command", string(req.cmd)),
	}
	if req.label != "" {
		a = append(a, slog.String("instance", req.label))
	}
	if req.target.PoolID != "" {
		a = append(a, slog.String("pool", req.target.PoolID))
	}
	return append(a, extra...)
}
