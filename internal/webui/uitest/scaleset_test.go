package uitest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// uiSet is the scale set the test makes through the UI.
const uiSet = "ui-set"

// scaleSet creates a scale set for acme/app through the UI, edits it (maximum runners,
// disabled) and enables it again, checking each step through the API, and that its
// listener holds a session with the simulator's Actions service while it is enabled.
func (e *uiEnv) scaleSet(t *testing.T) {
	t.Helper()
	b := e.b
	e.page("/ui/scalesets", "Scale sets")
	b.clickText(`.actions a`, "New scale set")
	b.waitHeading("New scale set")
	b.waitJS("the scale set form", `!!document.querySelector('form[aria-label="New scale set"]')`)
	b.checkA11y("new scale set")
	b.fill(`[name="name"]`, uiSet)
	b.choose(`[name="provider_name"]`, testbed.ProviderName)
	b.fill(`[name="labels"]`, "gpu, ui-extra")
	b.fill(`[name="image"]`, "ui-test")
	b.fill(`[name="flavor"]`, "small")
	b.fill(`[name="max_runners"]`, "2")
	b.fill(`[name="min_idle_runners"]`, "0")
	b.shot("22-scaleset-form")
	b.click(`button[type="submit"]`)
	b.waitHeading("Scale set " + uiSet)
	ss := e.oneScaleSet(t)
	if !ss.Enabled || ss.MaxRunners != 2 || ss.RepoName != testbed.Repo || !slices.Equal(tagNames(ss), []string{"gpu", "ui-extra"}) {
		t.Fatalf("scale set after the form: %+v", ss)
	}
	e.waitSession(t, ss, true)
	b.checkA11y("scale set")
	b.shot("23-scaleset")

	// Edit: more runners, disabled; the labels are shown, not changed.
	b.clickText(`.actions a`, "Edit")
	b.waitHeading("Edit scale set")
	b.waitJS("the edit form", `!!document.querySelector('form[aria-label="Edit scale set"] [name="max_runners"]')`)
	if got := eval[string](b, `document.querySelector('form[aria-label="Edit scale set"]').textContent`); !contains(got, "ui-set, gpu, ui-extra") {
		t.Errorf("the edit form does not show the labels: %q", got)
	}
	b.checkA11y("edit scale set")
	b.fill(`[name="max_runners"]`, "3")
	b.click(`[name="enabled"]`)
	b.click(`button[type="submit"]`)
	b.waitHeading("Scale set " + uiSet)
	b.waitJS("the saved settings", `document.querySelector('main dl').textContent.includes('max 3')`)
	ss = e.oneScaleSet(t)
	if ss.Enabled || ss.MaxRunners != 3 || !slices.Equal(tagNames(ss), []string{"gpu", "ui-extra"}) {
		t.Fatalf("scale set after the edit: %+v", ss)
	}
	e.waitSession(t, ss, false)

	// The list shows it disabled; its page enables it again.
	e.page("/ui/scalesets", "Scale sets")
	row := fmt.Sprintf(`[...document.querySelectorAll('main tbody tr')].find((r) => r.textContent.includes(%q))`, uiSet)
	b.waitJS("the scale set in the list", row+` !== undefined && `+row+`.textContent.includes('gpu')`)
	if cells := eval[[]string](b, `[...`+row+`.querySelectorAll('td,th')].map((c) => c.textContent)`); !slices.Contains(cells, "no") || !slices.Contains(cells, "3") {
		t.Errorf("list row %q, want it disabled with max 3", cells)
	}
	b.checkA11y("/ui/scalesets (one)")
	b.shot("24-scalesets")
	b.click(fmt.Sprintf(`main a[data-key="ss-%d"]`, ss.ID))
	b.waitHeading("Scale set " + uiSet)
	b.clickText(`.actions button`, "Enable")
	b.waitJS("the scale set enabled", `[...document.querySelectorAll('.actions button')].some((x) => x.textContent === 'Disable')`)
	if ss = e.oneScaleSet(t); !ss.Enabled {
		t.Fatalf("scale set after Enable: %+v", ss)
	}
	e.waitSession(t, ss, true)
}

// oneScaleSet returns the scale set named uiSet, through the API.
func (e *uiEnv) oneScaleSet(t *testing.T) apiv1.ScaleSet {
	t.Helper()
	sets, err := e.API.ListScaleSets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, ss := range sets {
		if ss.Name == uiSet {
			return ss
		}
	}
	t.Fatalf("no scale set %s in %+v", uiSet, sets)
	return apiv1.ScaleSet{}
}

// waitSession waits until the scale set is registered with the simulator's Actions
// service and its listener holds a message session (open) or holds none (closed).
func (e *uiEnv) waitSession(t *testing.T, ss apiv1.ScaleSet, open bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		got, err := e.API.GetScaleSet(t.Context(), ss.ID)
		if err != nil {
			t.Fatal(err)
		}
		session := ""
		for _, s := range e.Sim.ScaleSets() {
			if got.ScaleSetID != 0 && s.ID == int64(got.ScaleSetID) {
				session = s.SessionID
			}
		}
		if got.ScaleSetID != 0 && (session != "") == open {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("scale set %s (forge id %d, state %q): session %q, want open %v", ss.Name, got.ScaleSetID, got.State, session, open)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tagNames(ss apiv1.ScaleSet) []string {
	var out []string
	for _, t := range ss.Tags {
		out = append(out, t.Name)
	}
	return out
}
