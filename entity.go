package garrison

import (
	"strings"
	"time"
)

// EntityType names the scope at which runners register with the forge.
type EntityType string

// Entity types. The strings are the ones GARM uses in instance tokens.
const (
	Repository   EntityType = "repository"
	Organization EntityType = "organization"
	Enterprise   EntityType = "enterprise"
	// ForgeInstance is a whole Gitea server: its runners serve every repository and
	// organization of the server. Its Name is the endpoint's name and Owner is empty.
	ForgeInstance EntityType = "instance"
)

// Valid reports whether t is a known entity type.
func (t EntityType) Valid() bool {
	return t == Repository || t == Organization || t == Enterprise || t == ForgeInstance
}

// Balancer says how jobs are spread over an entity's pools of equal priority.
type Balancer string

// Balancer types.
const (
	RoundRobin Balancer = "roundrobin"
	Pack       Balancer = "pack"
)

// ParseBalancer accepts "", roundrobin and pack ("" means roundrobin).
func ParseBalancer(s string) (Balancer, error) {
	switch Balancer(s) {
	case "", RoundRobin:
		return RoundRobin, nil
	case Pack:
		return Pack, nil
	}
	return "", Errorf(EInvalid, "invalid pool balancer type %q", s)
}

// Entity is a repository, organization or enterprise whose jobs garrison serves.
type Entity struct {
	ID              string // UUID
	Type            EntityType
	Owner           string // repository owner; empty for organizations and enterprises
	Name            string // repository name, organization login or enterprise slug
	CredentialsID   uint
	CredentialsName string    // filled by the store on reads
	Endpoint        string    // endpoint name, from the credentials; filled on reads
	ForgeType       ForgeType // from the credentials; filled on reads
	WebhookSecret   string    // sealed at rest, never returned by the API
	Balancer        Balancer
	AgentMode       bool
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// FullName is owner/name for repositories and the name otherwise.
func (e Entity) FullName() string {
	if e.Type == Repository {
		return e.Owner + "/" + e.Name
	}
	return e.Name
}

// SameName reports whether e names the same forge object as the given owner and name
// (case-insensitive, as forges compare them).
func (e Entity) SameName(owner, name string) bool {
	return strings.EqualFold(e.Owner, owner) && strings.EqualFold(e.Name, name)
}

// EventLevel grades an entity or instance event.
type EventLevel string

// Event levels.
const (
	LevelInfo    EventLevel = "info"
	LevelWarning EventLevel = "warning"
	LevelError   EventLevel = "error"
)

// EventType classifies an entity or instance event.
type EventType string

// Event types.
const (
	EventStatus     EventType = "status"
	EventFetchToken EventType = "fetchToken"
)

// Event is a timestamped message attached to an entity or an instance.
type Event struct {
	ID        uint
	CreatedAt time.Time
	Type      EventType
	Level     EventLevel
	Message   string
}
