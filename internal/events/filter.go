package events

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/garrison-ci/garrison"
)

// Filter selects changes of one type, optionally only some operations.
type Filter struct {
	Type garrison.ChangeType `json:"entity-type"`
	// Ops are the operations wanted; empty means all three.
	Ops []garrison.ChangeOp `json:"operations,omitempty"`
}

// Subscription is what a client of the event stream asks for: everything, or the changes
// that match any of Filters.
type Subscription struct {
	Everything bool     `json:"send-everything"`
	Filters    []Filter `json:"filters"`
}

// Empty reports whether s asks for nothing; such a message leaves the previous
// subscription in place (EV-2).
func (s Subscription) Empty() bool { return !s.Everything && len(s.Filters) == 0 }

// Matches reports whether s wants a change of type t with operation op.
func (s Subscription) Matches(t garrison.ChangeType, op garrison.ChangeOp) bool {
	if s.Everything {
		return true
	}
	return slices.ContainsFunc(s.Filters, func(f Filter) bool {
		return f.Type == t && (len(f.Ops) == 0 || slices.Contains(f.Ops, op))
	})
}

// ParseSubscription decodes a subscription message as garm-cli and the web UI send it:
// {"send-everything":bool,"filters":[{"entity-type":T,"operations":[...]}]}. Unknown keys
// are ignored. It fails on anything that is not such a JSON object, on a filter without a
// known entity-type and on an unknown operation (EV-3). With send-everything the filters
// are ignored, and not checked.
func ParseSubscription(msg []byte) (Subscription, error) {
	var s Subscription
	if err := json.Unmarshal(msg, &s); err != nil {
		return Subscription{}, fmt.Errorf("failed to unmarshal filter: %w", err)
	}
	if s.Everything {
		return Subscription{Everything: true}, nil
	}
	for _, f := range s.Filters {
		if !slices.Contains(garrison.ChangeTypes, f.Type) {
			return Subscription{}, fmt.Errorf("invalid filter: unknown entity-type %q", f.Type)
		}
		for _, op := range f.Ops {
			if op != garrison.OpCreate && op != garrison.OpUpdate && op != garrison.OpDelete {
				return Subscription{}, fmt.Errorf("invalid filter: unknown operation %q", op)
			}
		}
	}
	return s, nil
}
