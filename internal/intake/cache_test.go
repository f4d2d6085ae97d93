package intake

import (
	"cmp"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/forge/webhook"
	"github.com/garrison-ci/garrison/internal/store"
)

// fill sends a delivery that reads (and caches) the controller id, the GitHub endpoints,
// the repository and its pools.
func (e *env) fill(t *testing.T, id int64, status int) {
	t.Helper()
	if w := e.send(gh(queued(id, stdLabels...), "fill-"+itoa(id))); w.Code != status {
		t.Fatalf("fill: status %d, want %d: %s", w.Code, status, w.Body)
	}
}

// signed builds a GitHub repository delivery of j signed with secret.
func signed(j job, deliveryID, secret string) delivery {
	b := j.github()
	return delivery{header: ghHeaders(webhook.TargetRepository, deliveryID, b, secret), body: b}
}

func (e *env) setControllerID(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ctrlID = id
}

// TestCacheRefusalsReadFresh changes the store after a delivery filled the cache, in every
// way that turns a refusal into an acceptance: the next delivery must be accepted at once.
func TestCacheRefusalsReadFresh(t *testing.T) {
	tests := []struct {
		name       string
		before     func(e *env) // before the cache is filled
		fillStatus int
		after      func(e *env) // after
		d          func(e *env) delivery
	}{{
		name:  "pool created after the fill",
		after: func(e *env) { e.newPool(e.repo.ID, "self-hosted", "gpu") },
		d:     ghJob(queued(2, "self-hosted", "gpu"), "d2"),
	}, {
		name: "disabled pool enabled after the fill",
		before: func(e *env) {
			e.disablePool(e.newPool(e.repo.ID, "self-hosted", "arm64").ID)
		},
		after: func(e *env) {
			pools, err := e.st.ListPools(e.t.Context(), store.PoolFilter{EntityID: e.repo.ID})
			must(e.t, err)
			for _, p := range pools {
				_, err := e.st.UpdatePool(e.t.Context(), p.ID, func(p *garrison.Pool) error { p.Enabled = true; return nil })
				must(e.t, err)
			}
		},
		d: ghJob(queued(2, "self-hosted", "arm64"), "d2"),
	}, {
		name: "repository created after the fill",
		after: func(e *env) {
			other := e.entity(garrison.GitHubComEndpoint, garrison.GitHub, garrison.Entity{
				Type: garrison.Repository, Owner: "octo-org", Name: "other", WebhookSecret: "other-secret"})
			e.newPool(other.ID, "self-hosted", "linux")
		},
		d: func(*env) delivery {
			return signed(job{action: "queued", id: 2, labels: stdLabels, owner: "octo-org", repo: "other"}, "d2", "other-secret")
		},
	}, {
		name: "endpoint and repository created after the fill",
		after: func(e *env) {
			_, err := e.st.CreateEndpoint(e.t.Context(), garrison.Endpoint{Name: "ghes", Type: garrison.GitHub,
				BaseURL: "https://ghes.example.com", APIBaseURL: "https://ghes.example.com/api/v3/",
				UploadBaseURL: "https://ghes.example.com/api/uploads/"})
			must(e.t, err)
			ent := e.entity("ghes", garrison.GitHub, garrison.Entity{
				Type: garrison.Repository, Owner: "octo-org", Name: "app", WebhookSecret: "ghes-secret"})
			e.newPool(ent.ID, "self-hosted", "linux")
		},
		d: func(*env) delivery {
			return signed(job{action: "queued", id: 2, labels: stdLabels, htmlBase: "https://ghes.example.com", owner: "octo-org", repo: "app"}, "d2", "ghes-secret")
		},
	}, {
		name:  "webhook secret rotated after the fill",
		after: func(e *env) { e.setSecret(e.repo.ID, "rotated") },
		d:     func(*env) delivery { return signed(queued(2, stdLabels...), "d2", "rotated") },
	}, {
		name:       "webhook secret set after the fill",
		before:     func(e *env) { e.setSecret(e.repo.ID, "") },
		fillStatus: http.StatusUnauthorized,
		after:      func(e *env) { e.setSecret(e.repo.ID, ghSecret) },
		d:          ghJob(queued(2, stdLabels...), "d2"),
	}, {
		name:  "controller id changed after the fill",
		after: func(e *env) { e.setControllerID("11111111-2222-3333-4444-555555555555") },
		d: func(e *env) delivery {
			return atPath("/webhooks/11111111-2222-3333-4444-555555555555", ghJob(queued(2, stdLabels...), "d2"))(e)
		},
	}}
	for _, mode := range cacheModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t, withCacheTTL(mode.ttl))
				if tt.before != nil {
					tt.before(e)
				}
				e.fill(t, 1, cmp.Or(tt.fillStatus, http.StatusOK))
				tt.after(e)
				e.sendStep(t, 0, step{d: tt.d, status: http.StatusOK, result: ResultOK})
				e.wantAction(2, garrison.JobQueued)
			})
		}
	}
}

