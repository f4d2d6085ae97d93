package garrison

// ChangeType names the kind of object a Change is about. The values are the entity-type
// names of GARM's event stream (streams-metrics.md EV-4), so that clients written for
// GARM can filter on them.
type ChangeType string

// The change types GARM's event stream accepts in filters. garrison emits the ones it has
// objects for; the others are accepted in filters and never emitted.
const (
	ChangeRepository        ChangeType = "repository"
	ChangeOrganization      ChangeType = "organization"
	ChangeEnterprise        ChangeType = "enterprise"
	ChangeForgeInstance     ChangeType = "forge_instance"
	ChangePool              ChangeType = "pool"
	ChangeScaleSet          ChangeType = "scaleset"
	ChangeInstance          ChangeType = "instance"
	ChangeJob               ChangeType = "job"
	ChangeController        ChangeType = "controller"
	ChangeUser              ChangeType = "user"
	ChangeGitHubCredentials ChangeType = "github_credentials"
	ChangeGiteaCredentials  ChangeType = "gitea_credentials"
	ChangeGitHubEndpoint    ChangeType = "github_endpoint"
	ChangeTemplate          ChangeType = "template"
	ChangeFileObject        ChangeType = "file_object"
	ChangeProxy             ChangeType = "proxy"
)

// ChangeTypes lists every accepted ChangeType.
var ChangeTypes = []ChangeType{
	ChangeRepository, ChangeOrganization, ChangeEnterprise, ChangeForgeInstance, ChangePool,
	ChangeScaleSet, ChangeInstance, ChangeJob, ChangeController, ChangeUser,
	ChangeGitHubCredentials, ChangeGiteaCredentials, ChangeGitHubEndpoint, ChangeTemplate,
	ChangeFileObject, ChangeProxy,
}

// ChangeOp is what happened to the object.
type ChangeOp string

// The operations of a Change.
const (
	OpCreate ChangeOp = "create"
	OpUpdate ChangeOp = "update"
	OpDelete ChangeOp = "delete"
)

// Change is one successful write to the store: the object after a create or update, or
// as it was last read before a delete. Object is one of Entity, Pool, Instance, Job,
// Controller, User, Credentials or Endpoint (a value, not a pointer).
type Change struct {
	Type   ChangeType
	Op     ChangeOp
	Object any
}

// EntityChangeType is the change type of an entity of type t.
func EntityChangeType(t EntityType) ChangeType {
	switch t {
	case Organization:
		return ChangeOrganization
	case Enterprise:
		return ChangeEnterprise
	}
	return ChangeRepository
}

// CredentialsChangeType is the change type of credentials of forge f.
func CredentialsChangeType(f ForgeType) ChangeType {
	if f == Gitea {
		return ChangeGiteaCredentials
	}
	return ChangeGitHubCredentials
}
