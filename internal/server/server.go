package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/events"
	"github.com/garrison-ci/garrison/internal/forge/forges"
	"github.com/garrison-ci/garrison/internal/httpapi"
	"github.com/garrison-ci/garrison/internal/instanceapi"
	"github.com/garrison-ci/garrison/internal/intake"
	"github.com/garrison-ci/garrison/internal/logstream"
	"github.com/garrison-ci/garrison/internal/metrics"
	"github.com/garrison-ci/garrison/internal/pgnotify"
	"github.com/garrison-ci/garrison/internal/reconcile"
	"github.com/garrison-ci/garrison/internal/scaleset"
	"github.com/garrison-ci/garrison/internal/scaleset/actions"
	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/sweep"
	"github.com/garrison-ci/garrison/internal/toolcache"
	"github.com/garrison-ci/garrison/internal/webui"
)

// Server is a wired garrison server: its store, providers, forges, reconciler, sweep and
// HTTP handler. New wires it, Serve runs it, Close releases the store.
type Server struct {
	cfg       Config
	logger    *slog.Logger
	store     store.Store // backend, wrapped to publish its changes to events
	backend   store.Store // the backend itself
	metrics   *metrics.Metrics
	providers []*providerInfo
	forges    *forges.Hub
	sweeper   *sweep.Sweeper
	pools     *reconcile.Reconciler
	scaleSets *scaleset.Controller // a listener per runner scale set
	actions   *actions.Hub         // Actions-service clients, per entity
	managers  *poolManagers
	handler   http.Handler
	api       *httpapi.Server  // for the event renderer and closing websocket sessions
	events    *events.Hub      // store changes for /api/v1/ws/events
	replicaID string           // this process among the replicas sharing the database
	cluster   *cluster         // the replicas and their claims; this one's heartbeat
	bus       *pgnotify.Bus    // notifications between replicas (PostgreSQL); nil: none
	tools     *toolcache.Cache // the runner-binary cache; nil when off
}

