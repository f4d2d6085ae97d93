package garmimport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

// proxyRef is what planProxies says about a GARM proxy: its name, and why it is not
// imported ("" when it is).
type proxyRef struct{ name, skipped string }

// planProxies imports GARM's proxies with their ids (spec B.7: credentials opened and
// sealed anew) and returns, by GARM id, the name of each and why it is not imported.
func (p *planner) planProxies() map[int64]proxyRef {
	out := map[int64]proxyRef{}
	for _, r := range p.d.proxies {
		k := p.rep.kind("proxies")
		k.Found++
		px := garrison.Proxy{ID: uint(r.int("id")), Name: r.str("name"), Description: r.str("description"),
			HTTPProxy: r.str("http_proxy"), HTTPSProxy: r.str("https_proxy"), NoProxy: r.str("no_proxy"),
			CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
		why := p.proxyCredentials(r, &px)
		if why == "" {
			if err := px.Validate(); err != nil {
				why = "garrison refuses it: " + garrison.MessageOf(err)
			}
		}
		out[r.int("id")] = proxyRef{name: px.Name, skipped: why}
		if why != "" {
			k.Skipped++
			p.rep.notImported(false, p.o.SkipUnsupported, "proxy %s not imported: %s", px.Name, why)
			continue
		}
		p.snap.Proxies = append(p.snap.Proxies, px)
		k.Imported++
	}
	return out
}

// proxyCredentials opens a proxy's sealed {"username", "password"}; the answer is why it
// cannot be imported, "" when it can.
func (p *planner) proxyCredentials(r row, px *garrison.Proxy) string {
	plain, ok := p.open("proxies", strconv.FormatInt(r.int("id"), 10), "credentials", r.bytes("credentials"))
	if !ok {
		return "its credentials do not open"
	}
	if len(plain) == 0 {
		return ""
	}
	var c struct{ Username, Password string }
	if err := json.Unmarshal(plain, &c); err != nil {
		return "its credentials are not the JSON GARM writes"
	}
	px.Username, px.Password = c.Username, c.Password
	return ""
}

// planObjects imports GARM's object store: each object with its id, tags and content,
// its checksum checked again. garm-agent tools are not imported: garrison has no
// garm-agent (rest-api-2 §9.2) and refuses their tag.
func (p *planner) planObjects() {
	for _, r := range p.d.objects {
		k := p.rep.kind("file objects")
		k.Found++
		id := r.int("id")
		o := garrison.FileObject{ID: uint(id), Name: r.str("name"), Description: r.str("description"),
			FileType: r.str("file_type"), SHA256: strings.ToLower(r.str("sha256")), Tags: garrison.NormalizeObjectTags(p.d.objectTags[id]),
			CreatedAt: r.time("created_at"), UpdatedAt: r.time("updated_at")}
		content, why := p.d.blobs[id], ""
		sum := sha256.Sum256(content)
		switch {
		case content == nil && r.int("size") != 0:
			why = "its content is missing"
		case int64(len(content)) != r.int("size"):
			why = "its content is not its recorded size"
		case o.SHA256 != "" && hex.EncodeToString(sum[:]) != o.SHA256:
			why = "its content does not match its sha256"
		case containsTag(o.Tags, "category=garm-agent"):
			why = "it is a garm-agent tool, which garrison does not run"
		case garrison.ValidateObjectName(o.Name) != nil:
			why = "garrison refuses its name: " + garrison.MessageOf(garrison.ValidateObjectName(o.Name))
		}
		if why != "" {
			k.Skipped++
			p.rep.notImported(false, p.o.SkipUnsupported, "file object %d (%s) not imported: %s", id, o.Name, why)
			continue
		}
		o.Size = int64(len(content))
		p.snap.Objects = append(p.snap.Objects, store.ImportObject{Object: o, Content: bytes.NewReader(content)})
		k.Imported++
	}
}

func containsTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}
