package garrison

import (
	"fmt"
	"time"
)

// Runner is a runner registered in a forge, as the forge lists it.
type Runner struct {
	ID        int64
	Name      string
	Status    string // online or offline
	Busy      bool   // running a job
	Ephemeral bool
	Labels    []string
}

// JITRequest describes a just-in-time runner to register.
type JITRequest struct {
	Name        string
	RunnerGroup string // "" is the default group
	Labels      []string
	WorkFolder  string // "" is the forge's default (_work)
}

// JITConfig is a registered just-in-time runner: its forge id and its credential files
// (file name to base64 content).
type JITConfig struct {
	RunnerID int64
	Files    map[string]string
}

// ErrJITUnsupported is a forge's answer to a just-in-time configuration request when it
// has none (Gitea: its runners register with a registration token).
var ErrJITUnsupported = &Error{Code: EInvalid, Message: "the forge has no just-in-time runner configurations"}

// RateLimitError says the forge refuses the calls of a credential until Until: its API
// budget is spent, or a secondary limit runs. Nothing is gained by calling before then;
// a caller with other work does it and comes back later. It unwraps to an EUnavailable
// *Error naming the time, so an API client is told when to retry.
type RateLimitError struct {
	Until time.Time
	// Credentials names the credentials, for logs ("" when unknown).
	Credentials string
}

func (e *RateLimitError) Error() string {
	if e.Credentials == "" {
		return fmt.Sprintf("forge API rate limit reached until %s", e.Until.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("forge API rate limit of credentials %q reached until %s", e.Credentials, e.Until.UTC().Format(time.RFC3339))
}

// Unwrap classifies the error as EUnavailable.
func (e *RateLimitError) Unwrap() error {
	return &Error{Code: EUnavailable, Message: e.Error()}
}
