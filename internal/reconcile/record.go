package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// errStale aborts an update whose instance is no longer in the state the caller expects
// (another operation, replica or API call moved it).
var errStale = errors.New("reconcile: instance changed meanwhile")

// event records a status message on the instance and logs it.
func (r *Reconciler) event(ctx context.Context, env *poolEnv, name string, level garrison.EventLevel, msg string) {
	r.logEvent(ctx, env, name, level, msg)
	err := r.o.Store.AddInstanceEvent(ctx, name, statusEvent(level, msg))
	if err != nil && !errors.Is(err, garrison.ErrNotFound) && ctx.Err() == nil {
		r.log.Warn("reconcile: record status message", env.attrs(slog.String("instance", name), slog.Any("err", err))...)
	}
}

// logEvent logs a status message of the instance at the level of its event.
func (r *Reconciler) logEvent(ctx context.Context, env *poolEnv, name string, level garrison.EventLevel, msg string) {
	logLevel := slog.LevelInfo
	switch level {
	case garrison.LevelWarning:
		logLevel = slog.LevelWarn
	case garrison.LevelError:
		logLevel = slog.LevelError
	}
	r.log.Log(ctx, logLevel, msg, env.attrs(slog.String("instance", name))...)
}

// statusEvent is a status message.
func statusEvent(level garrison.EventLevel, msg string) garrison.Event {
	return garrison.Event{Type: garrison.EventStatus, Level: level, Message: msg}
}

// transition moves an instance from one of the from statuses (any when empty) to to,
// applying edit, and records msg in the same write. errStale when the instance is
// elsewhere.
func (r *Reconciler) transition(ctx context.Context, env *poolEnv, name string, from []garrison.InstanceStatus,
	to garrison.InstanceStatus, level garrison.EventLevel, msg string, edit func(*garrison.Instance)) (garrison.Instance, error) {
	in, err := r.o.Store.UpdateInstance(ctx, name, func(i *garrison.Instance) error {
		if len(from) > 0 && !hasStatus(from, i.Status) {
			return fmt.Errorf("%w: %s is %s", errStale, name, i.Status)
		}
		i.Status = to
		if edit != nil {
			edit(i)
		}
		i.StatusMessages = append(i.StatusMessages, statusEvent(level, msg))
		return nil
	})
	if err != nil {
		return in, err
	}
	r.logEvent(ctx, env, name, level, msg)
	return in, nil
}

func hasStatus(list []garrison.InstanceStatus, s garrison.InstanceStatus) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// providerStderr is implemented by the errors of provider calls that carry what the
// provider wrote to stderr.
type providerStderr interface{ ProviderStderr() string }

// faultOf is the text shown to users for a failed provider call: the provider's own
// stderr when it wrote any, else the error.
func faultOf(err error) []byte {
	var ps providerStderr
	if errors.As(err, &ps) && ps.ProviderStderr() != "" {
		return []byte(ps.ProviderStderr())
	}
	return []byte(err.Error())
}

// providerTarget names an instance to the provider: its provider id, else its name.
func providerTarget(env *poolEnv, in garrison.Instance) provider.Target {
	id := in.ProviderID
	if id == "" {
		id = in.Name
	}
	return provider.Target{PoolID: env.pool.ID, InstanceID: id, ExtraSpecs: env.pool.ExtraSpecs}
}
