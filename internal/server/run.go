package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Run runs the server of cfg until ctx is cancelled, as `garrison server` does: it
// holds the data directory's lock throughout, logs as [logging] says (to stderr without
// a log file), rotates the log file on SIGHUP and listens on [apiserver]'s address.
func Run(ctx context.Context, cfg Config, stderr io.Writer) error {
	locks, err := lockServer(cfg.DataDir, cfg.Database)
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
	if cfg.SecretsCreated {
		logger.Info("generated a database passphrase and JWT secret", "file", cfg.SecretsFile)
	}
	a, err := New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", cfg.APIServer.Addr())
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	logger.Info("garrison server listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "version", Version())
	a.hintFirstRun(ctx, listenURL(ln.Addr(), cfg.APIServer.UseTLS))
	serveCtx, stop := logShutdown(ctx, logger)
	defer stop()
	err = a.Serve(serveCtx, ln)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if err != nil {
		logger.Error("garrison server stopped", "err", err)
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
					logger.Error("SIGHUP: rotating the log file failed", "err", err)
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
func (a *Server) hintFirstRun(ctx context.Context, url string) {
	has, err := a.store.HasAdmin(ctx)
	if err != nil {
		a.logger.Warn("could not check for an admin user", "err", err)
		return
	}
	if has {
		return
	}
	a.logger.Info("no admin user yet: create one with `garrison init --name local --url " + url +
		" --username admin --email admin@example.com` (it asks for a password; use the URL your runners and forges reach this server at)")
}
