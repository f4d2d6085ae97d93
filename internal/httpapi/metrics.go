package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics counts and times requests by route pattern, method and status code.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "garrison", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests served, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "garrison", Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time to serve HTTP requests, by route pattern, method and status code.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method", "code"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// statusRecorder remembers the status code written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// instrument records request metrics and puts a route label holder in the context, which
// routing fills with the matched pattern.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		label := &routeLabel{pattern: "unmatched"}
		r = r.WithContext(context.WithValue(r.Context(), routeKey, label))
		if s.metrics == nil {
			next.ServeHTTP(w, r)
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		start := time.Now()
		defer func() {
			code := rec.status
			if code == 0 {
				code = http.StatusOK
			}
			lv := []string{label.pattern, r.Method, strconv.Itoa(code)}
			s.metrics.requests.WithLabelValues(lv...).Inc()
			s.metrics.duration.WithLabelValues(lv...).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rec, r)
	})
}

// handleHealthz answers liveness probes: 200 when the store answers a ping.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeNotFound(w)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "health check: store ping failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeOK(w, map[string]string{"status": "ok"})
}

// handleMetrics serves the Prometheus handler (GET, HEAD, OPTIONS) to metrics tokens, or
// to anyone when metrics auth is disabled (streams-metrics.md PM-1, PM-2, PM-11).
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) error {
	switch {
	case s.opts.Metrics == nil:
		writeNotFound(w)
		return nil
	case r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions:
		writeNotFound(w)
		return nil
	}
	if !s.opts.MetricsAuthDisabled {
		ok, err := s.canReadMetrics(r)
		if err != nil {
			return err
		}
		if !ok {
			writeAuthFailed(w)
			return nil
		}
	}
	s.opts.Metrics.ServeHTTP(w, r)
	return nil
}

// canReadMetrics accepts only a metrics token (read_metrics true, no user) in the
// Authorization header, as GARM does: admin login tokens and the garm_token cookie are
// refused. garrison also refuses a metrics token that a password reset or disabling the
// admin has revoked since it was issued. An error is the server's own failure.
func (s *Server) canReadMetrics(r *http.Request) (bool, error) {
	h, ok := r.Header["Authorization"]
	if !ok {
		return false, nil // the cookie is not consulted
	}
	parts := strings.Split(strings.Join(h, ""), " ")
	if len(parts) != 2 || parts[1] == "" {
		return false, nil
	}
	claims, err := s.tokens.VerifyAdmin(parts[1])
	if err != nil || !claims.ReadMetrics || claims.User != "" {
		return false, nil
	}
	admin, err := s.store.Admin(r.Context())
	if errors.Is(err, garrison.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := auth.CheckMetrics(claims, admin); err != nil {
		s.log.DebugContext(r.Context(), "metrics token refused", "err", err)
		return false, nil
	}
	return true, nil
}
