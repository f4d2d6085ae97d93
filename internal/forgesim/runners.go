package forgesim

import (
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
)

// Runner is a snapshot of a simulated runner.
type Runner struct {
	ID         int64
	Name       string
	Scope      string // "repos/o/r", "orgs/o", "enterprises/e" or "admin"
	Forge      garrison.ForgeType
	Labels     []string
	GroupID    int64
	Ephemeral  bool
	Online     bool // connected at least once (its first acquire)
	Busy       bool
	JobID      int64  // the job it holds, 0 when idle
	Secret     string // credential for the runner routes
	ScaleSetID int64  // the runner scale set it belongs to; 0 for pool runners
}

func (rn *runner) snapshot() Runner {
	return Runner{
		ID: rn.id, Name: rn.name, Scope: rn.scope.path(), Forge: rn.forge,
		Labels: append([]string(nil), rn.labels...), GroupID: rn.groupID,
		Ephemeral: rn.ephemeral, Online: rn.online, Busy: rn.busy, JobID: rn.jobID, Secret: rn.secret,
		ScaleSetID: rn.setID,
	}
}

// Runners returns all runners, by id.
func (s *Sim) Runners() []Runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Runner
	for _, id := range sortedIDs(s.st.runners) {
		out = append(out, s.st.runners[id].snapshot())
	}
	return out
}

func (st *state) addRunnerLocked(sc scope, f garrison.ForgeType, name string, labels []string, ephemeral bool) *runner {
	rn := &runner{
		id: st.id(), name: name, scope: sc, forge: f, labels: append([]string(nil), labels...),
		groupID: defaultGroup.ID, groupName: defaultGroup.Name, ephemeral: ephemeral, secret: "rs_" + randomHex(16),
	}
	st.runners[rn.id] = rn
	return rn
}

func (st *state) runnerByNameLocked(sc scope, name string) *runner {
	for _, rn := range st.runners {
		if rn.scope.key() == sc.key() && strings.EqualFold(rn.name, name) {
			return rn
		}
	}
	return nil
}

func (st *state) runnerInLocked(sc scope, id int64, f garrison.ForgeType) *runner {
	rn := st.runners[id]
	if rn == nil || rn.forge != f || rn.scope.key() != sc.key() {
		return nil
	}
	return rn
}

func (st *state) runnerBySecretLocked(secret string) *runner {
	for _, rn := range st.runners {
		if rn.secret == secret {
			return rn
		}
	}
	return nil
}

// RegisterRunner registers a runner with a registration token (GitHub's config.sh flow or
// Gitea's register), as a stand-in runner would. The runner lives at the token's scope
// and its forge is the one that issued the token.
func (s *Sim) RegisterRunner(token, name string, labels []string, ephemeral bool) (Runner, error) {
	if name == "" || len(labels) == 0 {
		return Runner{}, garrison.Errorf(garrison.EInvalid, "forgesim: a runner needs a name and labels")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, f, ok := s.st.regTokenLocked(token)
	if !ok {
		return Runner{}, garrison.Errorf(garrison.EUnauthorized, "forgesim: unknown registration token")
	}
	if s.st.runnerByNameLocked(sc, name) != nil {
		return Runner{}, garrison.Errorf(garrison.EConflict, "forgesim: a runner named %q exists", name)
	}
	return s.st.addRunnerLocked(sc, f, name, labels, ephemeral).snapshot(), nil
}

// regTokenLocked resolves a GitHub or Gitea registration token.
func (st *state) regTokenLocked(token string) (scope, garrison.ForgeType, bool) {
	if sc, ok := st.regTokens[token]; ok {
		return sc, garrison.GitHub, true
	}
	for key, t := range st.giteaTokens {
		if t == token {
			kind, name, _ := strings.Cut(key, "/")
			return scope{kind, name}, garrison.Gitea, true
		}
	}
	return scope{}, "", false
}

// runnerFor authenticates a runner by its secret (and name, when given).
func (st *state) runnerForLocked(name, secret string) (*runner, error) {
	rn := st.runnerBySecretLocked(secret)
	if rn == nil || (name != "" && !strings.EqualFold(rn.name, name)) {
		return nil, fmt.Errorf("forgesim: runner %q: %w", name, garrison.ErrUnauthorized)
	}
	return rn, nil
}
