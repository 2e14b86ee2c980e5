package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The one Chromium helper of the browser suites (dashboard, market, chat,
// docs): headless Chromium (Debian's chromium package) driven through
// chromedp, one tab at 1280x800. Elements are found by their role and
// accessible name, as a person (or a screen reader) finds them. Everything
// the tab does is watched: JavaScript dialogs (accepted and counted),
// Content-Security-Policy violations and other errors the browser logs,
// script exceptions, console errors and warnings, and every request.
// Screenshots go to var/screenshots/<suite>/ (git-ignored), emptied when
// the suite starts.

// findChromium returns the path of a Chromium or Chrome binary, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser drives one tab.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string
	n     int // screenshots taken, for their order
	// prepare, when set, runs after shoot sets each viewport, before the
	// screenshot (the chat scrolls to its newest message).
	prepare func()
	seen    *seen
}

// seen is what the tab did that a page of ours must not do, and the
// requests it made.
type seen struct {
	mu         sync.Mutex
	dialogs    int
	csp        []string // Content-Security-Policy violations
	exceptions []string // uncaught script exceptions
	logErrors  []string // other errors the browser logged (a 404 the test asked for is one)
	console    []string // console.error and console.warn
	requests   []string // URLs requested
}

// startBrowser starts Chromium with one tab on base (skipping t when no
// Chromium is installed) and empties var/screenshots/<suite>/; the browser
// ends with t.
func startBrowser(t *testing.T, suite, base string) *browser {
	t.Helper()
	chromium := findChromium()
	if chromium == "" {
		t.Skip("skipped: Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
	}
	shots := filepath.Join(e2etest.RepoRoot(), "var", "screenshots", suite)
	os.RemoveAll(shots)
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1280, 800), chromedp.Flag("disable-gpu", true))...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	b := &browser{t: t, ctx: ctx, base: base, shots: shots, seen: &seen{}}
	if err := chromedp.Listen(ctx, b.seen.record(ctx)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return b
}

// record returns the listener of the tab's events.
func (s *seen) record(ctx context.Context) func(ev any) {
	return func(ev any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening: // no script of ours opens one
			s.dialogs++
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		case *network.EventRequestWillBeSent:
			s.requests = append(s.requests, ev.Request.URL)
		case *log.EventEntryAdded:
			entry := fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			if strings.Contains(ev.Entry.Text, "Content Security Policy") {
				s.csp = append(s.csp, entry)
			} else if ev.Entry.Level == log.EntryLevelError {
				s.logErrors = append(s.logErrors, entry)
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			desc := ""
			if d.Exception != nil {
				desc = d.Exception.Description
			}
			s.exceptions = append(s.exceptions, fmt.Sprintf("exception: %s %s (%s:%d)", d.Text, desc, d.URL, d.LineNumber))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == "error" || ev.Type == "warning" {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				s.console = append(s.console, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		}
	}
}

// problems lists what no page of ours may do: open a dialog, violate its
// Content-Security-Policy, throw; with strict, also log an error or write
// to the console as errors and warnings.
func (b *browser) problems(strict bool) []string {
	s := b.seen
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	if s.dialogs > 0 {
		out = append(out, fmt.Sprintf("%d dialogs opened: a script ran", s.dialogs))
	}
	out = append(append(out, s.csp...), s.exceptions...)
	if strict {
		out = append(append(out, s.logErrors...), s.console...)
	}
	return out
}

// requests lists the URLs the tab requested so far.
func (b *browser) requests() []string {
	b.seen.mu.Lock()
	defer b.seen.mu.Unlock()
	return append([]string(nil), b.seen.requests...)
}

// byRole selects the first element whose ARIA role and accessible name are
// role and name (Accessibility.queryAXTree); the query waits until there is
// one.
func byRole(role, name string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, t *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		res, err := cdp.Call(ctx, t, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{NodeID: n.NodeID, Role: role, AccessibleName: name})
		if err != nil {
			return nil, err
		}
		for _, ax := range res.Nodes {
			if ax.Ignored || ax.BackendDOMNodeID == 0 {
				continue
			}
			pushed, err := cdp.Call(ctx, t, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: []cdp.BackendNodeID{ax.BackendDOMNodeID}})
			if err != nil || len(pushed.NodeIDs) == 0 || pushed.NodeIDs[0] == 0 {
				return nil, err
			}
			return pushed.NodeIDs[:1], nil
		}
		return nil, nil
	})
}

