package uitest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
	"github.com/garrison-ci/garrison/internal/testbed"
)

// The administrator the test creates through the first-run page.
const (
	adminUser     = "admin"
	adminEmail    = "admin@example.com"
	adminPassword = "Tr0ub4dor&3-correct-horse-battery"
	webhookSecret = "ui-test-webhook-secret-0123456789"
)

// uiEnv is a bed (forge simulator, in-process server, simulation provider) and a browser
// pointed at it.
type uiEnv struct {
	*testbed.Bed
	b *browser
}

func newUIEnv(t *testing.T) *uiEnv {
	t.Helper()
	bin := requireBrowserTests(t)
	if err := testbed.CheckHost(); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	bed, err := testbed.New(testbed.Options{JobDuration: 3 * time.Second, BootDelay: 300 * time.Millisecond,
		BaseDir: base, Tools: helperTools(t)})
	if err != nil {
		t.Fatalf("starting the bed: %v", err)
	}
	t.Cleanup(func() {
		if err := bed.Close(false); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	if err := bed.StartServer(context.Background(), testbed.ServerOptions{}); err != nil {
		t.Fatal(err)
	}
	return &uiEnv{Bed: bed, b: newBrowser(t, bin)}
}

// page opens path and waits for its heading.
func (e *uiEnv) page(path, heading string) {
	e.b.t.Helper()
	e.b.run("opening "+path, chromedp.Navigate(e.URL+path))
	e.b.waitHeading(heading)
}

// TestUIEndToEnd walks the UI as an administrator would on a fresh server: first run,
// log out and in, add the simulator's endpoint, credentials and a repository, create a
// pool, and watch a job from queued to completed. Every page is checked for
// accessibility problems and script errors, and photographed.
func TestUIEndToEnd(t *testing.T) {
	e := newUIEnv(t)
	b := e.b

	// "/" leads to the UI, which sends a fresh server to its first run.
	e.page("/", "Welcome to garrison")
	b.checkA11y("first run")
	b.shot("01-first-run")
	b.fill(`[name="email"]`, adminEmail)
	b.fill(`[name="password"]`, adminPassword)
	b.fill(`[name="password2"]`, adminPassword)
	b.click(`button[type="submit"]`)
	b.waitHeading("Dashboard")
	e.apiLogin(t)
	ctrl, err := e.API.GetController(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := e.URL + "/api/v1/metadata"; ctrl.MetadataURL != want || ctrl.CallbackURL != e.URL+"/api/v1/callbacks" {
		t.Errorf("first run set metadata %q, callback %q; want the page's origin (%s)", ctrl.MetadataURL, ctrl.CallbackURL, want)
	}
	e.ControllerID = ctrl.ControllerID
	if eval[bool](b, `(() => { const m = document.cookie.match(/garm_token=([^;]+)/); return !m || location.href.includes(m[1]); })()`) {
		t.Error("after first run the page has no token cookie, or shows the token in its URL")
	}
	b.checkA11y("dashboard")
	b.shot("02-dashboard-empty")

	// Log out and in again.
	b.clickText(`#user-menu button`, "Log out")
	b.waitHeading("Log in to garrison")
	b.checkA11y("login")
	b.shot("03-login")
	b.fill(`[name="username"]`, adminUser)
	b.fill(`[name="password"]`, "wrong password")
	b.click(`button[type="submit"]`)
	b.waitJS("the login error", `document.querySelector('form [role="alert"]') && !document.querySelector('form [role="alert"]').hidden`)
	b.fill(`[name="password"]`, adminPassword)
	b.click(`button[type="submit"]`)
	b.waitHeading("Dashboard")

	e.addCredentialsAndRepo(t)
	poolID := e.createPool(t)
	e.watchJob(t, poolID)
	e.scaleSet(t)
	e.tourPages(t, poolID)
	e.phone(t, poolID)
	e.dark(t, poolID)
	b.checkProblems()
}

// apiLogin logs the bed's API client in with the credentials the UI created.
func (e *uiEnv) apiLogin(t *testing.T) {
	t.Helper()
	c, err := apiclient.New(e.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.Login(t.Context(), apiv1.PasswordLoginParams{Username: adminUser, Password: adminPassword})
	if err != nil {
		t.Fatalf("logging in with the password set through the first-run page: %v", err)
	}
	c.SetToken(tok)
	e.API = c
}

// addCredentialsAndRepo adds the simulator as a GitHub endpoint, its PAT and the
// repository acme/app through the UI, and points the repository's webhook at garrison.
func (e *uiEnv) addCredentialsAndRepo(t *testing.T) {
	t.Helper()
	b := e.b
	b.clickText(`#nav a`, "Credentials")
	b.waitHeading("Credentials and endpoints")
	b.clickText(`summary`, "Add an endpoint")
	sim := e.Sim.URL()
	ep := `form[aria-label="Add an endpoint"] `
	b.fill(ep+`[name="name"]`, testbed.Endpoint)
	b.fill(ep+`[name="description"]`, "forge simulator")
	b.fill(ep+`[name="base_url"]`, sim)
	b.fill(ep+`[name="api_base_url"]`, sim+"/api/v3/")
	b.fill(ep+`[name="upload_base_url"]`, sim+"/api/uploads/")
	b.click(ep + `button[type="submit"]`)
	b.waitJS("the endpoint in the list", fmt.Sprintf(`[...document.querySelectorAll('table th[scope=row]')].some((c) => c.textContent === %q)`, testbed.Endpoint))

	b.clickText(`summary`, "Add credentials")
	cr := `form[aria-label="Add credentials"] `
	b.choose(cr+`[name="endpoint"]`, "github:"+testbed.Endpoint)
	b.fill(cr+`[name="name"]`, testbed.Credentials)
	b.fill(cr+`[name="pat"]`, e.PAT)
	b.click(cr + `button[type="submit"]`)
	b.waitJS("the credentials in the list", fmt.Sprintf(`[...document.querySelectorAll('table th[scope=row]')].some((c) => c.textContent === %q)`, testbed.Credentials))
	b.checkA11y("credentials")
	b.shot("04-credentials")

	b.clickText(`#nav a`, "Entities")
	b.waitHeading("Entities")
	b.clickText(`summary`, "Add a repository")
	add := `form[aria-label="Add an entity"] `
	b.choose(add+`[name="kind"]`, "repositories")
	b.fill(add+`[name="owner"]`, "acme")
	b.fill(add+`[name="name"]`, "app")
	b.choose(add+`[name="credentials"]`, "github:"+testbed.Credentials)
	b.fill(add+`[name="webhook_secret"]`, webhookSecret)
	b.click(add + `button[type="submit"]`)
	b.waitHeading("Repository acme/app")
	b.checkA11y("repository")
	hook := e.URL + "/webhooks/" + e.ControllerID
	if _, err := e.Sim.AddHook("repos/"+testbed.Repo, hook, webhookSecret, garrison.GitHub); err != nil {
		t.Fatalf("adding the webhook: %v", err)
	}
}

// createPool creates a pool for acme/app through the pool form and returns its id.
func (e *uiEnv) createPool(t *testing.T) string {
	t.Helper()
	b := e.b
	b.clickText(`.actions a`, "New pool")
	b.waitHeading("New pool")
	b.waitJS("the pool form", `!!document.querySelector('form[aria-label="New pool"]')`)
	b.checkA11y("new pool")
	b.choose(`[name="provider_name"]`, testbed.ProviderName)
	b.fill(`[name="image"]`, "ui-test")
	b.fill(`[name="flavor"]`, "small")
	b.fill(`[name="tags"]`, "self-hosted, linux, ui")
	b.fill(`[name="max_runners"]`, "2")
	b.fill(`[name="min_idle_runners"]`, "0")
	b.shot("05-pool-form")
	b.click(`button[type="submit"]`)
	b.waitHeading("acme/app · small")
	pools, err := e.API.ListPools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(pools) != 1 || !pools[0].Enabled || pools[0].MaxRunners != 2 || len(pools[0].Tags) != 3 {
		t.Fatalf("pools after the form: %+v", pools)
	}
	b.checkA11y("pool")
	b.shot("06-pool")
	return pools[0].ID
}

// watchJob queues a job on the simulator for the pool's labels and follows it on its
// page until the timeline shows it completed.
func (e *uiEnv) watchJob(t *testing.T, poolID string) {
	t.Helper()
	b := e.b
	forgeID, err := e.Sim.QueueJobFor(testbed.Repo, 8*time.Second, "self-hosted", "linux", "ui")
	if err != nil {
		t.Fatal(err)
	}
	id := e.jobSeq(t, forgeID)
	e.page("/ui/jobs/"+strconv.FormatInt(id, 10), "Job #"+strconv.FormatInt(id, 10))
	b.waitJS("the timeline", `document.querySelectorAll('ol.timeline[aria-label^="Timeline"] li').length === 5`)
	b.checkA11y("job")
	b.shot("07-job-waiting")

	// The runner garrison made for the job, with its status messages as a timeline.
	b.waitJS("the job's runner", `!!document.querySelector('ol.timeline a[href^="/ui/runners/"]')`)
	b.click(`ol.timeline a[href^="/ui/runners/"]`)
	b.waitHeading("Runner ")
	b.waitJS("the runner's status messages", `document.querySelectorAll('ol.messages li').length >= 3`)
	b.checkA11y("runner")
	b.shot("08-runner")
	e.page("/ui/jobs/"+strconv.FormatInt(id, 10), "Job #"+strconv.FormatInt(id, 10))
	b.waitJS("the job to complete", `(() => {
		const steps = [...document.querySelectorAll('ol.timeline[aria-label^="Timeline"] li')];
		return steps.length === 5 && steps[4].classList.contains('tl-done');
	})()`)
	steps := eval[[]string](b, `[...document.querySelectorAll('ol.timeline[aria-label^="Timeline"] li')].map((li) => li.className + ' | ' + li.textContent)`)
	t.Logf("timeline: %q", steps)
	for i, want := range []string{"Queued", "Runner created", "Runner idle", "Started", "Completed"} {
		if i >= len(steps) || !contains(steps[i], want) {
			t.Fatalf("step %d: %q, want %s", i, steps, want)
		}
	}
	// The page followed the job, so it saw the runner that garrison made for it; whether
	// it caught the runner in its short idle moment depends on timing.
	for _, i := range []int{0, 1, 3, 4} {
		if !contains(steps[i], "tl-done") || !contains(steps[i], ", done") {
			t.Errorf("step %q not done with a time", steps[i])
		}
	}
	if !contains(steps[2], "tl-done") && !contains(steps[2], "tl-skipped") {
		t.Errorf("runner idle step %q neither done nor marked not recorded", steps[2])
	}
	if !contains(steps[4], "Conclusion: success") {
		t.Errorf("completed step %q lacks the conclusion", steps[4])
	}
	b.shot("09-job-completed")
	e.page("/ui/pools/"+poolID, "acme/app · small")
}

// jobSeq waits until garrison recorded the forge's job and returns garrison's job id.
func (e *uiEnv) jobSeq(t *testing.T, forgeID int64) int64 {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		jobs, err := e.API.ListJobs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if j.WorkflowJobID == forgeID {
				return j.ID
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("garrison never recorded job %d", forgeID)
	return 0
}

// tourPages visits the other pages and checks each.
func (e *uiEnv) tourPages(t *testing.T, poolID string) {
	t.Helper()
	b := e.b
	e.page("/ui/", "Dashboard")
	b.waitJS("the job on the queue-time chart", `document.querySelectorAll('svg.chart circle.dot').length >= 1`)
	b.checkA11y("dashboard")
	b.shot("10-dashboard")
	for _, p := range []struct{ path, heading, shot string }{
		{"/ui/jobs", "Jobs", "11-jobs"},
		{"/ui/runners", "Runners", "12-runners"},
		{"/ui/pools", "Pools", "13-pools"},
		{"/ui/entities", "Entities", "14-entities"},
		{"/ui/templates", "Runner install templates", "15-templates"},
		{"/ui/scalesets", "Scale sets", "15-scalesets"},
	} {
		e.page(p.path, p.heading)
		b.waitJS("the page's content", `!document.querySelector('main .loading')`)
		b.checkA11y(p.path)
		b.shot(p.shot)
	}

	// Live events: a change made elsewhere shows up, from the event stream or polling.
	e.page("/ui/events", "Live events")
	time.Sleep(4 * time.Second) // the first poll only takes the baseline
	maxRunners := uint(3)
	if _, err := e.API.UpdatePool(t.Context(), poolID, apiv1.UpdatePoolParams{MaxRunners: &maxRunners}); err != nil {
		t.Fatal(err)
	}
	b.waitJS("the pool update event", `[...document.querySelectorAll('main tbody tr')].some((r) => r.textContent.includes('pool') && r.textContent.includes('update'))`)
	b.checkA11y("/ui/events")
	b.shot("16-events")
	// The templates page lists the system templates, and its editor saves a user template.
	b.run("reading the templates page", chromedp.Navigate(e.URL+"/ui/templates"))
	b.waitJS("the templates table", `!!document.querySelector('main table')`)
	text := eval[string](b, `document.querySelector('main').textContent`)
	if contains(text, "Could not load") {
		t.Errorf("templates page shows an error: %s", text)
	}
	editTemplate(t, b, e)

	// Keyboard: the first Tab reaches the skip link; a navigation puts the focus on the
	// new page's heading.
	b.run("tabbing", chromedp.Navigate(e.URL+"/ui/jobs"))
	b.waitHeading("Jobs")
	b.run("pressing Tab", chromedp.KeyEvent("\t"))
	if focused := eval[string](b, `document.activeElement.className`); focused != "skip-link" {
		t.Errorf("first Tab focuses %q, want the skip link", focused)
	}
	b.clickText(`#nav a`, "Pools")
	b.waitHeading("Pools")
	if focused := eval[string](b, `document.activeElement.tagName`); focused != "H1" {
		t.Errorf("after navigating, the focus is on %s, want the page's h1", focused)
	}
}

// phone checks the layout on a phone-sized screen: the navigation folds behind a menu
// button that opens it.
func (e *uiEnv) phone(t *testing.T, poolID string) {
	t.Helper()
	b := e.b
	b.run("emulating a phone", chromedp.Emulate(device.IPhone13), chromedp.Navigate(e.URL+"/ui/"))
	b.waitHeading("Dashboard")
	if eval[bool](b, `!!document.querySelector('#nav').offsetHeight`) {
		t.Error("the navigation is shown on a phone before the menu is opened")
	}
	b.checkA11y("dashboard (phone)")
	b.shot("17-phone-dashboard")
	b.click(`#nav-toggle`)
	b.waitJS("the menu", `document.querySelector('#nav').offsetHeight > 0 && document.activeElement.closest('#nav') !== null`)
	b.shot("18-phone-menu")
	for _, p := range []struct{ path, heading string }{
		{"/ui/", "Dashboard"}, {"/ui/pools/" + poolID, "acme/app · small"}, {"/ui/jobs", "Jobs"}, {"/ui/pools/new", "New pool"},
	} {
		e.page(p.path, p.heading)
		b.waitJS("the page's content", `!document.querySelector('main .loading')`)
		// Wide tables scroll inside their own region; nothing else may stick out.
		wide := eval[[]string](b, `[...document.querySelectorAll('body *')].filter((el) => !el.closest('.table-wrap')
			&& el.getBoundingClientRect().right > window.innerWidth + 1).map((el) => el.tagName + '.' + el.className).slice(0, 5)`)
		if len(wide) > 0 {
			t.Errorf("%s sticks out sideways on a phone: %q", p.path, wide)
		}
	}
	b.run("reset", chromedp.EmulateReset(), chromedp.EmulateViewport(1280, 900))
}

// dark checks the pages in the dark colour scheme, whose contrast is its own.
func (e *uiEnv) dark(t *testing.T, poolID string) {
	t.Helper()
	b := e.b
	setScheme := func(v string) {
		ctx, cancel := context.WithTimeout(b.ctx, waitLimit)
		defer cancel()
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}}); err != nil {
			t.Fatalf("emulating prefers-color-scheme %s: %v", v, err)
		}
	}
	setScheme("dark")
	defer setScheme("")
	for _, p := range []struct{ path, heading, shot string }{
		{"/ui/", "Dashboard", "19-dark-dashboard"},
		{"/ui/pools/" + poolID, "acme/app · small", "20-dark-pool"},
		{"/ui/jobs", "Jobs", "21-dark-jobs"},
	} {
		e.page(p.path, p.heading)
		b.waitJS("the page's content", `!document.querySelector('main .loading')`)
		b.checkA11y(p.path + " (dark)")
		b.shot(p.shot)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// editTemplate creates a user template in the web UI's editor: a template that does not
// parse is refused with its line, a good one is saved and the server has its script.
func editTemplate(t *testing.T, b *browser, e *uiEnv) {
	t.Helper()
	b.run("opening the template editor", chromedp.Navigate(e.URL+"/ui/templates/new"))
	b.fill(`main [name="name"]`, "ui-template")
	b.fill(`main [name="description"]`, "made in the web UI")
	b.fill(`main [name="data"]`, "#!/bin/bash\necho {{ .RunnerName }\n")
	b.click(`main button[type="submit"]`)
	b.waitJS("the refusal", `(() => { const n = document.querySelector('main [role="alert"]'); return !!n && !n.hidden && n.textContent.includes('line 2'); })()`)
	const script = "#!/bin/bash\necho {{ .RunnerName }}\n"
	b.fill(`main [name="data"]`, script)
	b.click(`main button[type="submit"]`)
	b.waitHeading("Template ui-template")
	ts, err := e.API.ListTemplatesFull(t.Context(), apiclient.TemplateFilter{PartialName: "ui-template"})
	if err != nil || len(ts) != 1 {
		t.Fatalf("templates named ui-template: %v %v", ts, err)
	}
	saved, err := e.API.GetTemplate(t.Context(), ts[0].ID) // lists leave the script out
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(string(saved.Data), "\r\n", "\n"); got != script || saved.Description != "made in the web UI" {
		t.Errorf("saved template %q (%q), want %q", got, saved.Description, script)
	}
	b.shot("17-template-editor")
}
