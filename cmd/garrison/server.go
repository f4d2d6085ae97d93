package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/config"
)

// serverFlags are the command-line overrides of `garrison server`.
type serverFlags struct {
	dataDir    string
	listen     string
	configFile string
}

func newServerCmd() *cobra.Command {
	var f serverFlags
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the garrison server",
		Long: `Run the garrison server.

With no flags it listens on 127.0.0.1:9997, keeps its data in $XDG_DATA_HOME/garrison
(or ~/.local/share/garrison) in an SQLite database, and on first start generates a database
passphrase and a JWT secret into a 0600 file there.

One server uses a data directory at a time: it locks <data dir>/garrison.lock, and a
second server on the same directory refuses to start. SIGHUP (systemctl reload) rotates
the log file ([logging] log_file) and the server keeps running; SIGINT or SIGTERM stop it
gracefully.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadServerConfig(f)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "directory for the database and generated secrets (default $XDG_DATA_HOME/garrison)")
	cmd.Flags().StringVar(&f.listen, "listen", "", "address to listen on, ADDR:PORT (default 127.0.0.1:9997)")
	cmd.Flags().StringVar(&f.configFile, "config", "", "GARM-compatible config.toml (default: none, embedded defaults)")
	return cmd
}

// serverConfig is the resolved configuration of one server run.
type serverConfig struct {
	*config.Config
	dataDir        string
	secretsCreated bool
	secretsFile    string
}

// loadServerConfig resolves the data directory, the config file (or the embedded defaults),
// the generated secrets and the flag overrides.
func loadServerConfig(f serverFlags) (serverConfig, error) {
	dataDir := f.dataDir
	if dataDir == "" {
		d, err := config.DefaultDataDir()
		if err != nil {
			return serverConfig{}, err
		}
		dataDir = d
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return serverConfig{}, fmt.Errorf("creating data directory: %w", err)
	}
	cfg := config.Default(dataDir)
	if f.configFile != "" {
		c, err := config.Load(f.configFile)
		if err != nil {
			return serverConfig{}, err
		}
		c.SetDataDir(dataDir)
		cfg = c
	}
	secrets, created, err := config.LoadOrCreateSecrets(dataDir)
	if err != nil {
		return serverConfig{}, err
	}
	cfg.ApplySecrets(secrets)
	if f.listen != "" {
		host, port, err := splitListen(f.listen)
		if err != nil {
			return serverConfig{}, err
		}
		cfg.APIServer.Bind, cfg.APIServer.Port = host, port
	}
	return serverConfig{Config: cfg, dataDir: dataDir, secretsCreated: created, secretsFile: filepath.Join(dataDir, config.SecretsFileName)}, nil
}

func splitListen(s string) (string, int, error) {
	host, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, fmt.Errorf("--listen %q: want ADDR:PORT: %w", s, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("--listen %q: port must be 0-65535", s)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return host, port, nil
}

// serve runs the server until ctx is cancelled. It holds the data directory's lock
// throughout, and rotates the log file on SIGHUP.
func serve(ctx context.Context, cfg serverConfig, stderr io.Writer) error {
	locks, err := lockServer(cfg.dataDir, cfg.Database)
	if err != nil {
		return err
	}
	defer locks.Unlock()
	logger, logFile, err := newLogger(cfg.Logging, stderr)
	if err != nil {
		return err
	}
	defer logFile.Close()
	defer rotateOnHangup(logger, logFile)()
	for _, w := range cfg.Warnings {
		logger.Warn("config", "warning", w)
	}
	if cfg.secretsCreated {
		logger.Info("generated a database passphrase and JWT secret", "file", cfg.secretsFile)
	}
	a, err := newApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", cfg.APIServer.Addr())
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	logger.Info("garrison server listening", "addr", ln.Addr().String(), "data_dir", cfg.dataDir, "version", Version())
	a.hintFirstRun(ctx, listenURL(ln.Addr(), cfg.APIServer.UseTLS))
	serveCtx, stop := logShutdown(ctx, logger)
	defer stop()
	err = a.Serve(serveCtx, ln)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if err != nil {
		logger.Error("garrison server stopped", "error", err)
		return err
	}
	logger.Info("garrison server stopped")
	return nil
}

// logShutdown returns a context that is cancelled when ctx is, right after the line
// saying the server shuts down (and why) is logged, so that the line comes first.
func logShutdown(ctx context.Context, logger *slog.Logger) (context.Context, func()) {
	serveCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		logger.Info("garrison server shutting down", "reason", context.Cause(ctx).Error())
		cancel(context.Cause(ctx))
	})
	return serveCtx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// rotateOnHangup rotates the log file on each SIGHUP (systemctl reload, logrotate) until
// the returned function is called; without a log file SIGHUP is only logged. Either way
// SIGHUP no longer ends the process.
func rotateOnHangup(logger *slog.Logger, file *logFile) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-hup:
				if file == nil {
					logger.Info("SIGHUP: no log file to reopen (logging to stderr)")
					continue
				}
				if err := file.Rotate(); err != nil {
					logger.Error("SIGHUP: rotating the log file failed", "error", err)
					continue
				}
				logger.Info("SIGHUP: log file reopened")
			case <-done:
				return
			}
		}
	})
	return func() {
		signal.Stop(hup)
		close(done)
		wg.Wait()
	}
}

// listenURL is the URL a client on this host reaches the server at: an unspecified
// listen address (0.0.0.0, ::) becomes the loopback address.
func listenURL(addr net.Addr, useTLS bool) string {
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// hintFirstRun tells, while the controller has no admin user, how to create one.
func (a *app) hintFirstRun(ctx context.Context, url string) {
	has, err := a.store.HasAdmin(ctx)
	if err != nil {
		a.logger.Warn("could not check for an admin user", "error", err)
		return
	}
	if has {
		return
	}
	a.logger.Info("no admin user yet: create one with `garrison init --name local --url " + url +
		" --username admin --email admin@example.com` (it asks for a password; use the URL your runners and forges reach this server at)")
}