// run runs actions with a time limit.
func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		loc, _ := chromedp.Run(b.ctx, chromedp.Location())
		b.t.Fatalf("%s (at %s): %v", what, loc, err)
	}
}

func (b *browser) open(path string) {
	b.t.Helper()
	b.run("open "+path, chromedp.Navigate(b.base+path))
}

// fill types text into the text box labelled label.
func (b *browser) fill(label, text string) {
	b.t.Helper()
	sel := "textbox " + label
	b.run("fill "+label, chromedp.Clear(sel, byRole("textbox", label)), chromedp.SendKeys(sel, text, byRole("textbox", label)))
}

// typeInto types text into the element of role and name, key by key.
func (b *browser) typeInto(role, name, text string) {
	b.t.Helper()
	b.run("type into "+name, chromedp.SendKeys(role+" "+name, text, byRole(role, name)))
}

func (b *browser) click(role, name string) {
	b.t.Helper()
	b.run("click "+role+" "+name, chromedp.Click(role+" "+name, byRole(role, name)))
}

// choose selects the option of value in the list box labelled label.
func (b *browser) choose(label, value string) {
	b.t.Helper()
	b.run("choose "+label, chromedp.SetValue("combobox "+label, value, byRole("combobox", label)))
}

// see waits for an element of role and name (a page's heading: the page has
// loaded).
func (b *browser) see(role, name string) {
	b.t.Helper()
	b.run("see "+role+" "+name, chromedp.WaitVisible(role+" "+name, byRole(role, name)))
}

// seeText waits until the page says text (a notice: role status, whose name
// is not its text).
func (b *browser) seeText(text string) {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.eval(`document.body ? document.body.innerText : ""`).(string), text) {
		if time.Now().After(deadline) {
			b.t.Fatalf("the page does not say %q", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// text returns the text of the element of role and name.
func (b *browser) text(role, name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(role+" "+name, byRole(role, name)))
	if err != nil {
		b.t.Fatalf("text of %s %s: %v", role, name, err)
	}
	return s
}

func (b *browser) eval(js string) any {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// evalAwait evaluates js, a promise of a string, and returns the string.
func (b *browser) evalAwait(js string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// viewports are the sizes shoot takes each page at: a laptop and a phone.
var viewports = []struct {
	w, h   int64
	mobile bool
}{{1280, 800, false}, {390, 844, true}}

// shoot saves screenshots of the page at each viewport, what shows and the
// whole page (to review what lies below the fold), and fails when the page
// scrolls sideways at 390 px.
func (b *browser) shoot(name string) {
	b.t.Helper()
	b.n++
	for _, v := range viewports {
		file := b.capture(name, v.w, v.h, v.mobile, 0)
		if v.mobile {
			if over := b.eval(`document.documentElement.scrollWidth - document.documentElement.clientWidth`); over.(float64) > 0 {
				b.t.Errorf("%s scrolls sideways by %v px at 390 px", name, over)
				b.t.Logf("what overflows:\n%v", b.eval(`Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > 391).slice(0, 12).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right) + " " + (e.textContent||"").slice(0,40)).join("\n")`))
			}
		}
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(file, ".png")+"-full.png", png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run("viewport", chromedp.EmulateViewport(1280, 800))
}

// shootViewports saves what the page shows at each viewport only (a page
// many screens long, such as the API reference).
func (b *browser) shootViewports(name string) {
	b.t.Helper()
	b.n++
	for _, v := range viewports {
		b.capture(name, v.w, v.h, v.mobile, 300*time.Millisecond)
	}
	b.run("viewport", chromedp.EmulateViewport(1280, 800))
}

// capture sets the viewport, lets the page settle (for settle, then
// prepare, when set) and saves what shows as NN-name-WxH.png; it returns
// the file's path.
func (b *browser) capture(name string, w, h int64, mobile bool, settle time.Duration) string {
	b.t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	b.run("viewport", chromedp.EmulateViewport(w, h, opts...), chromedp.Sleep(settle))
	if b.prepare != nil {
		b.prepare()
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	file := filepath.Join(b.shots, fmt.Sprintf("%02d-%s-%dx%d.png", b.n, name, w, h))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return file
}

var secretInText = regexp.MustCompile(`ce_[a-z]_[A-Za-z0-9_-]{43}`)

// secret reads the secret shown once in the region named title.
func (b *browser) secret(title string) string {
	b.t.Helper()
	m := secretInText.FindString(b.text("region", title))
	if m == "" {
		b.t.Fatalf("no secret in the region %q", title)
	}
	return m
}
