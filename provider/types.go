package provider

import "encoding/json"

// BootstrapInstance is the CreateInstance request written to the provider's
// stdin. Every key is always marshalled (nulls included) except extra_specs,
// which is omitted when empty; key spellings mix kebab- and snake-case and
// must not change.
type BootstrapInstance struct {
	// Name is the unique instance (runner) name.
	Name string `json:"name"`
	// Tools lists every runner download known for the entity.
	Tools []RunnerApplicationDownload `json:"tools"`
	// RepoURL is the URL the runner registers against.
	RepoURL string `json:"repo_url"`
	// CallbackURL is the controller's instance callback URL.
	CallbackURL string `json:"callback-url"`
	// MetadataURL is the controller's instance metadata URL.
	MetadataURL string `json:"metadata-url"`
	// InstanceToken is the instance's JWT for the metadata service.
	InstanceToken string `json:"instance-token"`
	// SSHKeys is always null from GARM.
	SSHKeys []string `json:"ssh-keys"`
	// ExtraSpecs is the pool's extra specs (possibly with an injected
	// runner_install_template). Omitted when empty.
	ExtraSpecs json.RawMessage `json:"extra_specs,omitempty"`
	// GitHubRunnerGroup is the pool's runner group ("" = default).
	GitHubRunnerGroup string `json:"github-runner-group"`
	// CACertBundle is PEM bytes, base64 on the wire; null when none.
	CACertBundle []byte `json:"ca-cert-bundle"`
	// OSArch is amd64, arm or arm64.
	OSArch string `json:"arch"`
	// OSType is linux or windows.
	OSType string `json:"os_type"`
	// Flavor is the pool flavor, opaque to the manager.
	Flavor string `json:"flavor"`
	// Image is the pool image, opaque to the manager.
	Image string `json:"image"`
	// Labels is filled only when JIT is not used; null with JIT.
	Labels []string `json:"labels"`
	// PoolID is the pool id (scale sets: a pseudo id).
	PoolID string `json:"pool_id"`
	// UserDataOptions is always zero from the manager.
	UserDataOptions UserDataOptions `json:"user_data_options"`
	// JitConfigEnabled tells the runner to fetch JIT credentials.
	JitConfigEnabled bool `json:"jit_config_enabled"`
	// ProxyConfig is the pool's proxy settings (all "" when none).
	ProxyConfig ProxyConfig `json:"proxy_config"`
}

// RunnerApplicationDownload is one runner download; every key is optional.
type RunnerApplicationDownload struct {
	OS                string `json:"os,omitempty"`
	Architecture      string `json:"architecture,omitempty"`
	DownloadURL       string `json:"download_url,omitempty"`
	Filename          string `json:"filename,omitempty"`
	TempDownloadToken string `json:"temp_download_token,omitempty"`
	SHA256Checksum    string `json:"sha256_checksum,omitempty"`
}

// UserDataOptions are cloud-init knobs providers fill from extra specs.
type UserDataOptions struct {
	DisableUpdatesOnBoot bool     `json:"disable_updates_on_boot"`
	ExtraPackages        []string `json:"extra_packages"`
	EnableBootDebug      bool     `json:"enable_boot_debug"`
}

// ProxyConfig is the proxy a runner should use; URLs may embed credentials.
type ProxyConfig struct {
	HTTPProxy  string `json:"http_proxy"`
	HTTPSProxy string `json:"https_proxy"`
	NoProxy    string `json:"no_proxy"`
}

// ProviderInstance is what CreateInstance and GetInstance print (one object)
// and ListInstances prints (an array). All keys are optional on the wire;
// Validate applies the manager's rules.
type ProviderInstance struct {
	// ProviderID is the provider-unique id, later sent as GARM_INSTANCE_ID.
	ProviderID string `json:"provider_id,omitempty"`
	// Name must equal BootstrapInstance.Name.
	Name      string    `json:"name,omitempty"`
	OSType    string    `json:"os_type,omitempty"`
	OSName    string    `json:"os_name,omitempty"`
	OSVersion string    `json:"os_version,omitempty"`
	OSArch    string    `json:"os_arch,omitempty"`
	Addresses []Address `json:"addresses,omitempty"`
	Status    Status    `json:"status,omitempty"`
	// ProviderFault is error text for users; base64 on the wire.
	ProviderFault []byte `json:"provider_fault,omitempty"`
}

// Address is a network address of an instance.
type Address struct {
	Address string      `json:"address"`
	Type    AddressType `json:"type"`
}

// AddressType tells public from private addresses.
type AddressType string

// Address types.
const (
	PublicAddress  AddressType = "public"
	PrivateAddress AddressType = "private"
)

// Target names what an instance command acts on: the pool (GARM_POOL_ID), the instance
// (GARM_INSTANCE_ID) and the pool's extra specs (GARM_POOL_EXTRASPECS, v0.1.1). Which of
// them a command sends depends on the command and the interface version.
type Target struct {
	// PoolID is the pool (or scale-set pseudo id).
	PoolID string
	// InstanceID is the instance's provider_id, or its name if it has none.
	InstanceID string
	// ExtraSpecs is the pool's raw extra specs JSON. Empty means JSON null.
	ExtraSpecs json.RawMessage
}
