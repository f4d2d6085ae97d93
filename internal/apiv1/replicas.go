package apiv1

import "time"

// Replica is one garrison process among those sharing the database (GET /replicas,
// garrison's own): its id, where its API listens, the version it runs and its last
// heartbeat. Self marks the replica that answered; Alive a heartbeat within the time a
// replica's claims last.
type Replica struct {
	ID          string    `json:"id"`
	Address     string    `json:"address"`
	Version     string    `json:"version"`
	StartedAt   time.Time `json:"started_at"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	Alive       bool      `json:"alive"`
	Self        bool      `json:"self"`
}

// Claim is work a replica holds so that it happens once (GET /claims, garrison's own):
// kind (pool, sweep, scaleset) and key (pool id, entity id, scale set id), its holder
// ("" once given up), fencing token and expiry. Held says whether it is held now.
type Claim struct {
	Kind      string    `json:"kind"`
	Key       string    `json:"key"`
	Holder    string    `json:"holder"`
	Token     int64     `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	Held      bool      `json:"held"`
}
