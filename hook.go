package garrison

import (
	"strings"
	"time"
)

// Hook is a webhook installed on a repository or organization (or a Gitea instance), as
// the forge lists it.
type Hook struct {
	ID     int64
	URL    string // where the forge sends the events
	Events []string
	Active bool
}

// HookDelivery is one delivery attempt of a webhook, as a forge with a delivery API
// (GitHub) lists it.
type HookDelivery struct {
	ID          int64
	GUID        string // stable across redeliveries
	DeliveredAt time.Time
	Redelivery  bool
	Status      string // "OK" when the receiver answered 2xx
	StatusCode  int    // the receiver's HTTP status, 0 when it gave none
	Event       string
	Action      string
}

// SameHookURL reports whether two webhook URLs name the same receiver: equal but for
// letter case and trailing slashes. Forges keep the URL as it was typed, so garrison
// finds its own hook by this comparison.
func SameHookURL(a, b string) bool {
	return strings.EqualFold(strings.TrimRight(a, "/"), strings.TrimRight(b, "/"))
}
