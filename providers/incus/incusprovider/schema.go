package incusprovider

import (
	"encoding/json"

	"github.com/garrison-ci/garrison/providers/internal/userdata"
)

// ConfigSchema is the JSON schema of the TOML config file.
func ConfigSchema() json.RawMessage {
	str := map[string]any{"type": "string"}
	boolean := map[string]any{"type": "boolean"}
	remote := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"address": str, "addr": str, "skip_verify": boolean, "public": boolean,
		"protocol": map[string]any{"enum": []string{"simplestreams", "incus", "lxd"}},
	}}
	return userdata.Schema("garrison incus provider config", map[string]any{
		"unix_socket_path": str, "url": str, "client_certificate": str, "client_key": str,
		"tls_server_certificate": str, "tls_ca": str, "insecure_skip_verify": boolean,
		"project_name": str, "profiles": map[string]any{"type": "array", "items": str},
		"include_default_profile": boolean, "secure_boot": boolean,
		"instance_type": map[string]any{"enum": []string{TypeContainer, TypeVirtualMachine}},
		"image_remotes": map[string]any{"type": "object", "additionalProperties": remote},
	})
}
