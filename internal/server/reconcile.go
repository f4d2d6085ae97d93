package server

import (
	"context"
	"encoding/json"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/garrison-ci/garrison/internal/bootstrap"
	"github.com/garrison-ci/garrison/internal/config"
	"github.com/garrison-ci/garrison/internal/reconcile"
)

// newReconciler wires the pool reconciler to the store, the providers, the forges and the
// instance token minter.
func (a *Server) newReconciler(tokens *auth.Tokens) (*reconcile.Reconciler, error) {
	return reconcile.New(a.reconcileOptions(tokens))
}

// reconcileOptions are the pool reconciler's options, from the providers and [reconcile].
func (a *Server) reconcileOptions(tokens *auth.Tokens) reconcile.Options {
	provs := reconcile.ProviderMap{}
	for _, p := range a.providers {
		provs[p.cfg.Name] = reconcile.ProviderEntry{
			Provider:         p.exec,
			ProviderSettings: reconcile.ProviderSettings{DisableJIT: p.cfg.DisableJITConfig, Concurrency: p.cfg.MaxConcurrency},
		}
	}
	return reconcile.Options{
		Store:          a.store,
		Providers:      provs,
		Forges:         a.reconcileForges(),
		Tokens:         tokens,
		InjectTemplate: injectTemplate,
		Proxy:          poolProxy(a.store),
		Leases:         a.leases(),
		Holder:         a.replicaID,
		LeaseTTL:       a.cfg.Server.LeaseTTL,
		Logger:         a.logger,
		Policy: reconcile.Policy{
			MaxCreateAttempts: a.cfg.Reconcile.MaxCreateAttempts,
			ScaleDownGrace:    a.cfg.Reconcile.ScaleDownGrace,
			RetryBackoff:      a.cfg.Reconcile.RetryBackoff,
			MaxRetryBackoff:   a.cfg.Reconcile.MaxRetryBackoff,
			StrandedAfter:     a.cfg.Reconcile.StrandedTimeout,
		},
		PoolStatus:      a.managers.PoolStatus,
		ResyncInterval:  a.cfg.Reconcile.ResyncInterval,
		RepairInterval:  a.cfg.Reconcile.RepairInterval,
		Sweep:           a.sweepEntity,
		SweepInterval:   a.cfg.Reconcile.SweepInterval,
		SweepStartDelay: a.cfg.Reconcile.SweepStartDelay,
		Registerer:      a.metrics.Registry,
	}
}

// sweepEntity sweeps one entity for lost webhooks (the reconciler schedules the sweeps).
func (a *Server) sweepEntity(ctx context.Context, e garrison.Entity) error {
	_, err := a.sweeper.SweepEntity(ctx, e)
	return err
}

// leases returns the pool leases replicas share: PostgreSQL's. A SQLite file serves one
// server, so it needs none, and its reconciler then triages idle pools without a write
// per pool (see reconcile.Options.Leases).
func (a *Server) leases() reconcile.Leases {
	if a.cfg.Database.Backend != config.BackendPostgres {
		return nil
	}
	return a.store
}

// injectTemplate adds garrison's bootstrap wrapper to a pool's extra specs.
func injectTemplate(extraSpecs json.RawMessage, osType string, p reconcile.TemplateParams) (json.RawMessage, error) {
	return bootstrap.InjectTemplate(extraSpecs, osType, bootstrap.WrapperParams(p))
}
