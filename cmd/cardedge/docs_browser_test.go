package main_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/edge"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestDocs_Browser opens the API reference page (GET /api/v3/docs: the
// OpenAPI document rendered by the Redoc bundle embedded in the binary) in
// headless Chromium on an edge of its own, and checks that it renders with
// nothing fetched from another host, no Content-Security-Policy violation
// and no script error, and that it lists every public route of the document
// (its summary in the menu, its method and path on the page). A screenshot
// goes to var/screenshots/docs/ (git-ignored).
func TestDocs_Browser(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("skipped: Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
	}
	start := time.Now()
	e := mustTestEdge(t, env.root, edge.Options{}, nil) // its own Playground limiter: the page fetches the document keyless
	base := "http://" + e.addr
	shots := filepath.Join("..", "..", "var", "screenshots", "docs")
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
	var mu sync.Mutex
	var requests, problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, ev.Request.URL)
		case *log.EventEntryAdded: // CSP violations are logged here
			if ev.Entry.Level == log.EntryLevelError || strings.Contains(ev.Entry.Text, "Content Security Policy") {
				problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			desc := ""
			if d.Exception != nil {
				desc = d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception: %s %s (%s:%d)", d.Text, desc, d.URL, d.LineNumber))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == "error" || ev.Type == "warning" {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, "console.error: "+strings.Join(args, " "))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, ctx: ctx, base: base, shots: shots}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	b.open(edge.DocsPath)
	// Redoc parses the document and renders every operation before the
	// title shows: seconds, more on a loaded machine.
	ctxRender, cancelRender := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelRender()
	if err := chromedp.Do(ctxRender, chromedp.WaitVisible("heading title", byRole("heading", "cardedge market data API (0.3.0)"))); err != nil {
		t.Fatalf("the reference did not render: %v", err)
	}
	t.Logf("rendered in %s", time.Since(start).Round(100*time.Millisecond))
	shootViewport(b, "reference", 1280, 800, false)
	shootViewport(b, "reference", 390, 844, true)

	// Every public route: under its tag in the menu (a person opens each
	// tag), by its summary; and its method and path on the page (Redoc
	// shows them above each operation's samples).
	doc := env.doc.Raw()
	byTag := map[string][]string{}
	n := 0
	for p, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			o := op.(map[string]any)
			tag := o["tags"].([]any)[0].(string)
			byTag[tag] = append(byTag[tag], strings.ToUpper(m)+" "+p+"\t"+o["summary"].(string))
			n++
		}
	}
	if n < 25 {
		t.Fatalf("the document has only %d operations", n)
	}
	text := b.eval(`document.body.innerText`).(string)
	for _, tg := range doc["tags"].([]any) {
		tag := tg.(map[string]any)["name"].(string)
		ops := byTag[tag]
		if len(ops) == 0 {
			t.Errorf("tag %s has no operation", tag)
			continue
		}
		sort.Strings(ops)
		b.click("menuitem", tag)
		for _, op := range ops {
			route, summary, _ := strings.Cut(op, "\t")
			_, path, _ := strings.Cut(route, " ")
			b.see("menuitem", summary)
			if !strings.Contains(text, path) {
				t.Errorf("the page does not show the path of %s", route)
			}
		}
		delete(byTag, tag)
	}
	for tag := range byTag {
		t.Errorf("operations of tag %s, which the document does not list", tag)
	}
	// Open one operation as a person would, from the menu: its recorded
	// example is the sample response.
	b.click("menuitem", "Cards")
	b.click("menuitem", "Card detail")
	b.seeText(`"en:base1-4"`)
	shootViewport(b, "card-detail", 1280, 800, false)
	shootViewport(b, "card-detail", 390, 844, true)

	mu.Lock()
	defer mu.Unlock()
	for _, r := range requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "blob" && u.Scheme != "data" && u.Host != e.addr) {
			t.Errorf("the page fetched %s (another host)", r)
		}
	}
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	t.Logf("docs page: %d requests, %d operations found; took %v; screenshots in %s", len(requests), n, time.Since(start).Round(100*time.Millisecond), shots)
}

// shootViewport saves a screenshot of what the page shows at one viewport
// size (the whole reference page is many screens long).
func shootViewport(b *browser, name string, w, h int64, mobile bool) {
	b.t.Helper()
	b.n++
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	b.run("viewport", chromedp.EmulateViewport(w, h, opts...), chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s-%dx%d.png", b.n, name, w, h)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.run("viewport", chromedp.EmulateViewport(1280, 800))
}
