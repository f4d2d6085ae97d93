package forges

import (
	"context"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/gitea"
	"github.com/garrison-ci/garrison/internal/forge/github"
	"github.com/garrison-ci/garrison/provider"
)

// Client is the method set both forge clients share, in the domain's types: the hub
// routes every call to the client of the entity's credentials without knowing which
// forge answers. A forge without just-in-time runners (Gitea) answers CreateJITConfig
// with an error wrapping garrison.ErrJITUnsupported.
type Client interface {
	CreateJITConfig(ctx context.Context, e garrison.Entity, req garrison.JITRequest) (garrison.JITConfig, error)
	RegistrationToken(ctx context.Context, e garrison.Entity) (string, error)
	ListRunners(ctx context.Context, e garrison.Entity) ([]garrison.Runner, error)
	DeleteRunner(ctx context.Context, e garrison.Entity, id int64) error
	RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error)
	InstallHook(ctx context.Context, e garrison.Entity, url, secret string) (garrison.Hook, error)
	FindHook(ctx context.Context, e garrison.Entity, url string) (garrison.Hook, error)
	RemoveHook(ctx context.Context, e garrison.Entity, url string) error
	QueuedJobs(ctx context.Context, e garrison.Entity) ([]garrison.Job, error)
	// RateLimit is the last known core API budget, without calling the forge; false
	// when the forge reports none.
	RateLimit() (garrison.RateLimit, bool)
}

// deliveryLister is what a forge with a webhook delivery API (GitHub) adds: the
// missed-webhook sweep asks it to redeliver what garrison missed.
type deliveryLister interface {
	ListHookDeliveries(ctx context.Context, e garrison.Entity, hookID int64, since time.Time) ([]garrison.HookDelivery, error)
	Redeliver(ctx context.Context, e garrison.Entity, hookID, deliveryID int64) error
}

var (
	_ Client         = (*github.Client)(nil)
	_ Client         = (*gitea.Client)(nil)
	_ deliveryLister = (*github.Client)(nil)
)
