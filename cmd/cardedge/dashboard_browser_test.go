package main_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The dashboard in a real browser: the cardedge binary serving a fresh state
// file, driven by headless Chromium (Debian's chromium package) through
// chromedp. Elements are found by their role and accessible name, as a person
// (or a screen reader) finds them. Screenshots of every page at 1280x800 and
// 390x844 go to var/screenshots/dashboard/ (git-ignored); at 390 px no page
// may scroll sideways.

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

// shoot saves screenshots of the page at 1280x800 and at 390x844 (mobile),
// and fails when the page scrolls sideways at 390 px.
func (b *browser) shoot(name string) {
	b.t.Helper()
	b.n++
	for _, v := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 800, false}, {390, 844, true}} {
		opts := []chromedp.EmulateViewportOption{}
		if v.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		b.run("viewport", chromedp.EmulateViewport(v.w, v.h, opts...))
		if b.prepare != nil {
			b.prepare()
		}
		if v.mobile {
			if over := b.eval(`document.documentElement.scrollWidth - document.documentElement.clientWidth`); over.(float64) > 0 {
				b.t.Errorf("%s scrolls sideways by %v px at 390 px", name, over)
				b.t.Logf("what overflows:\n%v", b.eval(`Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > 391).slice(0, 12).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right) + " " + (e.textContent||"").slice(0,40)).join("\n")`))
			}
		}
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			b.t.Fatal(err)
		}
		file := filepath.Join(b.shots, fmt.Sprintf("%02d-%s-%dx%d.png", b.n, name, v.w, v.h))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
		// The whole page too, to review what lies below the fold.
		if png, err = chromedp.Run(b.ctx, chromedp.FullScreenshot(100)); err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(file, ".png")+"-full.png", png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run("viewport", chromedp.EmulateViewport(1280, 800))
}

var secretInText = regexp.MustCompile(`ce_f_[A-Za-z0-9_-]{43}`)

// secret reads the secret shown once in the region named title.
func (b *browser) secret(title string) string {
	b.t.Helper()
	m := secretInText.FindString(b.text("region", title))
	if m == "" {
		b.t.Fatalf("no secret in the region %q", title)
	}
	return m
}

func statusOf(t *testing.T, base, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v3/cards?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Service-Tier")
}

