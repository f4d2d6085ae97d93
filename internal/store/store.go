// Package store is garrison's storage contract: one small interface per aggregate, and
// Store, which a backend (store/sqlite, store/postgres) implements in full. Consumers
// declare the narrower interfaces they need.
//
// Errors are *garrison.Error values told apart with errors.Is:
//   - garrison.ErrNotFound: the named row does not exist;
//   - garrison.ErrConflict: a unique name is taken, or a create-once row exists already;
//   - garrison.ErrInvalid: a referential rule forbids the change (a row still in use);
//   - garrison.ErrFenced: a write under a claim (a context with a Fence) whose claim
//     another replica took over since (see Fence).
//
// Update methods take a callback that runs inside the backend's transaction with the row
// read under a write lock: read-modify-write is atomic, across replicas on PostgreSQL too.
// A callback error aborts the update and is returned unchanged.
//
// Secrets (credentials' PAT and App key, webhook secrets, JIT configs) are sealed by the
// backend with the Sealer it was opened with before they reach disk.
package store

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/garrison-ci/garrison"
)

// Sealer encrypts secrets at rest.
type Sealer interface {
	Seal(plaintext []byte) ([]byte, error)
	Open(sealed []byte) ([]byte, error)
}

// ErrWrongPassphrase is returned when a backend opens a database whose secrets were sealed
// with a different passphrase: the database's sealed check value does not open.
var ErrWrongPassphrase = errors.New("store: wrong passphrase: the database's secrets were sealed with a different key")

// ErrSchemaTooNew is returned when a backend opens a database migrated by a newer garrison
// than this one: it refuses to work on a schema it does not know.
var ErrSchemaTooNew = errors.New("store: the database schema is newer than this garrison; upgrade garrison")

// NewSealer makes the Sealer for a database from the random salt the database keeps. A
// backend calls it once when it opens, creating the salt on first use.
type NewSealer func(salt []byte) (Sealer, error)

// Controllers keeps the single controller row.
type Controllers interface {
	// Controller returns the controller, creating it with a fresh UUID on first call.
	Controller(ctx context.Context) (garrison.Controller, error)
	UpdateController(ctx context.Context, fn func(*garrison.Controller) error) (garrison.Controller, error)
}

// Users keeps the administrator.
type Users interface {
	HasAdmin(ctx context.Context) (bool, error)
	// CreateAdmin stores the first user; ErrConflict if any user exists.
	CreateAdmin(ctx context.Context, u garrison.User) (garrison.User, error)
	// Admin returns the user CreateAdmin stored; ErrNotFound before it did.
	Admin(ctx context.Context) (garrison.User, error)
	User(ctx context.Context, id string) (garrison.User, error)
	UserByName(ctx context.Context, username string) (garrison.User, error)
	UpdateUser(ctx context.Context, id string, fn func(*garrison.User) error) (garrison.User, error)
}

// Endpoints keeps forge endpoints. Names are unique across forge types, case-insensitively.
type Endpoints interface {
	// CreateEndpoint: ErrConflict if the name exists for any forge type.
	CreateEndpoint(ctx context.Context, e garrison.Endpoint) (garrison.Endpoint, error)
	Endpoint(ctx context.Context, name string) (garrison.Endpoint, error)
	// ListEndpoints lists endpoints of one forge type, or all when t is "", in creation
	// order.
	ListEndpoints(ctx context.Context, t garrison.ForgeType) ([]garrison.Endpoint, error)
	// UpdateEndpoint: ErrInvalid if a URL changes while credentials use the endpoint.
	UpdateEndpoint(ctx context.Context, name string, fn func(*garrison.Endpoint) error) (garrison.Endpoint, error)
	// DeleteEndpoint: ErrInvalid while credentials or entities use it; nil if missing.
	DeleteEndpoint(ctx context.Context, name string) error
}

