package instanceapi

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"regexp"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// ServiceName is the runner service name of an entity, without ".service" (§5.3).
func ServiceName(e garrison.Entity) (string, error) {
	switch e.Type {
	case garrison.Repository:
		return "actions.runner." + e.Owner + "." + e.Name, nil
	case garrison.Organization, garrison.Enterprise, garrison.ForgeInstance: // a forge instance is named after its endpoint
		return "actions.runner." + e.Name, nil
	}
	return "", garrison.Errorf(garrison.EInternal, "unknown entity type %q", e.Type)
}

// handleServiceName serves GET system/service-name.
func (h *Handler) handleServiceName(w http.ResponseWriter, r *http.Request) {
	name, err := ServiceName(mustAuth(r).entity)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	writeText(w, "text/plain", []byte(name))
}

// validUser limits runAsUser to a plain user name, so it cannot break the unit file.
var validUser = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,31}$`)

// handleUnitFile serves GET systemd/unit-file?runAsUser=.
func (h *Handler) handleUnitFile(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	user := r.URL.Query().Get("runAsUser")
	if user == "" {
		user = "runner"
	}
	if !validUser.MatchString(user) {
		h.writeErr(w, r, invalid("invalid runAsUser"))
		return
	}
	svc, err := ServiceName(ai.entity)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	proxy, err := h.poolProxy(ctx, ai.pool)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	unit, err := UnitFile(ai.entity.ForgeType, svc, user, proxy)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	writeText(w, "text/plain", unit)
}

// UnitFile renders the runner's systemd unit (§5.3).
func UnitFile(ft garrison.ForgeType, svc, user string, proxy provider.ProxyConfig) ([]byte, error) {
	var desc, exec, dir string
	switch ft {
	case garrison.GitHub:
		dir = "/home/" + user + "/actions-runner"
		desc, exec = "GitHub Actions Runner ("+svc+")", dir+"/runsvc.sh"
	case garrison.Gitea:
		dir = "/home/" + user + "/gitea-runner"
		desc, exec = "Gitea Runner ("+svc+")", dir+"/gitea-runner daemon --once"
	default:
		return nil, garrison.Errorf(garrison.EInternal, "unknown forge type %q", ft)
	}
	var b strings.Builder
	b.WriteString("[Unit]\nDescription=" + desc + "\nAfter=network.target\n\n")
	b.WriteString("[Service]\nExecStart=" + exec + "\nUser=" + user + "\nWorkingDirectory=" + dir + "\n")
	for _, kv := range [][2]string{{"HTTP_PROXY", proxy.HTTPProxy}, {"HTTPS_PROXY", proxy.HTTPSProxy}, {"NO_PROXY", proxy.NoProxy}} {
		if kv[1] == "" {
			continue
		}
		v := strings.ReplaceAll(kv[1], "%", "%%")
		b.WriteString(`Environment="` + kv[0] + "=" + v + "\"\n")
		b.WriteString(`Environment="` + strings.ToLower(kv[0]) + "=" + v + "\"\n")
	}
	b.WriteString("KillMode=process\nKillSignal=SIGTERM\nTimeoutStopSec=5min\n")
	if ft == garrison.Gitea {
		b.WriteString("Restart=always\n")
	}
	b.WriteString("\n[Install]\nWantedBy=multi-user.target\n")
	return []byte(b.String()), nil
}

// certBundle is the system/cert-bundle body (§5.4).
type certBundle struct {
	RootCertificates map[string][]byte `json:"root_certificates,omitempty"`
}

// handleCertBundle serves GET system/cert-bundle: the forge endpoint's CA bundle and the
// controller's (B-3), one entry per certificate keyed by its decimal serial number.
func (h *Handler) handleCertBundle(w http.ResponseWriter, r *http.Request) {
	ctx, ai := r.Context(), mustAuth(r)
	ep, err := h.store.Endpoint(ctx, ai.entity.Endpoint)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	ctrl, err := h.store.Controller(ctx)
	if err != nil {
		h.writeErr(w, r, err)
		return
	}
	out := certBundle{}
	for _, bundle := range [][]byte{ep.CACertBundle, ctrl.CACertBundle} {
		if len(bundle) == 0 {
			continue
		}
		if out.RootCertificates == nil {
			out.RootCertificates = map[string][]byte{}
		}
		if err := addCerts(out.RootCertificates, bundle); err != nil {
			h.log.WarnContext(ctx, "unparseable CA bundle", "instance", ai.inst.Name, "err", err)
		}
	}
	if out.RootCertificates != nil && len(out.RootCertificates) == 0 {
		writeText(w, "application/json", []byte(`{"root_certificates":{}}`))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// addCerts adds each certificate of a PEM bundle to m as serial -> PEM block. A bundle
// with an unparseable certificate adds nothing.
func addCerts(m map[string][]byte, bundle []byte) error {
	add := map[string][]byte{}
	for rest := bundle; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return err
		}
		add[c.SerialNumber.String()] = pem.EncodeToMemory(blk)
	}
	if len(add) == 0 {
		return errNoCertificates
	}
	for k, v := range add {
		m[k] = v
	}
	return nil
}

var errNoCertificates = garrison.Errorf(garrison.EInvalid, "no certificate in CA bundle")