// New opens the store and wires every part of the server together. The server does
// nothing until Serve.
func New(ctx context.Context, cfg Config, logger *slog.Logger) (*Server, error) {
	m := metrics.New()
	st, err := openServerStore(ctx, cfg.Database, logger, m.ObserveWriteWait)
	if err != nil {
		return nil, err
	}
	hub := events.NewHub()
	// Every write passes through the metrics, which observe queue times as jobs change
	// stage, and then publishes its change to the event streams.
	a := &Server{cfg: cfg, logger: logger, store: events.Wrap(m.ObserveJobs(st), hub), backend: st, events: hub,
		metrics: m, managers: newPoolManagers(), replicaID: cfg.Server.ReplicaID}
	if a.replicaID == "" {
		a.replicaID = newReplicaID(cfg.APIServer.Addr())
	}
	a.cluster = newCluster(a)
	if err := a.wire(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

func (a *Server) wire(ctx context.Context) error {
	ctrl, err := a.adoptLegacyURLs(ctx)
	if err != nil {
		return err
	}
	if seeded, err := httpapi.SeedTemplates(ctx, a.store); err != nil {
		return fmt.Errorf("seed the system runner install templates: %w", err)
	} else if seeded {
		a.logger.Info("stored the system runner install templates")
	}
	a.providers, err = newProviders(a.cfg.Providers, ctrl.ID, a.logger, a.metrics)
	if err != nil {
		return err
	}
	if err := a.addMetricsSnapshot(); err != nil {
		return err
	}
	if err := a.addClaimMetrics(); err != nil {
		return err
	}
	a.forges = forges.New(forges.Options{
		Store:        a.store,
		Logger:       a.logger,
		Observer:     a.metrics,
		HookURL:      a.controllerWebhookURL,
		HooksChanged: func(entityID string) { a.sweeper.ForgetHook(entityID) },
		Health:       a.managers,
	})
	if a.tools, err = a.newToolCache(); err != nil {
		return err
	}
	tokens, err := auth.NewTokens([]byte(a.cfg.JWTAuth.Secret), a.cfg.JWTAuth.TimeToLive, nil)
	if err != nil {
		return err
	}
	if a.pools, err = a.newReconciler(tokens); err != nil {
		return err
	}
	a.wireScaleSets(ctrl)
	if err := a.wireNotifications(ctrl); err != nil {
		return err
	}
	a.sweeper, err = sweep.New(a.sweepOptions())
	if err != nil {
		return err
	}
	a.handler, err = a.newHandler(tokens)
	return err
}

// objectsDir is where the object store keeps its files: <data dir>/objects, made on
// first use; "" (the object routes unmounted) when it cannot be made, which is logged.
func (a *Server) objectsDir() string {
	if a.cfg.DataDir == "" {
		return ""
	}
	dir := filepath.Join(a.cfg.DataDir, "objects")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		a.logger.Error("object store directory", "dir", dir, "err", err)
		return ""
	}
	return dir
}

// sweepOptions are the missed-webhook sweep's options (the reconciler schedules the
// sweeps, paced by [reconcile]).
func (a *Server) sweepOptions() sweep.Options {
	return sweep.Options{
		Store:  a.store,
		Forges: a.forges.SweepForge,
		Notify: a.notifyPools,
		Logger: a.logger,
	}
}

// newHandler builds the HTTP side: the REST API, webhook intake, the instance API and the
// web UI.
func (a *Server) newHandler(tokens *auth.Tokens) (http.Handler, error) {
	webhooks, err := intake.New(intake.Options{
		Store:        a.store,
		ControllerID: a.controllerID,
		Logger:       a.logger,
		Registerer:   a.metrics.Registry,
		Notify:       a.notifyPools,
		CacheTTL:     intake.DefaultCacheTTL,
	})
	if err != nil {
		return nil, err
	}
	var instForge instanceapi.Forge = a.forges
	if a.tools != nil {
		instForge = cachedInstanceForge{Forge: a.forges, cache: a.tools}
	}
	instances, err := instanceapi.New(instanceapi.Options{
		Store:  a.store,
		Forge:  instForge,
		Tokens: tokens,
		Notify: a.notifyPools,
		Proxy:  poolProxy(a.store),
		Log:    a.logger,
	})
	if err != nil {
		return nil, err
	}
	opts := a.apiOptions(webhooks, instances)
	if a.cfg.APIServer.WebUI {
		if opts.UI, err = webui.New(); err != nil {
			return nil, err
		}
	}
	if a.api, err = httpapi.New(opts); err != nil {
		return nil, err
	}
	return a.api, nil
}

// apiOptions are the REST API's options, with the webhook and instance handlers mounted.
func (a *Server) apiOptions(webhooks, instances http.Handler) httpapi.Options {
	hostname, _ := os.Hostname()
	opts := httpapi.Options{
		Store:                   a.store,
		ObjectsDir:              a.objectsDir(),
		MaxObjectSize:           a.cfg.Objects.MaxObjectSize,
		JWTSecret:               []byte(a.cfg.JWTAuth.Secret),
		TokenTTL:                a.cfg.JWTAuth.TimeToLive,
		Logger:                  a.logger,
		AccessLogLevel:          a.cfg.Logging.AccessLevel,
		Version:                 Version(),
		Hostname:                hostname,
		CORSOrigins:             a.cfg.APIServer.CORSOrigins,
		TrustedProxies:          a.cfg.APIServer.TrustedProxies,
		EnableWebhookManagement: a.cfg.Default.EnableWebhookManagement,
		MetricsAuthDisabled:     a.cfg.Metrics.DisableAuth,
		Registerer:              a.metrics.Registry,
		Forge:                   a.forges,
		RateLimits:              a.forges,
		Webhooks:                webhooks,
		Instances:               instances,
		RunnerTools:             a.runnerToolsHandler(),
		PoolManagers:            a.managers,
		Cluster:                 a.cluster,
		RotateOutdated:          a.pools.RotateOutdated,
		Notify:                  a.notifyPools,
		ScaleSetForge:           a.actions,
		NotifyScaleSet:          a.notifyScaleSet,
		Events:                  a.events,
		Logs:                    logstream.FromLogger(a.logger),
	}
	for _, p := range a.providers {
		opts.Providers = append(opts.Providers, p)
	}
	if a.cfg.Metrics.Enable {
		opts.Metrics = a.metrics.Handler()
	}
	if a.cfg.Default.DebugServer {
		opts.Debug = pprofHandler()
	}
	return opts
}

// controllerID returns this controller's id.
func (a *Server) controllerID(ctx context.Context) (string, error) {
	c, err := a.store.Controller(ctx)
	return c.ID, err
}

// controllerWebhookURL returns the webhook URL garrison installs on forges, "" when unset.
func (a *Server) controllerWebhookURL(ctx context.Context) (string, error) {
	c, err := a.store.Controller(ctx)
	return c.WebhookURLForController(), err
}

// adoptLegacyURLs copies the [default] callback, metadata and webhook URLs of a GARM config
// into the controller settings when those are still empty, and returns the controller.
func (a *Server) adoptLegacyURLs(ctx context.Context) (garrison.Controller, error) {
	d := a.cfg.Default
	if d.CallbackURL == "" && d.MetadataURL == "" && d.WebhookURL == "" {
		return a.store.Controller(ctx)
	}
	return a.store.UpdateController(ctx, func(c *garrison.Controller) error {
		if c.CallbackURL == "" {
			c.CallbackURL = d.CallbackURL
		}
		if c.MetadataURL == "" {
			c.MetadataURL = d.MetadataURL
		}
		if c.WebhookURL == "" {
			c.WebhookURL = d.WebhookURL
		}
		return nil
	})
}

// Serve answers HTTP requests on ln until ctx is cancelled, then shuts down gracefully.
func (a *Server) Serve(ctx context.Context, ln net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait() // background work ends before the store is closed
	bg, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	for _, p := range a.providers {
		wg.Go(func() { p.introspect(bg, a.logger) })
	}
	wg.Go(func() { a.events.Run(bg, a.api.RenderChange, httpapi.ChangeFallback, a.logger) })
	wg.Go(func() { a.runNotifications(bg) })
	a.cluster.listening(ln.Addr())
	wg.Go(func() { a.cluster.heartbeat(bg) })
	a.managers.running.Store(true)
	wg.Go(func() {
		defer a.managers.running.Store(false)
		if err := a.pools.Run(bg); err != nil && !errors.Is(err, context.Canceled) {
			a.logger.Error("pool reconciler stopped", "err", err)
		}
	})
	wg.Go(func() {
		if err := a.scaleSets.Run(bg); err != nil && !errors.Is(err, context.Canceled) {
			a.logger.Error("scale-set listeners stopped", "err", err)
		}
	})
	srv := httpapi.NewHTTPServer(a.handler, httpapi.DefaultTimeouts, a.logger)
	if a.cfg.APIServer.UseTLS {
		cert, err := tls.LoadX509KeyPair(a.cfg.APIServer.TLS.Certificate, a.cfg.APIServer.TLS.Key)
		if err != nil {
			return fmt.Errorf("loading TLS certificate: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	a.api.CloseStreams() // Shutdown does not wait for hijacked websocket connections
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		a.logger.Warn("graceful shutdown incomplete", "err", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ctx.Err()
}

// Close releases the store.
func (a *Server) Close() error { return a.store.Close() }

// Wrap puts middleware in front of the server's HTTP handler (tests record requests on
// their way in). Call it before Serve.
func (a *Server) Wrap(middleware func(http.Handler) http.Handler) {
	a.handler = middleware(a.handler)
}