// CredentialsFilter narrows ListCredentials. Empty fields match everything; Name matches
// case-insensitively.
type CredentialsFilter struct {
	ForgeType garrison.ForgeType
	Name      string
	Endpoint  string
}

// Credentials keeps forge credentials. Names are unique per forge type, case-insensitively.
type Credentials interface {
	// CreateCredentials: ErrNotFound if the endpoint of that forge type does not exist,
	// ErrConflict if the name is taken. Returns the row with its new ID.
	CreateCredentials(ctx context.Context, c garrison.Credentials) (garrison.Credentials, error)
	Credentials(ctx context.Context, id uint) (garrison.Credentials, error)
	// ListCredentials lists the credentials matching f in creation order.
	ListCredentials(ctx context.Context, f CredentialsFilter) ([]garrison.Credentials, error)
	UpdateCredentials(ctx context.Context, id uint, fn func(*garrison.Credentials) error) (garrison.Credentials, error)
	// DeleteCredentials: ErrInvalid while entities use them; nil if missing.
	DeleteCredentials(ctx context.Context, id uint) error
}

// EntityFilter narrows ListEntities. Empty fields match everything; Owner, Name and
// Endpoint match exactly but case-insensitively.
type EntityFilter struct {
	Type     garrison.EntityType
	Owner    string
	Name     string
	Endpoint string
}

// Entities keeps repositories, organizations and enterprises and their events. Reads fill
// CredentialsName, Endpoint and ForgeType from the credentials.
type Entities interface {
	// CreateEntity: ErrConflict if the same type, owner and name exist on the same
	// endpoint (case-insensitive); ErrNotFound if the credentials do not exist.
	CreateEntity(ctx context.Context, e garrison.Entity) (garrison.Entity, error)
	Entity(ctx context.Context, id string) (garrison.Entity, error)
	// ListEntities lists the entities matching f in creation order.
	ListEntities(ctx context.Context, f EntityFilter) ([]garrison.Entity, error)
	UpdateEntity(ctx context.Context, id string, fn func(*garrison.Entity) error) (garrison.Entity, error)
	// DeleteEntity: ErrInvalid while pools or scale sets exist; ErrNotFound if missing.
	DeleteEntity(ctx context.Context, id string) error
	// AddEntityEvent records an event; only the newest ones are kept (at least 100).
	AddEntityEvent(ctx context.Context, entityID string, ev garrison.Event) error
	// EntityEvents returns up to limit events, oldest first.
	EntityEvents(ctx context.Context, entityID string, limit int) ([]garrison.Event, error)
}

// PoolFilter narrows ListPools. Empty fields match everything.
type PoolFilter struct {
	EntityID string
}

// Pools keeps pools. Tags are global rows: a tag name gets one ID (case-insensitive) and
// reads return tags with their IDs.
type Pools interface {
	// CreatePool: ErrNotFound if the entity does not exist.
	CreatePool(ctx context.Context, p garrison.Pool) (garrison.Pool, error)
	Pool(ctx context.Context, id string) (garrison.Pool, error)
	// ListPools lists the pools matching f in creation order.
	ListPools(ctx context.Context, f PoolFilter) ([]garrison.Pool, error)
	UpdatePool(ctx context.Context, id string, fn func(*garrison.Pool) error) (garrison.Pool, error)
	// DeletePool: ErrInvalid while the pool has instances other than history (status
	// deleted, removed with it); ErrNotFound if missing.
	DeletePool(ctx context.Context, id string) error
}

// TemplateFilter narrows ListTemplates. Empty fields match everything.
type TemplateFilter struct {
	PartialName string // a case-insensitive substring of the name
	OSType      string
	ForgeType   garrison.ForgeType
	Owner       string // garrison.SystemOwner for the built-in templates
}

