package garmimport

import (
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
)

// entityTypes maps GARM's entity tables to garrison's entity types; the table names are
// also the report's kinds.
var entityTypes = map[string]garrison.EntityType{
	"repositories": garrison.Repository, "organizations": garrison.Organization, "enterprises": garrison.Enterprise,
	"forge_instances": garrison.ForgeInstance,
}

// kindOf is the report kind of an entity type: its table's name ("forge instances" for
// forge_instances).
func kindOf(t garrison.EntityType) string {
	for table, typ := range entityTypes {
		if typ == t {
			return strings.ReplaceAll(table, "_", " ")
		}
	}
	return string(t)
}

func (p *planner) planEntities() {
	for _, et := range entityTables {
		for _, r := range p.d.entities[et.table] {
			p.entity(et.table, r)
		}
	}
}

// entity maps one repository, organization, enterprise or forge instance (a whole Gitea
// server, named by its endpoint) with its events.
func (p *planner) entity(table string, r row) {
	count := p.rep.kind(kindOf(entityTypes[table]))
	count.Found++
	e := garrison.Entity{ID: r.str("id"), Type: entityTypes[table], Owner: r.str("owner"), Name: r.str("name"),
		Endpoint: r.str("endpoint_name"), AgentMode: r.bool("agent_mode"),
		CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
	if e.Type == garrison.ForgeInstance {
		e.Name = e.Endpoint
	}
	var err error
	if e.Balancer, err = garrison.ParseBalancer(r.str("pool_balancer_type")); err != nil {
		p.skipEntity(e, garrison.MessageOf(err))
		return
	}
	cred, ok := p.entityCredentials(r)
	if !ok {
		p.skipEntity(e, "it has no credentials garrison imports (GARM sets them to NULL when credentials are deleted)")
		return
	}
	if e.Endpoint != "" && !strings.EqualFold(e.Endpoint, cred.Endpoint) {
		p.skipEntity(e, fmt.Sprintf("its endpoint %s differs from its credentials' endpoint %s", e.Endpoint, cred.Endpoint))
		return
	}
	e.CredentialsID, e.Endpoint, e.ForgeType = cred.ID, cred.Endpoint, cred.ForgeType
	secret, ok := p.open(table, e.ID, "webhook_secret", r.bytes("webhook_secret"))
	if !ok {
		p.skipped[e.ID] = fmt.Sprintf("the webhook secret of its %s %s does not open", e.Type, e.FullName())
		return
	}
	e.WebhookSecret = string(secret)
	if other, dup := p.duplicate(e); dup {
		p.skipEntity(e, fmt.Sprintf("garrison compares names case-insensitively and %s %s (%s) has the same", other.Type, other.FullName(), other.ID))
		return
	}
	p.entities[e.ID] = e
	p.snap.Entities = append(p.snap.Entities, e)
	count.Imported++
	p.entityEvents(e.ID)
}

// entityCredentials finds the imported credentials an entity row names: the Gitea ones
// on a Gitea endpoint, the GitHub ones otherwise.
func (p *planner) entityCredentials(r row) (garrison.Credentials, bool) {
	ep := p.endpoints[strings.ToLower(r.str("endpoint_name"))]
	if ep.Type == garrison.Gitea || (ep.Type == "" && r.null("credentials_id")) {
		c, ok := p.creds[credKey{garrison.Gitea, r.int("gitea_credentials_id")}]
		return c, ok && !r.null("gitea_credentials_id")
	}
	c, ok := p.creds[credKey{garrison.GitHub, r.int("credentials_id")}]
	return c, ok && !r.null("credentials_id")
}

// duplicate finds an imported entity garrison would take for the same (spec ID-5).
func (p *planner) duplicate(e garrison.Entity) (garrison.Entity, bool) {
	for _, o := range p.snap.Entities {
		if o.Type == e.Type && strings.EqualFold(o.Endpoint, e.Endpoint) && o.SameName(e.Owner, e.Name) {
			return o, true
		}
	}
	return garrison.Entity{}, false
}

func (p *planner) skipEntity(e garrison.Entity, why string) {
	k := kindOf(e.Type)
	p.skipped[e.ID] = fmt.Sprintf("its %s %s is not imported", e.Type, e.FullName())
	p.rep.kind(k).Conflicts = append(p.rep.kind(k).Conflicts, fmt.Sprintf("%s %s: %s", e.Type, e.FullName(), why))
	p.rep.notImported(true, p.o.SkipUnsupported, "%s %s (%s) not imported: %s", e.Type, e.FullName(), e.ID, why)
	p.rep.kind(k).Skipped++
}

func (p *planner) entityEvents(id string) {
	for _, r := range p.d.events[id] {
		p.rep.kind("entity events").Found++
		if p.o.NoHistory {
			continue
		}
		p.snap.EntityEvents[id] = append(p.snap.EntityEvents[id], event(r))
		p.rep.kind("entity events").Imported++
	}
}

// event maps an entity event or an instance status update.
func event(r row) garrison.Event {
	return garrison.Event{CreatedAt: r.time("created_at"), Type: garrison.EventType(r.str("event_type")),
		Level: garrison.EventLevel(r.str("event_level")), Message: r.str("message")}
}

// planTags keeps GARM's tags with their ids. garrison compares tag names
// case-insensitively: a case variant merges into the first by creation (spec ID-5).
func (p *planner) planTags() {
	first := map[string]string{} // lower name → kept name
	var merged []string
	for _, r := range p.d.tags {
		p.rep.kind("tags").Found++
		name := strings.TrimSpace(r.str("name"))
		if kept, ok := first[strings.ToLower(name)]; ok {
			p.tagNames[r.str("id")] = kept
			merged = append(merged, name+"→"+kept)
			p.rep.kind("tags").Skipped++
			continue
		}
		first[strings.ToLower(name)] = name
		p.tagNames[r.str("id")] = name
		p.snap.Tags = append(p.snap.Tags, garrison.Tag{ID: r.str("id"), Name: name})
		p.rep.kind("tags").Imported++
	}
	if len(merged) > 0 {
		p.rep.warnf("case-variant tags merged: %s", strings.Join(merged, ", "))
	}
}
