package provider

// Command is the value of GARM_COMMAND, the operation a provider performs.
type Command string

// Instance commands, both interface versions.
const (
	CreateInstance     Command = "CreateInstance"
	DeleteInstance     Command = "DeleteInstance"
	GetInstance        Command = "GetInstance"
	ListInstances      Command = "ListInstances"
	RemoveAllInstances Command = "RemoveAllInstances"
	StartInstance      Command = "StartInstance"
	StopInstance       Command = "StopInstance"
)

// Introspection commands. GetVersion exists in both versions (SDK); the other
// four are v0.1.1 only.
const (
	GetVersion                    Command = "GetVersion"
	GetSupportedInterfaceVersions Command = "GetSupportedInterfaceVersions"
	ValidatePoolInfo              Command = "ValidatePoolInfo"
	GetConfigJSONSchema           Command = "GetConfigJSONSchema"
	GetExtraSpecsJSONSchema       Command = "GetExtraSpecsJSONSchema"
)

// InstanceCommands lists the seven instance commands.
var InstanceCommands = []Command{
	CreateInstance, DeleteInstance, GetInstance, ListInstances,
	RemoveAllInstances, StartInstance, StopInstance,
}

// IsInstanceCommand reports whether c is one of the seven instance commands.
func (c Command) IsInstanceCommand() bool {
	for _, ic := range InstanceCommands {
		if c == ic {
			return true
		}
	}
	return false
}

// TakesInstanceID reports whether c acts on one instance named by
// GARM_INSTANCE_ID (Delete, Get, Start, Stop).
func (c Command) TakesInstanceID() bool {
	switch c {
	case DeleteInstance, GetInstance, StartInstance, StopInstance:
		return true
	}
	return false
}

// IsV011Only reports whether c exists only in interface version v0.1.1.
func (c Command) IsV011Only() bool {
	switch c {
	case GetSupportedInterfaceVersions, ValidatePoolInfo, GetConfigJSONSchema, GetExtraSpecsJSONSchema:
		return true
	}
	return false
}

// Valid reports whether c is a known command of any interface version.
func (c Command) Valid() bool {
	return c.IsInstanceCommand() || c == GetVersion || c.IsV011Only()
}

// Environment variable names set by the manager.
const (
	EnvCommand          = "GARM_COMMAND"
	EnvControllerID     = "GARM_CONTROLLER_ID"
	EnvProviderConfig   = "GARM_PROVIDER_CONFIG_FILE"
	EnvInterfaceVersion = "GARM_INTERFACE_VERSION"
	EnvPoolID           = "GARM_POOL_ID"
	EnvInstanceID       = "GARM_INSTANCE_ID"
	// EnvPoolExtraSpecs is v0.1.1 only: standard padded base64 of the
	// compact JSON of the pool's extra specs; NullExtraSpecs when none.
	EnvPoolExtraSpecs = "GARM_POOL_EXTRASPECS"
)

// ReservedEnvPrefix starts every manager-built variable; the manager never
// passes its own variables with this prefix through to a provider.
const ReservedEnvPrefix = "GARM"

// NullExtraSpecs is GARM_POOL_EXTRASPECS for a pool without extra specs:
// base64 of the JSON literal null.
const NullExtraSpecs = "bnVsbA=="

// ProxyEnvVars are always passed through from the manager's environment
// when present.
var ProxyEnvVars = []string{"http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"}

// Exit statuses of a provider.
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitNotFound  = 30
	ExitDuplicate = 31
)

// Interface versions, the values of GARM_INTERFACE_VERSION.
const (
	InterfaceV010 = "v0.1.0"
	InterfaceV011 = "v0.1.1"
)

// NormalizeInterfaceVersion maps a configured interface_version to the value
// sent in GARM_INTERFACE_VERSION: "" and v0.1.0 give v0.1.0, v0.1.1 gives
// v0.1.1. ok is false for anything else.
func NormalizeInterfaceVersion(v string) (version string, ok bool) {
	switch v {
	case "", InterfaceV010:
		return InterfaceV010, true
	case InterfaceV011:
		return InterfaceV011, true
	}
	return "", false
}

// Status is the state of an instance as reported by a provider.
type Status string

// The only statuses a provider may report (spec O-3).
const (
	StatusRunning Status = "running"
	StatusStopped Status = "stopped"
	StatusError   Status = "error"
	StatusUnknown Status = "unknown"
)

// Valid reports whether s is one of the four statuses a provider may report.
func (s Status) Valid() bool {
	switch s {
	case StatusRunning, StatusStopped, StatusError, StatusUnknown:
		return true
	}
	return false
}
