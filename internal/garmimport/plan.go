package garmimport

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// credKey names a GARM credential: GitHub and Gitea credentials have separate ids.
type credKey struct {
	forge garrison.ForgeType
	id    int64
}

// planner maps GARM's rows to a garrison snapshot and fills the report (spec B.4-B.8).
type planner struct {
	d      *garmData
	u      unsealer
	o      Options
	now    time.Time
	rep    *Report
	snap   store.Snapshot
	takenC map[uint]bool // credential ids the target uses already

	endpoints map[string]garrison.Endpoint // by lower-case name
	creds     map[credKey]garrison.Credentials
	entities  map[string]garrison.Entity // imported, by id
	skipped   map[string]string          // entity or pool id → why it is not imported
	tagNames  map[string]string          // GARM tag id → the name garrison keeps
	pools     map[string]garrison.Pool   // imported, by id
	scaleSets map[uint]garrison.ScaleSet // imported, by id
	instances map[string]string          // imported instance id → name

	unknownProviders map[string]providerUse // provider name → pools and scale sets using it that garrison lacks
	proxies          map[int64]proxyRef     // GARM proxy id → what became of it
}

func newPlanner(d *garmData, o Options, rep *Report, takenCreds map[uint]bool) *planner {
	return &planner{d: d, u: newUnsealer(o.passphrase), o: o, now: o.now(), rep: rep, takenC: takenCreds,
		endpoints: map[string]garrison.Endpoint{}, creds: map[credKey]garrison.Credentials{},
		entities: map[string]garrison.Entity{}, skipped: map[string]string{}, tagNames: map[string]string{},
		pools: map[string]garrison.Pool{}, scaleSets: map[uint]garrison.ScaleSet{}, instances: map[string]string{},
		unknownProviders: map[string]providerUse{},
		snap:             store.Snapshot{EntityEvents: map[string][]garrison.Event{}}}
}

// plan builds the snapshot. Problems go to the report; the error is for sealed values
// that do not open (ErrSource).
func (p *planner) plan() (store.Snapshot, error) {
	p.controller()
	p.users()
	p.planEndpoints()
	p.credentials()
	p.planEntities()
	p.planTags()
	p.planTemplates()
	p.proxies = p.planProxies()
	p.planPools()
	p.planScaleSets()
	p.reportProviders()
	p.planInstances()
	p.planJobs()
	p.planObjects()
	p.warnings()
	if f := p.rep.Secrets.Failures; len(f) > 0 {
		return p.snap, fmt.Errorf("%w: %s", ErrSource, f[0])
	}
	return p.snap, nil
}

// open opens a sealed column, counting it; a failure is recorded against the row and
// column (never the value) and returns ok false.
func (p *planner) open(table, id, column string, sealed []byte) ([]byte, bool) {
	if len(sealed) == 0 {
		return nil, true
	}
	p.rep.Secrets.Total++
	plain, format, err := p.u.open(sealed)
	if err != nil {
		p.rep.Secrets.Failures = append(p.rep.Secrets.Failures,
			fmt.Sprintf("cannot decrypt %s(%s).%s: wrong passphrase or corrupted value", table, id, column))
		return nil, false
	}
	p.rep.Secrets.Opened++
	if format == FormatLegacy {
		p.rep.Secrets.Legacy++
	}
	return plain, true
}

func (p *planner) controller() {
	r := p.d.controller
	c := garrison.Controller{
		ID: r.str("controller_id"), MetadataURL: r.str("metadata_url"), CallbackURL: r.str("callback_url"),
		WebhookURL: r.str("webhook_base_url"), AgentURL: r.str("agent_url"),
		AgentReleasesURL: r.str("garm_agent_releases_url"), EnableAgentToolsSync: r.bool("sync_garm_agent_tools"),
		AgentVersion: r.str("garm_agent_version"), AllowInsecureAgent: r.bool("allow_insecure_garm_agent"),
		MinimumJobAgeBackoff: r.uint("minimum_job_age_backoff"), CACertBundle: r.bytes("ca_cert_bundle"),
		CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at"),
	}
	if r.null("minimum_job_age_backoff") {
		c.MinimumJobAgeBackoff = garrison.DefaultMinimumJobAgeSecs
	}
	p.rep.Source.ControllerID = c.ID
	if c.ID == "" {
		p.rep.blockf("GARM's controller row has no controller_id")
	}
	if c.MetadataURL == "" || c.CallbackURL == "" {
		p.rep.warnf("controller URLs are empty in GARM; garrison will answer 409 urls_required until they are set")
	}
	p.snap.Controller = c
}