// eventually waits until key's call answers want (key changes reach the key
// table within a second), and returns the X-Service-Tier of that answer.
func eventually(t *testing.T, base, key string, want int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, tier := statusOf(t, base, key)
		if got == want {
			return tier
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /api/v3/cards?limit=1: %d, want %d", got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDashboard_Browser(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("skipped: Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
	}
	start := time.Now()
	bin := buildEdgeBinary(t)
	edge := startEdgeProcess(t, bin, filepath.Join(t.TempDir(), "state.bolt"), "")
	shots := filepath.Join("..", "..", "var", "screenshots", "dashboard")
	os.RemoveAll(shots)
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1280, 800), chromedp.Flag("disable-gpu", true))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	var dialogs atomic.Int32 // alert() and friends: no script of ours opens one
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, ctx: ctx, base: edge.base, shots: shots}
	const email, password = "ada@example.com", "a long and unusual passphrase"

	// Sign up.
	b.open("/dashboard/signup")
	b.see("heading", "Sign up")
	b.shoot("signup")
	b.fill("Email", email)
	b.fill("Password", password)
	b.click("button", "Sign up")
	b.see("heading", "API keys")
	b.shoot("keys-empty")

	// Sign out and sign in.
	b.click("button", "Sign out")
	b.see("heading", "Sign in")
	b.fill("Email", email)
	b.fill("Password", password)
	b.shoot("signin")
	b.click("button", "Sign in")
	b.see("heading", "API keys")

	// Create a key: its secret is shown once, with a copy button (app.js
	// ran under the CSP), and is gone after a reload.
	b.fill("Name", "price-bot")
	b.choose("Expires after", "90")
	b.click("button", "Create key")
	secret1 := b.secret("Key “price-bot” created")
	b.see("button", "Copy")
	b.shoot("keys-new-secret")
	b.run("reload", chromedp.Reload())
	b.see("heading", "Your keys")
	if html := b.eval(`document.body.innerText`).(string); strings.Contains(html, secret1) || strings.Contains(html, "is shown only once") {
		t.Fatal("the secret is still shown after a reload")
	}

	// Call the API with it (once it is loaded: an unknown key's 401s are
	// counted nowhere).
	if tier := eventually(t, edge.base, secret1, 200); tier != "free" {
		t.Fatalf("GET /api/v3/cards?limit=1: X-Service-Tier %q", tier)
	}

	// See the call on the usage page.
	b.click("link", "Usage")
	b.see("heading", "Usage")
	if got := b.text("heading", "Calls per day"); got == "" {
		t.Fatal("no chart heading")
	}
	body := b.eval(`document.body.innerText`).(string)
	if !strings.Contains(body, "1 call and 0 refused") || !strings.Contains(body, "99 of 100 left (1 used)") {
		t.Fatalf("the usage page does not show the call:\n%s", body)
	}
	if n := b.eval(`document.querySelectorAll("svg.chart-svg rect.bar-calls").length`).(float64); n != 1 {
		t.Fatalf("the chart has %v bars of calls, want 1", n)
	}
	b.shoot("usage")

	// Roll with a grace of one hour: old and new keys both work.
	b.click("link", "Keys")
	b.see("heading", "API keys")
	b.click("link", "Roll price-bot")
	b.see("heading", "Roll key “price-bot”")
	b.click("radio", "1 hour")
	b.shoot("roll")
	b.click("button", "Roll")
	secret2 := b.secret("Key “price-bot” rolled")
	b.shoot("keys-rolled")
	eventually(t, edge.base, secret2, 200)
	if status, _ := statusOf(t, edge.base, secret1); status != 200 {
		t.Fatalf("the old key within its grace: %d", status)
	}

	// Roll at once: the old key is refused.
	b.run("reload", chromedp.Navigate(edge.base+"/dashboard/keys"))
	b.click("link", "Roll price-bot")
	b.see("heading", "Roll key “price-bot”")
	b.click("radio", "No time: the old key stops working now")
	b.click("button", "Roll")
	secret3 := b.secret("Key “price-bot” rolled")
	eventually(t, edge.base, secret3, 200)
	eventually(t, edge.base, secret2, 401)

	// Revoke (after a confirmation page): refused.
	b.run("reload", chromedp.Navigate(edge.base+"/dashboard/keys"))
	b.click("link", "Revoke price-bot") // the newest key comes first
	b.see("heading", "Revoke key “price-bot”?")
	b.shoot("revoke")
	b.click("button", "Revoke")
	b.seeText("Key revoked. Calls with it are refused within a second.")
	eventually(t, edge.base, secret3, 401)

	// A key whose name is markup shows it as text, and no script runs.
	const evil = `<img src=x onerror=alert(1)>`
	b.fill("Name", evil)
	b.click("button", "Create key")
	b.see("region", "Key “"+evil+"” created")
	b.run("settle", chromedp.Sleep(300*time.Millisecond))
	if n := b.eval(`document.querySelectorAll("img").length`).(float64); n != 0 {
		t.Fatalf("the page has %v img elements", n)
	}
	if got := b.eval(`document.querySelector("tbody th").firstChild.textContent`).(string); got != evil {
		t.Fatalf("the newest key's name reads %q, want %q", got, evil)
	}
	if n := dialogs.Load(); n != 0 {
		t.Fatalf("%d dialogs opened: a script ran", n)
	}
	b.shoot("keys-after-revoke")

	// The account page: the audit log.
	b.click("link", "Account")
	b.see("heading", "Account")
	body = b.eval(`document.body.innerText`).(string)
	for _, want := range []string{"Account created", "Signed in", "Key created", "Key rolled", "Key revoked", "127.0.0.1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the account page lacks %q", want)
		}
	}
	b.shoot("account")

	// Sign out: the dashboard asks to sign in again.
	b.click("button", "Sign out")
	b.seeText("You are signed out.")
	b.shoot("signed-out")
	b.open("/dashboard/keys")
	b.see("heading", "Sign in")
	if n := dialogs.Load(); n != 0 {
		t.Fatalf("%d dialogs opened", n)
	}
	t.Logf("browser test took %v (binary build included); screenshots in %s", time.Since(start).Round(100*time.Millisecond), shots)
}
