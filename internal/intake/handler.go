package intake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/logx"
	"github.com/garrison-ci/garrison/internal/store"
)

// Handler is the webhook receiver. It is safe for concurrent use.
type Handler struct {
	opts  Options
	store Store
	m     *metrics
	logs  *logx.Limiter // keyed by Result
	seen  *deliveries
	cache *cache
	bufs  sync.Pool // of *bytes.Buffer, for bodies
}

// New returns a receiver. It fails when a required option is missing or the metrics
// cannot be registered.
func New(opts Options) (*Handler, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(o.Registerer)
	if err != nil {
		return nil, fmt.Errorf("intake: register metrics: %w", err)
	}
	return &Handler{
		opts: o, store: o.Store, m: m,
		logs:  logx.NewLimiter(o.Logger, o.LogEvery, o.Now),
		seen:  newDeliveries(o.DeliveryCache),
		cache: newCache(o),
		bufs:  sync.Pool{New: func() any { return new(bytes.Buffer) }},
	}, nil
}

// logf logs msg for a delivery of result r, with a "result" attribute, at most once per
// Options.LogEvery for each result.
func (h *Handler) logf(ctx context.Context, level slog.Level, r Result, msg string, args ...any) {
	h.logs.Log(ctx, level, string(r), msg, append(args, "result", string(r))...)
}

// ServeHTTP handles one delivery, whatever its method (W-1).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.opts.Now()
	rp := h.serve(r)
	rp.write(w)
	h.m.observe(rp.result, h.opts.Now().Sub(start))
	if len(rp.notify) > 0 {
		// The forge waits for the answer, not for the reconciler's wake-up: send it first.
		_ = http.NewResponseController(w).Flush() // not every writer can: then it goes at return
		h.opts.Notify(rp.notify...)
	}
}

// serve runs the checks of rest-api.md §4 in order (see the package documentation).
func (h *Handler) serve(r *http.Request) reply {
	ctx := store.Urgent(r.Context()) // a delivery waits on no reconcile write
	if rp, done := h.checkController(ctx, r.URL.Path); done {
		return rp
	}
	meta := webhook.ReadHeaders(r.Header)
	switch meta.Event {
	case webhook.EventWorkflowJob:
	case webhook.EventPing:
		return okReply(ResultPing)
	default:
		return okReply(ResultIgnoredEvent)
	}
	buf := h.bufs.Get().(*bytes.Buffer)
	defer h.putBuffer(buf)
	raw, rp, ok := h.readBody(ctx, r, buf, meta)
	if !ok {
		return rp
	}
	return h.delivery(ctx, r.Header, meta, raw)
}

// checkController answers W-2: a controller id in the path that is not ours.
func (h *Handler) checkController(ctx context.Context, path string) (reply, bool) {
	id := strings.Trim(strings.TrimPrefix(path, "/webhooks"), "/")
	if id == "" {
		return reply{}, false
	}
	ours, cached, err := h.cache.controllerID(ctx, false)
	if err == nil && cached && !strings.EqualFold(id, ours) {
		ours, _, err = h.cache.controllerID(ctx, true) // refuse on fresh data only
	}
	if err != nil {
		h.logf(ctx, slog.LevelError, ResultError, "webhook: read controller id", "err", err)
		return errReply(ResultError, err), true
	}
	if !strings.EqualFold(id, ours) {
		h.logf(ctx, slog.LevelWarn, ResultWrongController, "webhook: delivery for another controller ignored", "path_controller_id", id)
		return okReply(ResultWrongController), true
	}
	return reply{}, false
}

const maxPooledBuffer = 64 << 10

func (h *Handler) putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	h.bufs.Put(b)
}

// readBody reads the raw body, capped, into buf.
func (h *Handler) readBody(ctx context.Context, r *http.Request, buf *bytes.Buffer, meta webhook.Meta) ([]byte, reply, bool) {
	if r.Body == nil {
		return nil, reply{}, true
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, h.opts.MaxBodyBytes+1))
	if err == nil && int64(buf.Len()) > h.opts.MaxBodyBytes {
		h.logf(ctx, slog.LevelWarn, ResultTooLarge, "webhook: body too large", "delivery", meta.DeliveryID, "limit", h.opts.MaxBodyBytes)
		return nil, reply{status: http.StatusRequestEntityTooLarge, result: ResultTooLarge,
			details: fmt.Sprintf("request body larger than %d bytes", h.opts.MaxBodyBytes)}, false
	}
	if err != nil {
		h.logf(ctx, slog.LevelWarn, ResultMalformed, "webhook: read body", "delivery", meta.DeliveryID, "err", err)
		return nil, errReply(ResultMalformed, garrison.Errorf(garrison.EInvalid, "cannot read request body")), false
	}
	return buf.Bytes(), reply{}, true
}

// delivery handles a workflow_job body: route, verify, deduplicate, record.
func (h *Handler) delivery(ctx context.Context, hdr http.Header, meta webhook.Meta, raw []byte) reply {
	ev, err := webhook.ParseWorkflowJob(meta, jsonPayload(hdr, raw))
	if err != nil {
		h.logf(ctx, slog.LevelWarn, ResultMalformed, "webhook: malformed workflow_job payload",
			"delivery", meta.DeliveryID, "forge", meta.Forge, "target_type", meta.TargetType, "err", garrison.MessageOf(err))
		return errReply(ResultMalformed, err)
	}
	ent, rp, ok := h.resolve(ctx, hdr, raw, ev)
	if !ok {
		return rp
	}
	if h.seen.seen(meta.DeliveryID) {
		return okReply(ResultDuplicate)
	}
	rp = h.record(ctx, ev, ent)
	if rp.status < 300 {
		h.seen.add(meta.DeliveryID)
	}
	return rp
}

// jsonPayload returns the JSON document of a delivery: the body itself, or the payload
// field of a form-encoded body (GitHub's other content type; the HMAC still covers the
// raw body).
func jsonPayload(hdr http.Header, raw []byte) []byte {
	h := hdr.Get("Content-Type")
	if h == "" || h == "application/json" {
		return raw // the common cases, without parsing
	}
	ct, _, err := mime.ParseMediaType(h)
	if err != nil || ct != "application/x-www-form-urlencoded" {
		return raw
	}
	v, err := url.ParseQuery(string(raw))
	if err != nil {
		return raw
	}
	return []byte(v.Get("payload"))
}