// TestCacheSecretRotation: after a rotation the new signature is accepted at once; the old
// one is refused once the cache has been refreshed, by a fresh read or after the TTL.
func TestCacheSecretRotation(t *testing.T) {
	tests := []struct {
		name       string
		ttl        time.Duration
		newFirst   bool // send the new signature before the old one
		oldInTTL   int  // status of the old signature before the TTL has passed
		oldNextTTL int  // after
	}{
		{name: "cached, old signature first", ttl: DefaultCacheTTL, oldInTTL: 200, oldNextTTL: 401},
		{name: "cached, new signature first", ttl: DefaultCacheTTL, newFirst: true, oldInTTL: 401, oldNextTTL: 401},
		{name: "uncached", ttl: 0, oldInTTL: 401, oldNextTTL: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withCacheTTL(tt.ttl))
			e.fill(t, 1, http.StatusOK)
			e.setSecret(e.repo.ID, "rotated")
			id := int64(10)
			send := func(secret string, want int) {
				t.Helper()
				id++
				e.sendStep(t, int(id), step{d: func(*env) delivery {
					return signed(queued(id, stdLabels...), "d"+itoa(id), secret)
				}, status: want})
			}
			if tt.newFirst {
				send("rotated", http.StatusOK)
			}
			send(ghSecret, tt.oldInTTL) // a stale positive lasts at most the TTL
			e.clock.advance(DefaultCacheTTL)
			send(ghSecret, tt.oldNextTTL)
			send("rotated", http.StatusOK)
			send(ghSecret, http.StatusUnauthorized)
		})
	}
}

// TestCacheDeletedEntity: a deleted entity stops receiving within the TTL, and its entries
// leave the cache.
func TestCacheDeletedEntity(t *testing.T) {
	for _, mode := range cacheModes {
		t.Run(mode.name, func(t *testing.T) {
			e := newEnv(t, withCacheTTL(mode.ttl))
			gitea := func(id int64) func(*env) delivery {
				return giteaJob(job{action: "queued", id: id, labels: []string{"ubuntu-latest"}}, "g"+itoa(id))
			}
			e.sendStep(t, 0, step{d: gitea(1), status: http.StatusOK, result: ResultOK})
			must(t, e.st.DeletePool(t.Context(), e.gpool.ID))
			must(t, e.st.DeleteEntity(t.Context(), e.org.ID))
			e.clock.advance(DefaultCacheTTL)
			e.sendStep(t, 1, step{d: gitea(2), status: http.StatusOK, result: ResultEntityUnknown})
			e.wantNoJob(2)
			e.fill(t, 3, http.StatusOK) // another entity's entries: sweeps the expired ones
			want := 0
			if mode.ttl > 0 {
				want = 1 // the repository's
			}
			c := e.h.cache
			if n, m := c.entities.size(), c.pools.size(); n != want || m != want {
				t.Fatalf("%d entity and %d pool entries, want %d", n, m, want)
			}
		})
	}
}

// TestCacheReads counts the routing reads per delivery: none while the cache is fresh.
func TestCacheReads(t *testing.T) {
	tests := []struct {
		name    string
		ttl     time.Duration
		perSend int64 // reads per delivery once the cache is filled
	}{
		{name: "cached", ttl: DefaultCacheTTL, perSend: 0},
		{name: "uncached", ttl: 0, perSend: 4}, // controller, endpoints, entities, pools
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withCacheTTL(tt.ttl))
			e.fill(t, 1, http.StatusOK)
			if n := e.reads.total(); n != 4 {
				t.Fatalf("%d reads for the first delivery, want 4", n)
			}
			for id := int64(2); id < 12; id++ {
				e.sendStep(t, int(id), step{d: ghJob(queued(id, stdLabels...), "d"+itoa(id)), status: 200, result: ResultOK})
			}
			if n := e.reads.total() - 4; n != 10*tt.perSend {
				t.Fatalf("%d reads for 10 deliveries, want %d", n, 10*tt.perSend)
			}
			e.clock.advance(DefaultCacheTTL)
			before := e.reads.total()
			e.fill(t, 12, http.StatusOK)
			if n := e.reads.total() - before; n != 4 {
				t.Fatalf("%d reads after the TTL, want 4", n)
			}
		})
	}
}

