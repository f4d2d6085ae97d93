package dockerprovider

import (
	"net/netip"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"

	"github.com/garrison-ci/garrison/provider"
)

// toProviderInstance converts an inspected container; provider_id is the
// container name.
func toProviderInstance(c container.InspectResponse) provider.ProviderInstance {
	out := provider.ProviderInstance{ProviderID: strings.TrimPrefix(c.Name, "/"), Name: strings.TrimPrefix(c.Name, "/"),
		OSType: "linux", Status: provider.StatusUnknown}
	if c.State != nil {
		out.Status = stateStatus(c.State.Status)
	}
	if c.NetworkSettings != nil {
		out.Addresses = endpointAddresses(c.NetworkSettings.Networks)
	}
	return out
}

// summaryInstance converts a list entry.
func summaryInstance(s container.Summary) provider.ProviderInstance {
	name := s.ID
	if len(s.Names) > 0 {
		name = strings.TrimPrefix(s.Names[0], "/")
	}
	out := provider.ProviderInstance{ProviderID: name, Name: name, OSType: "linux", Status: stateStatus(s.State)}
	if s.NetworkSettings != nil {
		out.Addresses = endpointAddresses(s.NetworkSettings.Networks)
	}
	return out
}

// stateStatus maps a container state to a contract status.
func stateStatus(state string) provider.Status {
	switch state {
	case container.StateRunning:
		return provider.StatusRunning
	case container.StateCreated, container.StateExited, container.StatePaused:
		return provider.StatusStopped
	case container.StateDead:
		return provider.StatusError
	}
	return provider.StatusUnknown
}

// endpointAddresses returns the IPv4 and IPv6 addresses of every network.
func endpointAddresses(nets map[string]*network.EndpointSettings) []provider.Address {
	names := make([]string, 0, len(nets))
	for n := range nets {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []provider.Address
	for _, n := range names {
		ep := nets[n]
		if ep == nil {
			continue
		}
		for _, a := range []string{ep.IPAddress, ep.GlobalIPv6Address} {
			ip, err := netip.ParseAddr(a)
			if err != nil {
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
