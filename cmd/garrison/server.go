package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"

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
passphrase and a JWT secret into a 0600 file there.`,
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

// serve runs the server until ctx is cancelled.
func serve(ctx context.Context, cfg serverConfig, stderr io.Writer) error {
	logger, closer, err := newLogger(cfg.Logging, stderr)
	if err != nil {
		return err
	}
	defer closer.Close()
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
	err = a.Serve(ctx, ln)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