// TestCacheConcurrent sends deliveries from several goroutines while the clock moves (so
// entries expire and reload) and pools are created, each followed by a job only the new
// pool serves: every delivery is recorded.
func TestCacheConcurrent(t *testing.T) {
	e := newEnv(t)
	const senders, each, newPools = 4, 25, 8
	var wg sync.WaitGroup
	errs := make(chan string, senders*each+newPools)
	send := func(d delivery) {
		if w := e.send(d); w.Code != http.StatusOK {
			errs <- w.Body.String()
		}
	}
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				id := int64(1000*(g+1) + i)
				send(gh(queued(id, stdLabels...), "d"+itoa(id)))
			}
		})
	}
	wg.Go(func() {
		for i := range newPools {
			label := "gpu-" + itoa(int64(i))
			e.newPool(e.repo.ID, "self-hosted", label)
			send(gh(queued(int64(9000+i), "self-hosted", label), "p"+itoa(int64(i))))
			e.clock.advance(DefaultCacheTTL / 3)
		}
	})
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Errorf("delivery refused: %s", msg)
	}
	for g := range senders {
		for i := range each {
			e.wantAction(int64(1000*(g+1)+i), garrison.JobQueued)
		}
	}
	for i := range newPools {
		e.wantAction(int64(9000+i), garrison.JobQueued)
	}
}

// TestTTLMap checks the map under the cache: expiry, fresh reads, refused values, load
// errors and the bound.
func TestTTLMap(t *testing.T) {
	clock := newFakeClock()
	loads := 0
	load := func(v int, err error) func() (int, error) {
		return func() (int, error) { loads++; return v, err }
	}
	type call struct {
		advance time.Duration
		key     int
		fresh   bool
		load    func() (int, error)
		want    int
		cached  bool
	}
	tests := []struct {
		name  string
		ttl   time.Duration
		calls []call
		loads int
	}{
		{name: "kept for the TTL", ttl: time.Second, loads: 2, calls: []call{
			{key: 1, load: load(1, nil), want: 1},
			{advance: 999 * time.Millisecond, key: 1, load: load(2, nil), want: 1, cached: true},
			{advance: time.Millisecond, key: 1, load: load(3, nil), want: 3},
		}},
		{name: "fresh reloads and refreshes", ttl: time.Second, loads: 2, calls: []call{
			{key: 1, load: load(1, nil), want: 1},
			{key: 1, fresh: true, load: load(2, nil), want: 2},
			{key: 1, load: load(3, nil), want: 2, cached: true},
		}},
		{name: "refused values are not kept and evict", ttl: time.Second, loads: 3, calls: []call{
			{key: 1, load: load(1, nil), want: 1},
			{key: 1, fresh: true, load: load(0, nil), want: 0},
			{key: 1, load: load(0, nil), want: 0},
		}},
		{name: "errors are not kept", ttl: time.Second, loads: 2, calls: []call{
			{key: 1, load: load(0, errOptions)},
			{key: 1, load: load(1, nil), want: 1},
			{key: 1, load: load(2, nil), want: 1, cached: true},
		}},
		{name: "disabled", ttl: 0, loads: 2, calls: []call{
			{key: 1, load: load(1, nil), want: 1},
			{key: 1, load: load(2, nil), want: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loads = 0
			m := newTTLMap[int](tt.ttl, clock.Now, func(v int) bool { return v != 0 })
			for i, c := range tt.calls {
				clock.advance(c.advance)
				v, cached, _ := m.get(c.key, c.fresh, c.load)
				if v != c.want || cached != c.cached {
					t.Fatalf("call %d: %d cached %v, want %d cached %v", i, v, cached, c.want, c.cached)
				}
			}
			if loads != tt.loads {
				t.Fatalf("%d loads, want %d", loads, tt.loads)
			}
		})
	}
}

// TestTTLMapBound: the map never holds more than maxCacheEntries, and expired entries
// make room again.
func TestTTLMapBound(t *testing.T) {
	clock := newFakeClock()
	m := newTTLMap[int, int](time.Second, clock.Now, nil)
	for k := range maxCacheEntries + 10 {
		_, _, _ = m.get(k, false, func() (int, error) { return k, nil })
	}
	if n := m.size(); n != maxCacheEntries {
		t.Fatalf("%d entries, want %d", n, maxCacheEntries)
	}
	clock.advance(time.Second)
	_, _, _ = m.get(-1, false, func() (int, error) { return 1, nil })
	if n := m.size(); n != 1 {
		t.Fatalf("%d entries after the TTL, want 1", n)
	}
}
