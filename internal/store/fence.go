package store

import (
	"context"
	"strconv"
	"strings"
)

// Claim kinds: the part of a claim's name before its first "/".
const (
	ClaimPool     = "pool"     // pool/<pool id>: a pool's reconciles, instance steps and repairs
	ClaimSweep    = "sweep"    // sweep/<entity id>: an entity's missed-webhook sweep
	ClaimScaleSet = "scaleset" // scaleset/<scale set id>: a scale set's message session
)

// PoolClaim, SweepClaim and ScaleSetClaim name the claims of a pool, an entity's sweep
// and a scale set's session.
func PoolClaim(poolID string) string    { return ClaimPool + "/" + poolID }
func SweepClaim(entityID string) string { return ClaimSweep + "/" + entityID }
func ScaleSetClaim(id uint) string      { return ClaimScaleSet + "/" + strconv.FormatUint(uint64(id), 10) }

// Fence is a claim and the fencing token its holder got when it took the claim. Tokens
// of a claim only grow: each takeover (a holder other than the last one) gets a larger
// one, and a renewal by the same holder keeps it.
//
// A write whose context carries a Fence (WithFence) is made only if no newer token of
// the claim exists; the check and the write are one transaction. Otherwise the write is
// refused with an error matching garrison.ErrFenced: the holder paused past its claim's
// expiry and another replica took the claim over.
type Fence struct {
	Claim string
	Token int64
}

// Kind returns the claim's kind (ClaimPool, ClaimSweep, ClaimScaleSet).
func (f Fence) Kind() string { return ClaimKind(f.Claim) }

// ClaimKind returns the kind of a claim name: the part before its first "/".
func ClaimKind(name string) string {
	kind, _, _ := strings.Cut(name, "/")
	return kind
}

type fenceKey struct{}

// WithFence returns ctx carrying f: the store's writes made with it are fenced by f.
func WithFence(ctx context.Context, f Fence) context.Context {
	return context.WithValue(ctx, fenceKey{}, &f)
}

// WithoutFence returns ctx without a fence, for a write that must happen whoever holds
// the claim now (giving a claim up, taking one).
func WithoutFence(ctx context.Context) context.Context {
	if _, ok := FenceOf(ctx); !ok {
		return ctx
	}
	return context.WithValue(ctx, fenceKey{}, (*Fence)(nil))
}

// FenceOf returns the fence ctx carries, if any.
func FenceOf(ctx context.Context) (Fence, bool) {
	f, _ := ctx.Value(fenceKey{}).(*Fence)
	if f == nil {
		return Fence{}, false
	}
	return *f, true
}