// Templates keeps runner install templates. Names are unique case-insensitively across
// owners. Pools refer to a template by ID (Pool.TemplateID); scale sets will too.
type Templates interface {
	// CreateTemplate: ErrInvalid if the template does not validate, ErrConflict if the
	// name is taken. Returns the row with its new ID.
	CreateTemplate(ctx context.Context, t garrison.Template) (garrison.Template, error)
	Template(ctx context.Context, id uint) (garrison.Template, error)
	// ListTemplates lists the templates matching f in ID order.
	ListTemplates(ctx context.Context, f TemplateFilter) ([]garrison.Template, error)
	// UpdateTemplate: ID, Owner and CreatedAt cannot change; ErrConflict if the new name
	// is taken.
	UpdateTemplate(ctx context.Context, id uint, fn func(*garrison.Template) error) (garrison.Template, error)
	// DeleteTemplate: ErrInvalid while pools use it; nil if missing.
	DeleteTemplate(ctx context.Context, id uint) error
	// SeedTemplates stores ts with new IDs, in order, only when no template exists at
	// all, and reports whether it did.
	SeedTemplates(ctx context.Context, ts []garrison.Template) (bool, error)
}

// ScaleSetFilter narrows ListScaleSets. Empty fields match everything.
type ScaleSetFilter struct {
	EntityID string
}

// ScaleSets keeps runner scale sets, the claim on each one's message session and the
// listener's progress. Tags are the global tag rows, as for pools.
type ScaleSets interface {
	// CreateScaleSet validates and stores a new scale set with a new ID; ErrNotFound if
	// the entity does not exist; ErrConflict if the entity has a scale set of that name in
	// that runner group (case-insensitive).
	CreateScaleSet(ctx context.Context, s garrison.ScaleSet) (garrison.ScaleSet, error)
	ScaleSet(ctx context.Context, id uint) (garrison.ScaleSet, error)
	// ListScaleSets lists the scale sets matching f in creation order.
	ListScaleSets(ctx context.Context, f ScaleSetFilter) ([]garrison.ScaleSet, error)
	// UpdateScaleSet runs fn under a write lock, validates and stores the result. fn
	// cannot change ID, EntityID, CreatedAt, LastMessageID or Session (the listener's
	// own, written by the methods below); the generation is bumped as for pools. A new
	// ScaleSetID (the scale set recreated on the forge) resets LastMessageID to 0.
	UpdateScaleSet(ctx context.Context, id uint, fn func(*garrison.ScaleSet) error) (garrison.ScaleSet, error)
	// DeleteScaleSet: ErrInvalid while it has instances; nil if missing.
	DeleteScaleSet(ctx context.Context, id uint) error
	// ClaimScaleSetSession acquires or renews the scale set's session claim for owner
	// until ttl from now and reports whether owner has it, with the claim as it was
	// before (whose SessionID, after a takeover, names the dead holder's forge session).
	// An expired claim of another owner is taken over. The returned Token is the
	// exception: it is the claim's fencing token after the call, larger after a takeover
	// (or a claim of a released session); the owner's writes under the claim carry it as
	// a Fence on ScaleSetClaim(id). ErrNotFound if the scale set does not exist.
	ClaimScaleSetSession(ctx context.Context, id uint, owner string, ttl time.Duration) (garrison.ScaleSetSession, bool, error)
	// SetScaleSetSessionID records the forge session the claim's owner opened ("" once
	// closed); ErrConflict if owner does not hold the claim.
	SetScaleSetSessionID(ctx context.Context, id uint, owner, sessionID string) error
	// ReleaseScaleSetSession gives the claim up if owner holds it.
	ReleaseScaleSetSession(ctx context.Context, id uint, owner string) error
	// RecordScaleSetMessage stores the listener's progress after a message: its id (kept
	// only if larger than the stored one, so nothing is replayed) and the desired runner
	// count of its statistics. ErrConflict if owner does not hold the claim: a listener
	// that lost its session must not write.
	RecordScaleSetMessage(ctx context.Context, id uint, owner string, messageID int64, desired int) error
}

