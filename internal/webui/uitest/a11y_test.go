package uitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// a11yCheck runs in the page and lists what a keyboard or screen-reader user would trip
// over: controls without a label, buttons and links without a name, not exactly one
// visible h1, a missing main landmark or lang, tables without scoped headers, broken
// aria references, duplicate ids, and text whose contrast against its background is
// below WCAG AA (4.5:1, or 3:1 for large text).
const a11yCheck = `(() => {
  const out = [];
  const vis = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const ref = (el, attr) => (el.getAttribute(attr) || '').split(' ').filter(Boolean)
    .map((id) => (document.getElementById(id) || {}).textContent || '').join(' ');
  const name = (el) => (el.getAttribute('aria-label') || ref(el, 'aria-labelledby') || el.textContent
    || el.getAttribute('title') || '').trim();
  document.querySelectorAll('input, select, textarea').forEach((el) => {
    if (el.type === 'hidden' || !vis(el)) return;
    if (!(el.labels && el.labels.length) && !el.getAttribute('aria-label')) out.push('unlabelled ' + el.tagName.toLowerCase() + ' ' + el.name);
  });
  document.querySelectorAll('button, a[href]').forEach((el) => {
    if (vis(el) && !name(el)) out.push(el.tagName.toLowerCase() + ' without a name: ' + el.outerHTML.slice(0, 80));
  });
  const h1 = [...document.querySelectorAll('h1')].filter(vis);
  if (h1.length !== 1) out.push(h1.length + ' visible h1');
  if (!document.querySelector('main')) out.push('no main landmark');
  if (!document.documentElement.lang) out.push('no lang on html');
  document.querySelectorAll('img').forEach((el) => { if (!el.hasAttribute('alt')) out.push('img without alt'); });
  document.querySelectorAll('thead th').forEach((el) => { if (el.getAttribute('scope') !== 'col') out.push('column header without scope'); });
  document.querySelectorAll('[aria-describedby], [aria-labelledby], [aria-controls]').forEach((el) => {
    for (const attr of ['aria-describedby', 'aria-labelledby', 'aria-controls']) {
      (el.getAttribute(attr) || '').split(' ').filter(Boolean).forEach((id) => {
        if (!document.getElementById(id)) out.push(attr + ' names a missing #' + id);
      });
    }
  });
  const ids = new Set();
  document.querySelectorAll('[id]').forEach((el) => { if (ids.has(el.id)) out.push('duplicate id ' + el.id); ids.add(el.id); });

  const rgba = (s) => { const m = s.match(/[\d.]+/g) || []; return m.map(Number).concat([1]).slice(0, 4); };
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bg = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return rgba(getComputedStyle(document.body).backgroundColor);
  };
  document.querySelectorAll('body *').forEach((el) => {
    if (!vis(el) || el.closest('svg') || el.closest('.visually-hidden')) return;
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
    if (!text) return;
    const cs = getComputedStyle(el);
    if (parseFloat(cs.opacity) < 1 || el.closest('[disabled]') || el.matches(':disabled')) return;
    const fg = rgba(cs.color); const b = bg(el);
    const l1 = lum(fg); const l2 = lum(b);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(cs.fontSize); const bold = parseInt(cs.fontWeight, 10) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) out.push('contrast ' + ratio.toFixed(2) + ' < ' + need + ' for "' + text.slice(0, 40) + '"');
  });
  return out;
})()`

// checkA11y fails the test for every problem a11yCheck finds on the current page.
func (b *browser) checkA11y(page string) {
	b.t.Helper()
	for _, p := range eval[[]string](b, a11yCheck) {
		b.t.Errorf("%s: accessibility: %s", page, p)
	}
}

// TestA11yCheckFindsProblems runs the checker on a page with one of each problem, so a
// clean result on the UI's pages means something.
func TestA11yCheckFindsProblems(t *testing.T) {
	bin := requireBrowserTests(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><body><main>
<input name="nolabel"><button></button><a href="/x"></a>
<p id="dup">one</p><p id="dup">two</p>
<p style="color:#aaa;background:#fff">faint text</p>
<table><thead><tr><th>no scope</th></tr></thead></table>
<div aria-describedby="missing">x</div>
</main></body></html>`))
	}))
	defer srv.Close()
	b := newBrowser(t, bin)
	b.run("opening the bad page", chromedp.Navigate(srv.URL))
	got := strings.Join(eval[[]string](b, a11yCheck), "\n")
	for _, want := range []string{"unlabelled input nolabel", "button without a name", "a without a name", "0 visible h1",
		"no lang", "duplicate id dup", "contrast", "column header without scope", "aria-describedby names a missing #missing"} {
		if !strings.Contains(got, want) {
			t.Errorf("the checker missed %q; it found:\n%s", want, got)
		}
	}
}
