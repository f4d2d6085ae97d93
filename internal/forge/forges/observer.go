package forges

import (
	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/github"
)

// Observer is told about forge API calls and budgets (for metrics). Methods must not block.
type Observer interface {
	// ObserveForgeCall counts one call attempt of operation (GARM's operation names) for
	// an entity scope (Repository, Organization, Enterprise; "" for credential-level calls).
	ObserveForgeCall(operation, scope string, err error)
	// ObserveForgeRateLimit records a credential's budget for one resource.
	ObserveForgeRateLimit(credID uint, credName, endpoint, resource string, rl garrison.RateLimit)
}

// rateObserver adapts the hub's observer to one GitHub client's budget updates; nil when
// the hub has no observer.
func (h *Hub) rateObserver(cred garrison.Credentials, ep garrison.Endpoint) github.RateObserver {
	if h.o.Observer == nil {
		return nil
	}
	return credRates{o: h.o.Observer, id: cred.ID, endpoint: ep.Name}
}

type credRates struct {
	o        Observer
	id       uint
	endpoint string
}

func (c credRates) ObserveRateLimit(credential, resource string, rl garrison.RateLimit) {
	c.o.ObserveForgeRateLimit(c.id, credential, c.endpoint, resource, rl)
}

// scope is the scope label GARM gives a call made for an entity.
func scope(t garrison.EntityType) string {
	switch t {
	case garrison.Repository:
		return "Repository"
	case garrison.Organization:
		return "Organization"
	case garrison.Enterprise:
		return "Enterprise"
	}
	return ""
}

// count tells the observer about one call made for e.
func (h *Hub) count(e garrison.Entity, operation string, err error) {
	if h.o.Observer != nil {
		h.o.Observer.ObserveForgeCall(operation, scope(e.Type), err)
	}
}