// InstanceFilter narrows ListInstances. Empty fields match everything.
// EntityID selects the runners of the entity's pools (as GARM's per-entity list does, not
// those of its scale sets); ScaleSetID the runners of one scale set.
type InstanceFilter struct {
	PoolID     string
	EntityID   string
	ScaleSetID uint
}

// Instances keeps instances and their status messages.
type Instances interface {
	// CreateInstance: ErrConflict if the name (or a non-empty provider id) is taken;
	// ErrNotFound if the pool does not exist. Status messages given are recorded in the
	// same write.
	CreateInstance(ctx context.Context, i garrison.Instance) (garrison.Instance, error)
	// Instance looks an instance up by name, with its newest status messages.
	Instance(ctx context.Context, name string) (garrison.Instance, error)
	InstanceByID(ctx context.Context, id string) (garrison.Instance, error)
	// ListInstances returns instances in creation order, without status messages and with
	// JITConfig nil: lists do not read or unseal the sealed JIT config. Only
	// single-instance reads (Instance, InstanceByID, the instance UpdateInstance passes to
	// fn and returns) carry it; read the instance when its JIT config is needed.
	ListInstances(ctx context.Context, f InstanceFilter) ([]garrison.Instance, error)
	// UpdateInstance: ErrConflict if the provider id becomes a duplicate. Status
	// messages fn appends to the instance's are recorded in the same transaction, as
	// AddInstanceEvent records one (a transition and its message are one write).
	UpdateInstance(ctx context.Context, name string, fn func(*garrison.Instance) error) (garrison.Instance, error)
	// DeleteInstance removes the row; nil if missing.
	DeleteInstance(ctx context.Context, name string) error
	// AddInstanceEvent records a status message, keeping the newest MaxStatusMessages.
	// A message longer than garrison.MaxEventMessageBytes is cut (garrison.TruncateMessage).
	AddInstanceEvent(ctx context.Context, name string, ev garrison.Event) error
}

// JobFilter narrows ListJobs. Empty fields match everything.
type JobFilter struct {
	EntityID string
	Action   garrison.JobAction
	// UpdatedSince keeps the jobs updated at or after this time (zero: all).
	UpdatedSince time.Time
}

// JobRecord is a job ledger write together with the update it makes to the instance of
// the job's runner (RecordJob): a delivery saying a runner started or finished a job is
// one write, not two.
type JobRecord struct {
	ID  int64
	Job func(j *garrison.Job, exists bool) error // as UpsertJob's fn
	// Runner names the instance to update after the job; "" for none.
	Runner string
	// Instance edits the runner's instance given the job as written; false leaves it
	// unwritten. Status messages it appends are recorded as UpdateInstance's are.
	Instance func(i *garrison.Instance, j garrison.Job) bool
}

// Jobs keeps the job ledger.
type Jobs interface {
	// UpsertJob creates or updates the job with the given workflow job id atomically. fn
	// receives the current row (zero Job with ID set when exists is false) and edits it in
	// place. A new job gets the next Seq, never one a deleted job had; ID, Seq and
	// CreatedAt cannot change.
	UpsertJob(ctx context.Context, id int64, fn func(j *garrison.Job, exists bool) error) (garrison.Job, error)
	// RecordJob is UpsertJob of r.ID with r.Job and then, in the same write, an update of
	// the instance named r.Runner by r.Instance, which is given the job as written and
	// returns false to leave the instance unwritten. The updated instance is returned,
	// nil when there is none: no r.Runner, no such instance, or r.Instance declined.
	RecordJob(ctx context.Context, r JobRecord) (garrison.Job, *garrison.Instance, error)
	// Job returns the job with the given workflow job id.
	Job(ctx context.Context, id int64) (garrison.Job, error)
	// ListJobs lists the jobs matching f in creation order (by Seq).
	ListJobs(ctx context.Context, f JobFilter) ([]garrison.Job, error)
	DeleteJob(ctx context.Context, id int64) error
}

