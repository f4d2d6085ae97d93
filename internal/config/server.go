package config

import (
	"strings"
	"time"
)

// Defaults of [server] (a garrison section: GARM runs as one process).
const (
	DefaultLeaseTTL = time.Minute
	MinLeaseTTL     = time.Second
	maxReplicaID    = 100
)

// Server holds [server]: this process among the replicas sharing a PostgreSQL database.
type Server struct {
	// ReplicaID is replica_id: the name of this replica in claims, heartbeats and
	// notifications; "" lets the server pick host name, process id and a random suffix
	// at each start.
	ReplicaID string
	// LeaseTTL is lease_ttl: how long a replica's claim on a pool or a sweep lasts
	// without renewal, so how long a dead replica's pools wait for another replica.
	LeaseTTL time.Duration
}

// fileServer is [server] as written.
type fileServer struct {
	// replica_id: printable ASCII without spaces or commas, at most 100 bytes.
	ReplicaID *string `toml:"replica_id"`
	// lease_ttl: Go duration, default "1m", at least "1s".
	LeaseTTL *string `toml:"lease_ttl"`
}

// defaultServer returns [server]'s defaults.
func defaultServer() Server { return Server{LeaseTTL: DefaultLeaseTTL} }

// resolveServer checks [server].
func resolveServer(s *fileServer, errs *problems) Server {
	out := defaultServer()
	if s.ReplicaID != nil {
		id := *s.ReplicaID
		switch {
		case id == "" || len(id) > maxReplicaID:
			errs.field("server.replica_id", "must be 1-%d bytes, got %d", maxReplicaID, len(id))
		case strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r > '~' || r == ',' }):
			errs.field("server.replica_id", "must be printable ASCII without spaces or commas, got %q", id)
		default:
			out.ReplicaID = id
		}
	}
	if s.LeaseTTL != nil {
		v, ok := parseDuration(errs, "server.lease_ttl", *s.LeaseTTL)
		switch {
		case !ok:
		case v < MinLeaseTTL:
			errs.field("server.lease_ttl", "must be at least %v, got %q", MinLeaseTTL, *s.LeaseTTL)
		default:
			out.LeaseTTL = v
		}
	}
	return out
}
