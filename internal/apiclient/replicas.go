package apiclient

import (
	"context"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

// ListReplicas lists the replicas sharing the server's database (GET /replicas,
// garrison's own).
func (c *Client) ListReplicas(ctx context.Context) ([]apiv1.Replica, error) {
	return get[[]apiv1.Replica](ctx, c, "/replicas", nil)
}

// ListClaims lists what each replica holds: pools, sweeps, scale-set sessions (GET
// /claims, garrison's own).
func (c *Client) ListClaims(ctx context.Context) ([]apiv1.Claim, error) {
	return get[[]apiv1.Claim](ctx, c, "/claims", nil)
}