// Leases claim work that must happen once across replicas sharing one database: a pool's
// reconcile, an entity's sweep. A lease is held by one holder until it expires; its holder
// renews it by calling Lease again before then. Each lease carries a fencing token (see
// Fence): writes made under it carry the token (WithFence) and are refused once another
// holder took the lease over.
type Leases interface {
	// Lease acquires or renews the named lease for holder until ttl from now, and reports
	// whether holder has it, with its fence. An expired lease of another holder is taken
	// over with a larger token; a renewal keeps the token.
	Lease(ctx context.Context, name, holder string, ttl time.Duration) (Fence, bool, error)
	// ReleaseLease gives the lease up early if holder has it. The lease keeps its token,
	// so the next holder's is larger.
	ReleaseLease(ctx context.Context, name, holder string) error
}

// Replicas keeps the replicas sharing the database and shows the claims they hold.
type Replicas interface {
	// Heartbeat records that the replica is alive now, creating its row on the first
	// call; the store sets HeartbeatAt (and StartedAt when zero) and returns the row.
	Heartbeat(ctx context.Context, r garrison.Replica) (garrison.Replica, error)
	// ListReplicas lists the replicas by ID.
	ListReplicas(ctx context.Context) ([]garrison.Replica, error)
	// RemoveReplica removes a replica's row (a clean shutdown); nil if missing.
	RemoveReplica(ctx context.Context, id string) error
	// PruneReplicas removes the replicas whose last heartbeat is before t and returns
	// how many it removed.
	PruneReplicas(ctx context.Context, before time.Time) (int, error)
	// ListClaims lists every claim, held or not: the leases and the scale sets' session
	// claims, by kind and key.
	ListClaims(ctx context.Context) ([]garrison.Claim, error)
}

// Proxies keeps proxies (rest-api-2 §6). Names are unique, case-insensitively; the
// password is sealed.
type Proxies interface {
	// CreateProxy: ErrInvalid unless the proxy validates; ErrConflict if the name is taken.
	CreateProxy(ctx context.Context, p garrison.Proxy) (garrison.Proxy, error)
	Proxy(ctx context.Context, id uint) (garrison.Proxy, error)
	// ListProxies lists every proxy by ID.
	ListProxies(ctx context.Context) ([]garrison.Proxy, error)
	// UpdateProxy: the result must validate (ErrInvalid); ErrConflict if the name is taken.
	UpdateProxy(ctx context.Context, id uint, fn func(*garrison.Proxy) error) (garrison.Proxy, error)
	// DeleteProxy: ErrInvalid while pools reference it; nil if missing.
	DeleteProxy(ctx context.Context, id uint) error
}

// ObjectChunkSize is the most content one chunk row of an object holds: small enough
// that reading or writing one holds little memory, large enough that a 1 GiB object is a
// few thousand rows.
const ObjectChunkSize = 512 << 10

// Objects keeps the object store (rest-api-2 §7): the catalogue and the content, cut into
// chunk rows so that every replica serves every object and no call holds more than a
// chunk in memory.
type Objects interface {
	// CreateObject records an object without content: ErrInvalid for a bad name. Tags
	// are normalized.
	CreateObject(ctx context.Context, o garrison.FileObject) (garrison.FileObject, error)
	// CreateObjectContent records an object with its content (exactly o.Size bytes of
	// content, read from the start; it may be read again when a write is retried).
	CreateObjectContent(ctx context.Context, o garrison.FileObject, content io.ReadSeeker) (garrison.FileObject, error)
	// SetObjectContent stores the content of an object recorded without it.
	SetObjectContent(ctx context.Context, id uint, content io.ReadSeeker) error
	// HasObjectContent reports whether the content of object id is stored.
	HasObjectContent(ctx context.Context, id uint) (bool, error)
	// WriteObjectContent copies the content of object id to w: ENotFound for an unknown
	// object or one whose content is not stored.
	WriteObjectContent(ctx context.Context, id uint, w io.Writer) error
	Object(ctx context.Context, id uint) (garrison.FileObject, error)
	// ListObjects lists every object, newest first.
	ListObjects(ctx context.Context) ([]garrison.FileObject, error)
	// UpdateObject stores the name, description and tags fn sets.
	UpdateObject(ctx context.Context, id uint, fn func(*garrison.FileObject) error) (garrison.FileObject, error)
	// DeleteObject: nil if missing.
	DeleteObject(ctx context.Context, id uint) error
}

