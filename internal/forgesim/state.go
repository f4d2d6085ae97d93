package forgesim

import (
	"crypto/rsa"
	"strings"
	"time"

	"github.com/garrison-ci/garrison"
)

// state is the simulated forge's data. Every access holds Sim.mu.
type state struct {
	nextID      int64
	repos       map[string]*repo // by lower "owner/name"
	orgs        map[string]*org  // by lower name
	enterprises map[string]*enterprise
	pats        map[string]bool
	apps        map[int64]*app // by App id
	instTokens  map[string]*instToken
	regTokens   map[string]scope  // registration token → scope
	giteaTokens map[string]string // Gitea scope key → its one registration token
	runners     map[int64]*runner
	jobs        map[int64]*job
	runs        map[int64]*run
	hooks       map[int64]*hook
	deliveries  []*Delivery // oldest first
	calls       map[CallKey]int
	callLog     []Call // bounded by maxCallLog
	budgets     map[budgetKey]*budget
	secondary   secondaryFault
	stale       staleFault
	unreachable map[string]bool // scope keys answering 404 (SetUnreachable)
	actions     actions         // the Actions service (runner scale sets)
}

func newState() state {
	return state{
		nextID:      100,
		repos:       map[string]*repo{},
		orgs:        map[string]*org{},
		enterprises: map[string]*enterprise{},
		pats:        map[string]bool{},
		apps:        map[int64]*app{},
		instTokens:  map[string]*instToken{},
		regTokens:   map[string]scope{},
		giteaTokens: map[string]string{},
		runners:     map[int64]*runner{},
		jobs:        map[int64]*job{},
		runs:        map[int64]*run{},
		hooks:       map[int64]*hook{},
		calls:       map[CallKey]int{},
		budgets:     map[budgetKey]*budget{},
		unreachable: map[string]bool{},
		actions:     newActions(),
	}
}

func (st *state) id() int64 {
	st.nextID++
	return st.nextID
}

type repo struct {
	id          int64
	owner, name string
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

type group struct {
	ID   int64
	Name string
}

type org struct {
	id         int64
	name       string
	enterprise string // lower slug, "" when none
	groups     []group
}

type enterprise struct {
	id     int64
	slug   string
	groups []group
}

type app struct {
	id            int64
	key           *rsa.PublicKey
	installations map[int64]bool
}

type instToken struct {
	installation int64
	expires      time.Time
}

// scope names where runners, tokens and hooks live: kind is "repos", "orgs",
// "enterprises" or, for Gitea, "admin"; name is "owner/repo", the org or the slug.
type scope struct {
	kind string
	name string
}

func (sc scope) key() string { return sc.kind + "/" + strings.ToLower(sc.name) }

// path is the scope's API path, e.g. "repos/o/r".
func (sc scope) path() string {
	if sc.kind == "admin" {
		return "admin"
	}
	return sc.kind + "/" + sc.name
}

type runner struct {
	id        int64
	name      string
	scope     scope
	forge     garrison.ForgeType
	labels    []string
	groupID   int64
	groupName string
	ephemeral bool
	online    bool
	busy      bool
	version   string
	secret    string
	jobID     int64
	setID     int64 // the runner scale set it belongs to; 0 for pool runners
	stranded  bool  // StrandRunner: offline for good, takes no job
}

type job struct {
	id, runID   int64
	repo        *repo
	name        string
	labels      []string
	status      string // queued, in_progress, completed
	conclusion  string
	runner      *runner // set at acquisition
	runnerID    int64
	runnerName  string
	groupID     int64
	groupName   string
	createdAt   time.Time
	startedAt   time.Time
	completedAt time.Time
	duration    time.Duration // how long a stand-in runner should "run" it; 0 = its default
	setID       int64         // the runner scale set it went to; 0 when none
	setState    string        // setNone, setAvailable or setAssigned
	requeues    int           // assignments that timed out (CancelAssignment)
}

type run struct {
	id     int64
	repo   *repo
	name   string
	jobIDs []int64
}

type hook struct {
	id        int64
	scope     scope
	forge     garrison.ForgeType
	url       string
	secret    string
	events    []string
	active    bool
	createdAt time.Time
}

// repoLocked finds a repository by "owner/name".
func (st *state) repoLocked(full string) *repo {
	return st.repos[strings.ToLower(full)]
}

// scopeExistsLocked reports whether the repository, organization or enterprise exists.
func (st *state) scopeExistsLocked(sc scope) bool {
	switch sc.kind {
	case "repos":
		return st.repoLocked(sc.name) != nil
	case "orgs":
		return st.orgs[strings.ToLower(sc.name)] != nil
	case "enterprises":
		return st.enterprises[strings.ToLower(sc.name)] != nil
	case "admin", "user":
		return true
	}
	return false
}

// coversLocked reports whether a runner or hook at sc sees jobs of repository rp.
func (st *state) coversLocked(sc scope, rp *repo) bool {
	switch sc.kind {
	case "repos":
		return strings.EqualFold(sc.name, rp.fullName())
	case "orgs":
		return strings.EqualFold(sc.name, rp.owner)
	case "enterprises":
		o := st.orgs[strings.ToLower(rp.owner)]
		return o != nil && strings.EqualFold(o.enterprise, sc.name)
	case "admin":
		return true
	}
	return false
}

// groupsLocked returns the runner groups of an organization or enterprise scope; a
// repository has only the default group.
func (st *state) groupsLocked(sc scope) []group {
	switch sc.kind {
	case "orgs":
		if o := st.orgs[strings.ToLower(sc.name)]; o != nil {
			return o.groups
		}
	case "enterprises":
		if e := st.enterprises[strings.ToLower(sc.name)]; e != nil {
			return e.groups
		}
	case "repos":
		return []group{defaultGroup}
	}
	return nil
}

var defaultGroup = group{ID: 1, Name: "Default"}

// labelsMatch reports whether every job label is among the runner labels, ignoring case.
func labelsMatch(jobLabels, runnerLabels []string) bool {
	for _, jl := range jobLabels {
		found := false
		for _, rl := range runnerLabels {
			if strings.EqualFold(jl, rl) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
