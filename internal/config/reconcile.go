package config

import "time"

// Defaults of [reconcile] (a garrison section: GARM has no equivalent).
const (
	DefaultScaleDownGrace    = 5 * time.Minute
	DefaultMaxCreateAttempts = 5
	DefaultResyncInterval    = time.Minute
	DefaultRepairInterval    = 5 * time.Minute
	DefaultSweepInterval     = 10 * time.Minute
	DefaultSweepStartDelay   = time.Minute
	DefaultRetryBackoff      = 10 * time.Second
	DefaultMaxRetryBackoff   = 5 * time.Minute
	DefaultStrandedTimeout   = 10 * time.Minute
)

// Reconcile holds [reconcile]: how the pool reconciler and the missed-webhook sweep pace
// themselves.
type Reconcile struct {
	// ScaleDownGrace is scale_down_grace: how long a surplus idle runner is left alone
	// before it is removed.
	ScaleDownGrace time.Duration
	// MaxCreateAttempts is max_create_attempts: CreateInstance attempts per instance
	// before it is left in error.
	MaxCreateAttempts int
	// ResyncInterval is resync_interval: every pool is looked at this often even without
	// events.
	ResyncInterval time.Duration
	// RepairInterval is repair_interval: how often each pool compares the store, the
	// provider and the forge.
	RepairInterval time.Duration
	// SweepInterval is sweep_interval: how often each entity's queued jobs and failed
	// webhook deliveries are checked at the forge.
	SweepInterval time.Duration
	// SweepStartDelay is sweep_start_delay: the first sweep of each entity happens within
	// this time after the server starts, so webhooks lost while it was down are found soon.
	SweepStartDelay time.Duration
	// RetryBackoff is retry_backoff: the wait before the first retry of a failed create,
	// and before the first new runner of a pool whose runner failed; it doubles per
	// failure up to MaxRetryBackoff (max_retry_backoff).
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// StrandedTimeout is stranded_runner_timeout: an idle runner the forge lists offline
	// (or not at all) for this long while its instance runs is recycled.
	StrandedTimeout time.Duration
}

// fileReconcile is [reconcile] as written.
type fileReconcile struct {
	// scale_down_grace: Go duration, default "5m".
	ScaleDownGrace *string `toml:"scale_down_grace"`
	// max_create_attempts: default 5.
	MaxCreateAttempts *int `toml:"max_create_attempts"`
	// resync_interval: Go duration, default "1m".
	ResyncInterval *string `toml:"resync_interval"`
	// repair_interval: Go duration, default "5m".
	RepairInterval *string `toml:"repair_interval"`
	// sweep_interval: Go duration, default "10m".
	SweepInterval *string `toml:"sweep_interval"`
	// sweep_start_delay: Go duration, default "1m".
	SweepStartDelay *string `toml:"sweep_start_delay"`
	// retry_backoff: Go duration, default "10s".
	RetryBackoff *string `toml:"retry_backoff"`
	// max_retry_backoff: Go duration, default "5m"; not below retry_backoff.
	MaxRetryBackoff *string `toml:"max_retry_backoff"`
	// stranded_runner_timeout: Go duration, default "10m".
	StrandedTimeout *string `toml:"stranded_runner_timeout"`
}

// defaultReconcile returns [reconcile]'s defaults.
func defaultReconcile() Reconcile {
	return Reconcile{
		ScaleDownGrace: DefaultScaleDownGrace, MaxCreateAttempts: DefaultMaxCreateAttempts,
		ResyncInterval: DefaultResyncInterval, RepairInterval: DefaultRepairInterval,
		SweepInterval: DefaultSweepInterval, SweepStartDelay: DefaultSweepStartDelay,
		RetryBackoff: DefaultRetryBackoff, MaxRetryBackoff: DefaultMaxRetryBackoff, StrandedTimeout: DefaultStrandedTimeout,
	}
}

// resolveReconcile checks [reconcile].
func resolveReconcile(r *fileReconcile, errs *problems) Reconcile {
	out := defaultReconcile()
	durations := []struct {
		key  string
		raw  *string
		dst  *time.Duration
		zero bool // whether 0 is allowed
	}{
		{"reconcile.scale_down_grace", r.ScaleDownGrace, &out.ScaleDownGrace, false},
		{"reconcile.resync_interval", r.ResyncInterval, &out.ResyncInterval, false},
		{"reconcile.repair_interval", r.RepairInterval, &out.RepairInterval, false},
		{"reconcile.sweep_interval", r.SweepInterval, &out.SweepInterval, false},
		{"reconcile.sweep_start_delay", r.SweepStartDelay, &out.SweepStartDelay, false},
		{"reconcile.retry_backoff", r.RetryBackoff, &out.RetryBackoff, false},
		{"reconcile.max_retry_backoff", r.MaxRetryBackoff, &out.MaxRetryBackoff, false},
		{"reconcile.stranded_runner_timeout", r.StrandedTimeout, &out.StrandedTimeout, false},
	}
	for _, d := range durations {
		if d.raw == nil {
			continue
		}
		v, ok := parseDuration(errs, d.key, *d.raw)
		switch {
		case !ok:
		case v < 0 || (v == 0 && !d.zero):
			errs.field(d.key, "must be positive, got %q", *d.raw)
		default:
			*d.dst = v
		}
	}
	if out.MaxRetryBackoff < out.RetryBackoff {
		errs.field("reconcile.max_retry_backoff", "must not be below reconcile.retry_backoff (%v), got %v", out.RetryBackoff, out.MaxRetryBackoff)
	}
	if r.MaxCreateAttempts != nil {
		if n := *r.MaxCreateAttempts; n < 1 || n > 100 {
			errs.field("reconcile.max_create_attempts", "must be 1-100, got %d", n)
		} else {
			out.MaxCreateAttempts = n
		}
	}
	return out
}
