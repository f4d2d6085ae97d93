package incusprovider

import (
	"net/netip"

	"github.com/lxc/incus/v6/shared/api"

	"github.com/garrison-ci/garrison/provider"
)

// toProviderInstance converts an Incus instance for the manager; the
// provider_id is the instance name (unique per project).
func toProviderInstance(inst *api.InstanceFull) provider.ProviderInstance {
	out := provider.ProviderInstance{
		ProviderID: inst.Name, Name: inst.Name, Status: status(inst.StatusCode),
		OSType: "linux", OSName: inst.Config["image.os"], OSVersion: inst.Config["image.release"],
		OSArch: osArch(inst.Architecture),
	}
	if inst.State != nil {
		out.Addresses = addresses(inst.State.Network)
	}
	if inst.Config["image.os"] == "windows" {
		out.OSType = "windows"
	}
	return out
}

// status maps an Incus status code to a contract status.
func status(code api.StatusCode) provider.Status {
	switch code {
	case api.Running:
		return provider.StatusRunning
	case api.Stopped:
		return provider.StatusStopped
	case api.Error:
		return provider.StatusError
	}
	return provider.StatusUnknown
}

// osArch maps Incus architecture names to the contract's.
func osArch(a string) string {
	switch a {
	case "x86_64":
		return "amd64"
	case "aarch64":
		return "arm64"
	case "armv7l", "armv8l":
		return "arm"
	}
	return a
}

// addresses returns the global IPv4 and IPv6 addresses of every
// interface but loopback; private ranges are private, the rest public.
func addresses(nets map[string]api.InstanceStateNetwork) []provider.Address {
	var out []provider.Address
	for _, name := range sortedKeys(nets) {
		n := nets[name]
		if n.Type == "loopback" || name == "lo" {
			continue
		}
		for _, a := range n.Addresses {
			ip, err := netip.ParseAddr(a.Address)
			if err != nil || a.Scope != "global" || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
				continue
			}
			typ := provider.PublicAddress
			if ip.IsPrivate() {
				typ = provider.PrivateAddress
			}
			out = append(out, provider.Address{Address: ip.String(), Type: typ})
		}
	}
	return out
}

// sortedKeys returns m's keys in order (stable address lists).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
