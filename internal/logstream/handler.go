package logstream

import (
	"context"
	"log/slog"
)

// handler passes records to next and, while the hub has subscribers, to a JSON handler
// writing to the hub.
type handler struct {
	next slog.Handler
	json slog.Handler
	hub  *Hub
}

// Handler returns a handler that logs through next and copies each record next accepts to
// hub as JSON. opts should be the options next was built with (level, source, attribute
// rewriting), so the stream carries the same records as the log (LS-3).
func Handler(next slog.Handler, hub *Hub, opts *slog.HandlerOptions) slog.Handler {
	return &handler{next: next, json: slog.NewJSONHandler(hub, utcOptions(opts)), hub: hub}
}

// utcOptions returns a copy of opts that also writes the record time in UTC (LS-2).
func utcOptions(opts *slog.HandlerOptions) *slog.HandlerOptions {
	o := slog.HandlerOptions{}
	if opts != nil {
		o = *opts
	}
	replace := o.ReplaceAttr
	o.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime {
			a.Value = slog.TimeValue(a.Value.Time().UTC())
		}
		if replace != nil {
			return replace(groups, a)
		}
		return a
	}
	return &o
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	err := h.next.Handle(ctx, r)
	if h.hub.Active() {
		_ = h.json.Handle(ctx, r) // the hub's Write never fails
	}
	return err
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &handler{next: h.next.WithAttrs(as), json: h.json.WithAttrs(as), hub: h.hub}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(name), json: h.json.WithGroup(name), hub: h.hub}
}

// Hub returns the hub the handler copies to.
func (h *handler) Hub() *Hub { return h.hub }

// FromLogger returns the hub a logger built with Handler copies to, or nil when it has
// none (the log streamer is off).
func FromLogger(l *slog.Logger) *Hub {
	if l == nil {
		return nil
	}
	if h, ok := l.Handler().(interface{ Hub() *Hub }); ok {
		return h.Hub()
	}
	return nil
}