func (p *planner) users() {
	for _, r := range p.d.users {
		p.rep.kind("users").Found++
		u := garrison.User{ID: r.str("id"), Username: r.str("username"), Email: r.str("email"),
			FullName: r.str("full_name"), PasswordHash: r.str("password"), Enabled: r.bool("enabled"),
			IsAdmin: r.bool("is_admin"), Generation: r.uint("generation"),
			CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
		p.snap.Users = append(p.snap.Users, u)
		p.rep.kind("users").Imported++
	}
}

func (p *planner) planEndpoints() {
	for _, r := range p.d.endpoints {
		p.rep.kind("endpoints").Found++
		e := garrison.Endpoint{Name: r.str("name"), Type: garrison.ForgeType(r.str("endpoint_type")),
			Description: r.str("description"), BaseURL: r.str("base_url"), APIBaseURL: r.str("api_base_url"),
			UploadBaseURL: r.str("upload_base_url"), CACertBundle: r.bytes("ca_cert_bundle"),
			ToolsMetadataURL: r.str("tools_metadata_url"), UseInternalToolsMetadata: r.bool("use_internal_tools_metadata"),
			CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
		if e.Type == "" {
			e.Type = garrison.GitHub // GARM before Gitea support
		}
		if !e.Type.Valid() {
			p.rep.blockf("endpoint %s has an unknown type %q", e.Name, e.Type)
			continue
		}
		p.endpoints[strings.ToLower(e.Name)] = e
		p.snap.Endpoints = append(p.snap.Endpoints, e)
		p.rep.kind("endpoints").Imported++
	}
}

// credentials maps GitHub credentials (ids kept unless the target uses them) and then
// Gitea credentials (ids kept when free in garrison's single id space, else the next free
// one: spec ID-2).
func (p *planner) credentials() {
	used := map[uint]bool{}
	for id := range p.takenC {
		used[id] = true
	}
	for _, set := range []struct {
		forge garrison.ForgeType
		table string
		rows  []row
	}{{garrison.GitHub, "github_credentials", p.d.ghCreds}, {garrison.Gitea, "gitea_credentials", p.d.giteaCreds}} {
		for _, r := range set.rows {
			p.rep.kind("credentials").Found++
			c, ok := p.credential(set.forge, set.table, r)
			if !ok {
				continue
			}
			old := c.ID
			for used[c.ID] {
				c.ID = nextFree(used)
			}
			if c.ID != old {
				p.rep.Renumbered = append(p.rep.Renumbered, Renumbering{Kind: string(set.forge) + " credentials", Name: c.Name, Old: old, New: c.ID})
			}
			used[c.ID] = true
			p.creds[credKey{set.forge, int64(old)}] = c
			p.snap.Credentials = append(p.snap.Credentials, c)
			p.rep.kind("credentials").Imported++
		}
	}
}

// nextFree is one above the largest id in use.
func nextFree(used map[uint]bool) uint {
	var top uint
	for id := range used {
		top = max(top, id)
	}
	return top + 1
}

// credentialPayload is the opened payload of GARM credentials (spec A.5.1).
type credentialPayload struct {
	OAuth2Token     string `json:"oauth2_token"`
	AppID           int64  `json:"app_id"`
	InstallationID  int64  `json:"installation_id"`
	PrivateKeyBytes []byte `json:"private_key_bytes"` // base64 of the PEM
}

// credential maps one row; ok is false when it cannot be imported (reported).
func (p *planner) credential(forge garrison.ForgeType, table string, r row) (garrison.Credentials, bool) {
	c := garrison.Credentials{ID: r.uint("id"), Name: r.str("name"), Description: r.str("description"),
		ForgeType: forge, AuthType: garrison.AuthType(r.str("auth_type")), Endpoint: r.str("endpoint_name"),
		CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	ep, ok := p.endpoints[strings.ToLower(c.Endpoint)]
	if !ok || ep.Type != forge {
		p.skipCredential(c, fmt.Sprintf("its %s endpoint %q is missing", forge, c.Endpoint))
		return c, false
	}
	plain, ok := p.open(table, fmt.Sprint(c.ID), "payload", r.bytes("payload"))
	if !ok {
		return c, false
	}
	var pl credentialPayload
	if err := json.Unmarshal(plain, &pl); err != nil {
		p.skipCredential(c, "its payload is not GARM's JSON")
		return c, false
	}
	switch {
	case c.AuthType == garrison.AuthPAT && pl.OAuth2Token != "":
		c.PAT = pl.OAuth2Token
	case c.AuthType == garrison.AuthApp && forge == garrison.GitHub && pl.AppID != 0 && len(pl.PrivateKeyBytes) > 0:
		c.AppID, c.InstallationID, c.PrivateKey = pl.AppID, pl.InstallationID, pl.PrivateKeyBytes
	default:
		p.skipCredential(c, fmt.Sprintf("auth type %q without its secret", c.AuthType))
		return c, false
	}
	return c, true
}

func (p *planner) skipCredential(c garrison.Credentials, why string) {
	p.rep.kind("credentials").Conflicts = append(p.rep.kind("credentials").Conflicts, fmt.Sprintf("%s credentials %s: %s", c.ForgeType, c.Name, why))
	p.rep.blockf("%s credentials %s (id %d) cannot be imported: %s", c.ForgeType, c.Name, c.ID, why)
}

// warnings adds the findings that never block (spec B.8).
func (p *planner) warnings() {
	if n := p.rep.Secrets.Legacy; n > 0 {
		p.rep.warnf("%d sealed values used the legacy format (re-sealed in garrison's)", n)
	}
	if n := p.d.softDeleted; n > 0 {
		p.rep.warnf("%d soft-deleted rows ignored", n)
	}
	booting, late := 0, 0
	for _, i := range p.snap.Instances {
		if i.RunnerStatus != garrison.RunnerPending && i.RunnerStatus != garrison.RunnerInstalling {
			continue
		}
		booting++
		limit := time.Duration(p.pools[i.PoolID].BootstrapTimeout()) * time.Minute
		if i.ScaleSetID != 0 {
			limit = time.Duration(p.scaleSets[i.ScaleSetID].BootstrapTimeout()) * time.Minute
		}
		if i.Status == garrison.InstanceRunning && p.now.Sub(i.UpdatedAt) >= limit {
			late++
		}
	}
	if late > 0 {
		p.rep.warnf("%d booting runners have not been heard of for longer than their pool's bootstrap timeout; garrison replaces them at its first reconcile, as GARM would", late)
	}
	p.jwt(booting)
}

// jwt decides about GARM's JWT secret: adopted when garrison's comes from its generated
// secrets file and the caller did not ask to keep it; otherwise a difference is a warning.
func (p *planner) jwt(booting int) {
	garm, cur := p.o.garmJWT, p.o.JWT.Current
	switch {
	case garm == "" || garm == cur:
		return
	case p.o.JWT.FromConfigFile || p.o.JWT.Keep:
		p.rep.warnf("jwt_auth.secret differs: existing garm-cli logins, metrics tokens and the tokens of %d runners still booting will be rejected", booting)
		if booting > 0 {
			p.rep.warnf("%d runners are booting (pending/installing); keep the JWT secret or they will fail to register", booting)
		}
	default:
		p.rep.adoptJWT = garm
		p.rep.notef("garrison adopts GARM's JWT secret: garm-cli logins, metrics tokens and the tokens of %d booting runners keep working", booting)
	}
}
