package config

import (
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// resolveDefault checks [default].
func resolveDefault(d *fileDefault, errs *problems) DefaultSection {
	checkURL(errs, "default.callback_url", d.CallbackURL)
	checkURL(errs, "default.metadata_url", d.MetadataURL)
	checkURL(errs, "default.webhook_url", d.WebhookURL)
	return DefaultSection{
		CallbackURL:             d.CallbackURL,
		MetadataURL:             d.MetadataURL,
		WebhookURL:              d.WebhookURL,
		EnableWebhookManagement: d.EnableWebhookManagement,
		DebugServer:             d.DebugServer,
	}
}

// checkURL accepts "" or an absolute http(s) URL with a host.
func checkURL(errs *problems, key, raw string) {
	if raw == "" {
		return
	}
	u, err := url.ParseRequestURI(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs.field(key, "must be an absolute http or https URL, got %q", raw)
	}
}

// logLevels maps log_level values to slog levels.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug,
	"info":  slog.LevelInfo,
	"warn":  slog.LevelWarn,
	"error": slog.LevelError,
}

// resolveLogging checks [logging], falling back to the legacy [default]
// log_file and enable_log_streamer when [logging] does not set them.
func resolveLogging(l *fileLogging, d *fileDefault, errs, warns *problems) Logging {
	out := Logging{Format: LogFormatText, Level: slog.LevelInfo, AccessLevel: slog.LevelInfo, Source: l.LogSource}
	switch {
	case l.LogFile != nil:
		out.File = *l.LogFile
	case d.LogFile != nil:
		out.File = *d.LogFile
		warns.field("default.log_file", "deprecated: use [logging] log_file")
	}
	switch {
	case l.EnableLogStreamer != nil:
		out.EnableLogStreamer = *l.EnableLogStreamer
	case d.EnableLogStreamer != nil:
		out.EnableLogStreamer = *d.EnableLogStreamer
		warns.field("default.enable_log_streamer", "deprecated: use [logging] enable_log_streamer")
	}
	if l.LogFormat != nil {
		switch f := LogFormat(*l.LogFormat); f {
		case LogFormatText, LogFormatJSON:
			out.Format = f
		default:
			errs.field("logging.log_format", `must be "text" or "json", got %q`, *l.LogFormat)
		}
	}
	if l.LogLevel != nil {
		lvl, ok := logLevels[*l.LogLevel]
		if !ok {
			errs.field("logging.log_level", `must be "debug", "info", "warn" or "error", got %q`, *l.LogLevel)
		}
		out.Level = lvl
	}
	if l.AccessLogLevel != nil {
		lvl, ok := logLevels[*l.AccessLogLevel]
		if !ok {
			errs.field("logging.access_log_level", `must be "debug", "info", "warn" or "error", got %q`, *l.AccessLogLevel)
		}
		out.AccessLevel = lvl
	}
	return out
}

// resolveMetrics checks [metrics].
func resolveMetrics(m *fileMetrics, errs *problems) Metrics {
	out := Metrics{Enable: true, DisableAuth: m.DisableAuth, Period: DefaultMetricsPeriod}
	if m.Enable != nil {
		out.Enable = *m.Enable
	}
	if m.Period != nil {
		if d, ok := parseDuration(errs, "metrics.period", *m.Period); ok {
			switch {
			case d < 0:
				errs.field("metrics.period", "must be positive, got %q", *m.Period)
			case d > 0:
				out.Period = d // zero keeps GARM's default, 60s
			}
		}
	}
	return out
}

// resolveJWT checks [jwt_auth]. A time_to_live under MinJWTTTL is raised to
// it with a warning, as GARM does silently.
func resolveJWT(j *fileJWT, errs, warns *problems) JWTAuth {
	out := JWTAuth{Secret: j.Secret, TimeToLive: MinJWTTTL}
	if j.Secret != "" && weak(j.Secret) {
		errs.field("jwt_auth.secret", "is too weak: use a long random string (or remove it to have one generated)")
	}
	if j.TimeToLive != nil {
		if d, ok := parseDuration(errs, "jwt_auth.time_to_live", *j.TimeToLive); ok {
			if d < MinJWTTTL {
				warns.field("jwt_auth.time_to_live", "%q is below the minimum; using %s", *j.TimeToLive, MinJWTTTL)
			} else {
				out.TimeToLive = d
			}
		}
	}
	return out
}

// parseDuration parses a Go duration string, recording a problem if invalid.
func parseDuration(errs *problems, key, raw string) (time.Duration, bool) {
	d, err := time.ParseDuration(raw)
	if err != nil {
		errs.field(key, "invalid duration %q (use Go syntax such as \"90s\", \"24h\")", raw)
		return 0, false
	}
	return d, true
}

// resolveAPIServer checks [apiserver].
func resolveAPIServer(a *fileAPIServer, errs *problems) APIServer {
	out := APIServer{Bind: DefaultBind, Port: DefaultPort, UseTLS: a.UseTLS, WebUI: true}
	if a.WebUI.Enable != nil {
		out.WebUI = *a.WebUI.Enable
	}
	if a.Bind != nil {
		out.Bind = *a.Bind
		if net.ParseIP(*a.Bind) == nil {
			errs.field("apiserver.bind", "must be an IP address such as \"127.0.0.1\", \"0.0.0.0\" or \"::\", got %q", *a.Bind)
		}
	}
	if a.Port != nil {
		out.Port = *a.Port
		checkPort(errs, "apiserver.port", *a.Port)
	}
	out.TLS = resolveTLS(&a.TLS, a.UseTLS, errs)
	out.CORSOrigins = resolveCORS(a, errs)
	out.TrustedProxies = resolveTrustedProxies(a.TrustedProxies, errs)
	return out
}

// resolveTrustedProxies parses trusted_proxies: CIDRs (host bits are ignored), or bare
// IP addresses meaning just that host.
func resolveTrustedProxies(raw []string, errs *problems) []netip.Prefix {
	var out []netip.Prefix
	for i, s := range raw {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				errs.field("apiserver.trusted_proxies", `item %d: %q is not a CIDR such as "10.0.0.0/8" or "fd00::/8", nor an IP address`, i, s)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96) // clients are matched unmapped
		}
		out = append(out, p.Masked())
	}
	return out
}

// checkPort records a problem unless 1 <= port <= 65535.
func checkPort(errs *problems, key string, port int) {
	if port < 1 || port > 65535 {
		errs.field(key, "must be 1-65535, got %s", strconv.Itoa(port))
	}
}

// resolveCORS merges cors_origins and its alias; setting both is an error.
func resolveCORS(a *fileAPIServer, errs *problems) []string {
	origins := a.CORSOrigins
	if a.CORSAllowedOrigins != nil {
		if a.CORSOrigins != nil {
			errs.field("apiserver.cors_allowed_origins", "set either cors_origins or cors_allowed_origins, not both")
		}
		origins = a.CORSAllowedOrigins
	}
	for i, o := range origins {
		if o == "" {
			errs.field("apiserver.cors_origins", "item %d is empty", i)
		}
	}
	return origins
}
