package e2e_test

import (
	"context"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

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
	start := time.Now()
	e := serveRoot(t, env.root) // its own Playground limiter: the page fetches the document keyless
	base := e.Base
	b := startBrowser(t, "docs", base)
	b.open("/api/v3/docs")
	// Redoc parses the document and renders every operation before the
	// title shows: seconds, more on a loaded machine.
	ctxRender, cancelRender := context.WithTimeout(b.ctx, 2*time.Minute)
	defer cancelRender()
	if err := chromedp.Do(ctxRender, chromedp.WaitVisible("heading title", byRole("heading", "cardedge market data API (0.3.0)"))); err != nil {
		t.Fatalf("the reference did not render: %v", err)
	}
	t.Logf("rendered in %s", time.Since(start).Round(100*time.Millisecond))
	b.shootViewports("reference")

	// Every public route: under its tag in the menu (a person opens each
	// tag), by its summary; and its method and path on the page (Redoc
	// shows them above each operation's samples).
	doc := env.api.Raw
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
	b.shootViewports("card-detail")

	requests := b.requests()
	for _, r := range requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "blob" && u.Scheme != "data" && "http://"+u.Host != e.Base) {
			t.Errorf("the page fetched %s (another host)", r)
		}
	}
	for _, p := range b.problems(true) {
		t.Errorf("%s", p)
	}
	t.Logf("docs page: %d requests, %d operations found; took %v; screenshots in %s", len(requests), n, time.Since(start).Round(100*time.Millisecond), b.shots)
}
