package webhook

import (
	"net/http"

	"github.com/garrison-ci/garrison"
)

// Header names read by ReadHeaders.
const (
	HeaderGitHubEvent      = "X-GitHub-Event"
	HeaderGiteaEvent       = "X-Gitea-Event"
	HeaderGitHubDelivery   = "X-GitHub-Delivery"
	HeaderGiteaDelivery    = "X-Gitea-Delivery"
	HeaderGitHubHookID     = "X-GitHub-Hook-ID"
	HeaderGitHubTargetType = "X-GitHub-Hook-Installation-Target-Type"
	HeaderGiteaTargetType  = "X-Gitea-Hook-Installation-Target-Type"
)

// Event names.
const (
	EventWorkflowJob = "workflow_job"
	EventPing        = "ping"
)

// Hook target types, as the forges send them.
const (
	TargetRepository   = "repository"
	TargetOrganization = "organization"
	TargetBusiness     = "business" // GitHub enterprise
	TargetSystem       = "system"   // Gitea admin (instance-wide) hook
)

// Meta is what the headers of a webhook delivery say about it.
type Meta struct {
	Event      string             // X-GitHub-Event (Gitea sends it too)
	Forge      garrison.ForgeType // gitea when X-Gitea-Hook-Installation-Target-Type is set
	TargetType string             // the hook's installation target type, "" when absent
	DeliveryID string             // X-GitHub-Delivery (or X-Gitea-Delivery)
	HookID     string             // X-GitHub-Hook-ID, GitHub only
}

// ReadHeaders extracts the event name, forge type and target type (W-3, W-4).
func ReadHeaders(h http.Header) Meta {
	m := Meta{
		Event:      first(h, HeaderGitHubEvent, HeaderGiteaEvent),
		DeliveryID: first(h, HeaderGitHubDelivery, HeaderGiteaDelivery),
		HookID:     h.Get(HeaderGitHubHookID),
		Forge:      garrison.GitHub,
		TargetType: h.Get(HeaderGitHubTargetType),
	}
	if t := h.Get(HeaderGiteaTargetType); t != "" {
		m.Forge = garrison.Gitea
		m.TargetType = t
	}
	return m
}

func first(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}
