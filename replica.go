package garrison

import "time"

// Replica is one garrison process among those sharing a database. Each writes a
// heartbeat; one whose heartbeat is older than its claims' lifetime is gone, and its
// claims are taken over as they expire.
type Replica struct {
	// ID names the replica in claims: [server] replica_id, or host name, process id and
	// a random suffix.
	ID string
	// Address is where its API listens; Version the garrison build it runs.
	Address string
	Version string
	// StartedAt is when the process started, HeartbeatAt its last heartbeat.
	StartedAt   time.Time
	HeartbeatAt time.Time
}

// Claim is work one replica holds so that it happens once: a pool's reconciles
// (ClaimPool), an entity's sweep, a scale set's message session. Holder is "" once
// given up. Token is its fencing token: it grows on each takeover, and a write made
// under an older token is refused (ErrFenced).
type Claim struct {
	Kind      string
	Key       string
	Holder    string
	Token     int64
	ExpiresAt time.Time
}

// HeldAt reports whether someone holds the claim at t.
func (c Claim) HeldAt(t time.Time) bool { return c.Holder != "" && c.ExpiresAt.After(t) }
