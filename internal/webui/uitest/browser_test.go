package uitest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Environment of the browser tests.
const (
	// enableEnv runs the browser tests; without it they skip.
	enableEnv = "GARRISON_UI_TEST"
	// chromiumEnv names the browser binary (default /usr/bin/chromium, Debian's package).
	chromiumEnv = "GARRISON_CHROMIUM"
	// artifactsEnv names the screenshot directory (default <repository>/artifacts/ui).
	artifactsEnv = "GARRISON_UI_ARTIFACTS"
)

// waitLimit bounds every wait for the page: generous, as the tests assert what the page
// shows, never how fast.
const waitLimit = 90 * time.Second

// requireBrowserTests skips unless the browser tests were asked for. Once asked for, a
// missing browser is a failure, not a skip: CI must not pass without running them.
func requireBrowserTests(t *testing.T) string {
	t.Helper()
	if os.Getenv(enableEnv) != "1" {
		t.Skipf("browser test: set %s=1 (scripts/ensure-chromium.sh installs Chromium)", enableEnv)
	}
	bin := os.Getenv(chromiumEnv)
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s=1 but no browser at %s (run scripts/ensure-chromium.sh): %v", enableEnv, bin, err)
	}
	return bin
}

// browser is one headless Chromium with one tab, and what the page reported that a test
// must not ignore: uncaught exceptions, console errors and refusals by the
// Content-Security-Policy.
type browser struct {
	t   *testing.T
	ctx context.Context
	dir string // screenshots

	mu       sync.Mutex // guards problems
	problems []string
}

// newBrowser starts Chromium with the flags this machine needs (no sandbox as root, no
// GPU, no network beyond the page's own origin) and a fresh profile.
func newBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	b := &browser{t: t, dir: artifactsDir(t)}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf), chromedp.WithListener(b.watch))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Logf("screenshots: %s", b.dir)
	return b
}

// watch records what the page must not do.
func (b *browser) watch(ev any) {
	var p string
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		p = "uncaught exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			p += " " + e.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p = "console.error: " + strings.Join(args, " ")
		}
	case *log.EventEntryAdded:
		// Failed requests (the 404 of a route this server lacks) are expected and the UI
		// handles them; security refusals and script errors are bugs.
		if e.Entry.Source == log.EntrySourceSecurity || e.Entry.Source == log.EntrySourceJavascript {
			p = fmt.Sprintf("%s: %s", e.Entry.Source, e.Entry.Text)
		}
	}
	if p != "" {
		b.mu.Lock()
		b.problems = append(b.problems, p)
		b.mu.Unlock()
	}
}

// checkProblems fails the test for everything the page reported so far.
func (b *browser) checkProblems() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("the page reported %s", p)
	}
	b.problems = nil
}

// run runs actions with the wait limit.
func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLimit)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot("failed-" + safeName(what))
		b.t.Fatalf("%s: %v", what, err)
	}
}

// waitJS waits until the JavaScript expression is true.
func (b *browser) waitJS(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLimit+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(waitLimit)))
	if err != nil {
		b.shot("failed-" + safeName(what))
		b.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// eval evaluates expr and returns its value.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitHeading waits for the page's h1 to contain text.
func (b *browser) waitHeading(text string) {
	b.t.Helper()
	b.waitJS("heading "+text, fmt.Sprintf(`(() => { const h = document.querySelector('main h1'); return !!h && h.textContent.includes(%q); })()`, text))
}

// fill types value into the control matched by sel (cleared first).
func (b *browser) fill(sel, value string) {
	b.t.Helper()
	css := chromedp.CSS(sel)
	b.run("waiting for "+sel, chromedp.WaitVisible(css))
	eval[bool](b, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = ''; return true; })()`, sel))
	b.run("typing into "+sel, chromedp.SendKeys(css, value))
}

// choose selects value in the select matched by sel and fires its change event.
func (b *browser) choose(sel, value string) {
	b.t.Helper()
	b.run("waiting for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	ok := eval[bool](b, fmt.Sprintf(`(() => {
		const s = document.querySelector(%q);
		if (![...s.options].some((o) => o.value === %q)) return false;
		s.value = %q; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, sel, value, value))
	if !ok {
		b.t.Fatalf("%s has no option %q", sel, value)
	}
}

// click clicks the first element matched by sel.
func (b *browser) click(sel string) {
	b.t.Helper()
	css := chromedp.CSS(sel)
	b.run("clicking "+sel, chromedp.WaitVisible(css), chromedp.Click(css))
}

// clickText clicks the first element matched by sel whose text contains text.
func (b *browser) clickText(sel, text string) {
	b.t.Helper()
	b.waitJS(sel+" "+text, fmt.Sprintf(`[...document.querySelectorAll(%q)].some((e) => e.textContent.includes(%q))`, sel, text))
	eval[bool](b, fmt.Sprintf(`(() => { const e = [...document.querySelectorAll(%q)].find((e) => e.textContent.includes(%q)); e.click(); return true; })()`, sel, text))
}

// shot saves a full-page screenshot as <dir>/<name>.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitLimit)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		b.t.Errorf("writing %s: %v", p, err)
	}
}

// artifactsDir is where screenshots go: $GARRISON_UI_ARTIFACTS, else artifacts/ui at the
// repository's root (CI keeps it; git ignores it).
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(artifactsEnv)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "artifacts", "ui")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// repoRoot finds the directory holding go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))[:min(len(s), 60)]
}