// Snapshot is a whole installation written at once by Import: rows read from another
// runner manager's database (garrison import-garm), their ids and timestamps kept. Secrets
// are in clear; the backend seals them. A zero CreatedAt or UpdatedAt becomes the time of
// the import.
type Snapshot struct {
	// Controller replaces the controller's id and settings (SealSalt is ignored).
	Controller garrison.Controller
	Users      []garrison.User
	// Endpoints are created; one that exists already (garrison seeds github.com) is
	// overwritten with these values, keeping its name, unless its forge type differs or
	// credentials use it and a URL would change (ErrConflict).
	Endpoints []garrison.Endpoint
	// Credentials keep their IDs; later creates get IDs above them.
	Credentials []garrison.Credentials
	// Entities keep their IDs; Endpoint and ForgeType come from the credentials.
	Entities []garrison.Entity
	// EntityEvents are the events of the entities, by entity ID, oldest first.
	EntityEvents map[string][]garrison.Event
	// Tags keep their IDs unless a tag of the same name (case-insensitive) exists.
	Tags []garrison.Tag
	// Templates keep their IDs. A system template (Owner garrison.SystemOwner) whose
	// forge and OS type match an existing system template replaces that one's name,
	// description and data and takes the imported ID.
	Templates []garrison.Template
	// Pools keep their IDs and their tags' order; tags are matched by name. A non-zero
	// TemplateID must name a template of the snapshot or the store.
	Pools []garrison.Pool
	// ScaleSets keep their IDs, their forge ScaleSetID, LastMessageID (the listener
	// resumes after it) and DesiredRunnerCount, and their tags' order; tags are matched by
	// name. Session is not imported: the claim starts free. A non-zero TemplateID must
	// name a template of the snapshot or the store.
	ScaleSets []garrison.ScaleSet
	// Instances keep their IDs and names; their StatusMessages are written too. An
	// instance names its pool (PoolID) or its scale set (ScaleSetID).
	Instances []garrison.Instance
	// Jobs keep their forge ids and get new Seq values in this order.
	Jobs []garrison.Job
	// Proxies keep their IDs (pools refer to them); passwords are sealed anew.
	Proxies []garrison.Proxy
	// Objects keep their IDs and are written with their content.
	Objects []ImportObject
}

// ImportObject is an object of a Snapshot with its content (exactly Object.Size bytes,
// read from the start; it may be read again when the write is retried).
type ImportObject struct {
	Object  garrison.FileObject
	Content io.ReadSeeker
}

// Importer writes a Snapshot.
type Importer interface {
	// Import writes s in one transaction: all of it, or nothing when it returns an
	// error. ErrConflict if an id or a unique name is taken; ErrNotFound if a row refers
	// to one that neither s nor the store has; ErrInvalid if a row is not valid.
	Import(ctx context.Context, s Snapshot) error
}

// Store is everything a backend implements.
type Store interface {
	Importer
	Controllers
	Users
	Endpoints
	Credentials
	Entities
	Pools
	Templates
	ScaleSets
	Instances
	Jobs
	Leases
	Replicas
	Proxies
	Objects
	// Ping checks the database is reachable.
	Ping(ctx context.Context) error
	Close() error
}
