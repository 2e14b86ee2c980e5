package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cardedge/cardedge/e2e/e2etest"
)

// Every page of the dashboard, as a new collector meets it (issue 34): a
// Free and a Pro account, each with data (a collection imported, a key, a
// card with history), open every page the dashboard serves (its GET routes,
// read from package web's source, so that a new page cannot be left out) at
// 1280 and 390 px in headless Chromium, and each page must
//
//   - not scroll sideways: the document no wider than the window, no element
//     wider than the window or past the content column, no element that
//     scrolls sideways itself;
//   - show no empty chart where the account's tier has data (the card with
//     history, the collection, the set);
//   - show no grade as a code (slab:10, raw:near_mint, bgs:9.5) in its text
//     (code examples aside);
//   - show no contradictory flag: a "thin" flag beside high confidence;
//   - at 1280 px, show each card name of the collection on one line (two
//     for a name longer than 24 characters);
//   - write every amount of money one way, to the cent ($25,000.00, not
//     $25,000 beside $1,800.00; a chart's axis and a list's round choices,
//     such as a price floor of $10, aside);
//   - link its footer's "API reference" to the reference page
//     (/api/v3/docs), not the raw document.
//
// Screenshots of each page at each size (what shows, and the whole page) go
// to var/screenshots/pages/ (git-ignored).

// pageRoutes are the GET routes of the dashboard, read from package web's
// source (h.mux.HandleFunc("GET "+Base+"/cards/{id}", ...)), as paths under
// /dashboard ("" for /dashboard itself).
func pageRoutes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(e2etest.RepoRoot(), "web", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`"GET "\s*\+\s*Base(?:\s*\+\s*"([^"]*)")?`)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			seen[m[1]] = true
		}
	}
	routes := slices.Sorted(func(yield func(string) bool) {
		for r := range seen {
			if !yield(r) {
				return
			}
		}
	})
	if len(routes) < 10 {
		t.Fatalf("found only %d GET routes in web/*.go: %v", len(routes), routes)
	}
	return routes
}

// notPages are the GET routes that answer no page, and why the tour skips
// them.
var notPages = map[string]string{
	"/{$}":                   "/dashboard/ redirects as /dashboard does",
	"/lookup":                "the typeahead's JSON",
	"/static/{name}":         "the pages' assets",
	"/collection/export.csv": "a CSV download",
	"/account/export.json":   "the account's data as a JSON download",
}

// tourPage is one page of the tour: the route it shows, its path, a name for
// its screenshots, and whether the account's tier has data for every chart
// on it (then an empty chart fails).
type tourPage struct {
	route, path, name string
	charts            bool
	says              []string // what the page must say (any tier)
}

// tourIDs are the ids of what an account of the tour made: a key, an alert
// rule and a webhook endpoint ("" for none: its page is left out).
type tourIDs struct{ key, alert, webhook string }

// theTour lists the pages a signed-in account visits.
func theTour(ids tourIDs) []tourPage {
	key := ids.key
	tour := []tourPage{
		{"", "", "home", false, nil},
		{"/cards", "/cards", "cards", false, nil},
		{"/cards", "/cards?q=" + urlQuery("set:base rarity:holo"), "cards-results", false, []string{"16 cards for “set:base rarity:holo”"}},
		{"/cards", "/cards?q=" + urlQuery("set:base rarity:holx"), "cards-hints", false,
			[]string{"No card matches “set:base rarity:holx”", "rarity:holx matches none of the cards the rest of the query selects. Try rarity:\"rare holo\""}},
		{"/cards/{id}", "/cards/en:base1-4", "card", true, []string{"Your history window: "}},
		{"/cards/{id}", "/cards/en:base1-4?printing=holo/shadowless/1st-edition&grade=slab:10", "card-graded", true, nil},
		{"/cards/{id}", "/cards/ja:SV2a-201", "card-ja", false, []string{"リザードンex"}},
		{"/cards/{id}", "/cards/zh-cn:CSMPiC-048", "card-zh", false, []string{"超梦GX"}},
		{"/sets/{id}", "/sets/base1", "set", true, nil},
		{"/movers", "/movers", "movers", false, nil},
		{"/collection", "/collection", "collection", true, nil},
		{"/keys", "/keys", "keys", false, nil},
		{"/keys/{id}/roll", "/keys/" + key + "/roll", "key-roll", false, nil},
		{"/keys/{id}/revoke", "/keys/" + key + "/revoke", "key-revoke", false, nil},
		{"/usage", "/usage", "usage", false, nil},
		{"/chat", "/chat", "chat", false, nil},
		{"/apps", "/apps", "apps", false, nil},
		{"/connect", "/connect?request=none", "connect-unknown", false, nil},
		{"/account", "/account", "account", false, nil},
		{"/alerts", "/alerts", "alerts", false, nil},
		{"/webhooks", "/webhooks", "webhooks", false, nil},
	}
	if ids.alert != "" {
		tour = append(tour, tourPage{"/alerts/{id}", "/alerts/" + ids.alert, "alert", false, nil})
	}
	if ids.webhook != "" {
		tour = append(tour, tourPage{"/webhooks/{id}", "/webhooks/" + ids.webhook, "webhook", false, nil})
	}
	return tour
}

// restCall calls a REST route of base with key and a JSON body, and returns
// the answer's data (200 only).
func restCall(t *testing.T, base, key, method, path, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, truncate(raw))
	}
	if d, ok := out["data"].(map[string]any); ok {
		return d
	}
	return out
}

// served keeps the pages of the tour whose route the dashboard serves
// (alerts and webhooks are pages of a branch of their own until it lands).
func served(t *testing.T, tour []tourPage, routes []string) []tourPage {
	var out []tourPage
	for _, p := range tour {
		if slices.Contains(routes, p.route) {
			out = append(out, p)
		} else {
			t.Logf("the dashboard serves no %s%s: not visited", "/dashboard", p.route)
		}
	}
	return out
}

func urlQuery(q string) string { return strings.NewReplacer(" ", "+", ":", "%3A").Replace(q) }

// tourCSV is the collection each account imports: graded and raw copies
// of a card with history, and cards named in Japanese and Chinese.
const tourCSV = "card_id,printing,grade,quantity,price_paid\n" +
	"en:base1-4,,PSA 9,2,450\n" +
	"en:base1-4,holo/shadowless/1st-edition,PSA 10,1,25000\n" +
	"en:base1-4,,,1,180\n" +
	"en:sv3pt5-6,,,3,\n" +
	"ja:SV2a-201,,,1,\n" +
	"zh-cn:CSMPiC-048,,,1,\n" +
	"zh-tw:SV2a-201,,,1,\n"

func TestDashboard_EveryPageBrowser(t *testing.T) {
	start := time.Now()
	state := filepath.Join(t.TempDir(), "state.bolt")
	const password = "a long and unusual passphrase"
	tiers := []string{"free", "pro"}
	for _, tier := range tiers {
		create := exec.Command(env.bin, "accounts", "create", "--state", state, "--email", tier+"@example.com", "--tier", tier, "--password-stdin")
		create.Stdin = strings.NewReader(password + "\n")
		if out, err := create.CombinedOutput(); err != nil {
			t.Fatalf("accounts create: %v\n%s", err, out)
		}
	}
	// Every GET route is visited or said to be no page.
	routes := pageRoutes(t)
	var flags []string
	if slices.Contains(routes, "/webhooks/{id}") {
		flags = append(flags, "--webhooks-allow-private") // the tour's endpoint is on loopback (and never called)
	}
	edge := startEdgeProcess(t, state, "", flags...)
	b := startBrowser(t, "pages", edge.Base)
	checkCJKFont(t)
	visited := map[string]bool{"/signin": true, "/signup": true, "/collection/imports/{id}": true}
	for _, p := range served(t, theTour(tourIDs{"k", "a", "w"}), routes) {
		visited[p.route] = true
	}
	for _, r := range routes {
		if _, ok := notPages[r]; !visited[r] && !ok {
			t.Errorf("the dashboard's page %s%s is not visited by this test: add it to theTour (or to notPages, with why it is no page)", "/dashboard", r)
		}
	}

	// Signed out.
	b.open("/dashboard/signin")
	b.see("heading", "Sign in")
	checkPage(b, tourPage{name: "signin"})
	b.open("/dashboard/signup")
	b.see("heading", "Sign up")
	checkPage(b, tourPage{name: "signup"})

	for _, tier := range tiers {
		t.Run(tier, func(t *testing.T) {
			b := &browser{t: t, ctx: b.ctx, base: b.base, shots: b.shots, n: b.n, seen: b.seen}
			b.open("/dashboard/signin")
			b.fill("Email", tier+"@example.com")
			b.fill("Password", password)
			b.click("button", "Sign in")
			b.see("heading", "API keys")
			b.fill("Name", "reader")
			b.click("button", "Create key")
			secret := b.secret("Key “reader” created")
			ids := tourIDs{key: b.eval(`(document.querySelector("a[href$='/roll']").getAttribute("href").match(/keys\/([^/]+)\/roll/) || [])[1] || ""`).(string)}
			if ids.key == "" {
				t.Fatal("no key id on the keys page")
			}
			eventually(t, edge.Base, secret, 200)
			// An alert rule, and (Pro) a webhook endpoint,
			// made with the account's key, where the dashboard has their pages.
			if slices.Contains(routes, "/alerts/{id}") {
				r := restCall(t, edge.Base, secret, "POST", "/api/v3/me/alerts",
					`{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_below","price_usd":250}`)
				ids.alert, _ = r["id"].(string)
			}
			if slices.Contains(routes, "/webhooks/{id}") && tier == "pro" {
				r := restCall(t, edge.Base, secret, "POST", "/api/v3/me/webhooks", `{"url":"http://127.0.0.1:9/cardedge","description":"my listener"}`)
				if ep, ok := r["endpoint"].(map[string]any); ok {
					ids.webhook, _ = ep["id"].(string)
				}
			}

			// The import's preview is a page of the tour; then it is
			// confirmed, and the collection has data.
			file := filepath.Join(t.TempDir(), "cards.csv")
			if err := os.WriteFile(file, []byte(tourCSV), 0o644); err != nil {
				t.Fatal(err)
			}
			b.open("/dashboard/collection")
			b.run("upload", chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{file}))
			b.click("button", "Preview")
			b.see("heading", "Import preview")
			b.seeText("7 matched")
			checkPage(b, tourPage{route: "/collection/imports/{id}", name: tier + "-import-preview"})
			b.click("button", "Add to my collection")
			b.seeText("Import confirmed")

			for _, p := range served(t, theTour(ids), routes) {
				b.open("/dashboard" + p.path)
				b.run("load", chromedp.WaitReady(chromedp.CSS("footer")))
				p.name = tier + "-" + p.name
				checkPage(b, p)
			}
			b.click("button", "Sign out")
			b.seeText("You are signed out.")
		})
		if t.Failed() && testing.Short() {
			break
		}
	}
	if p := b.problems(false); len(p) != 0 {
		t.Errorf("dialogs, CSP violations or script errors: %v", p)
	}
	t.Logf("every page browser test took %v; screenshots in %s", time.Since(start).Round(100*time.Millisecond), b.shots)
}

// checkPage checks the page open in b at each viewport, and saves its
// screenshots.
func checkPage(b *browser, p tourPage) {
	b.t.Helper()
	b.n++
	for _, v := range viewports {
		file := b.capture(p.name, v.w, v.h, v.mobile, 0)
		full, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(file, ".png")+"-full.png", full, 0o644); err != nil {
			b.t.Fatal(err)
		}
		var found pageProblems
		raw := b.eval(pageChecks).(string)
		if err := json.Unmarshal([]byte(raw), &found); err != nil {
			b.t.Fatalf("%s: %v: %s", p.name, err, raw)
		}
		at := fmt.Sprintf("%s at %d px", p.name, v.w)
		for _, s := range found.Overflow {
			b.t.Errorf("%s scrolls sideways: %s", at, s)
		}
		if p.charts {
			for _, s := range found.EmptyCharts {
				b.t.Errorf("%s has an empty chart where the tier has data: %s", at, s)
			}
		}
		if len(found.GradeCodes) > 0 {
			b.t.Errorf("%s shows grades as codes: %s", at, strings.Join(found.GradeCodes, ", "))
		}
		for _, s := range found.Contradictions {
			b.t.Errorf("%s contradicts itself: %s", at, s)
		}
		for _, s := range found.Wraps {
			b.t.Errorf("%s: %s", at, s)
		}
		if len(found.Money) > 0 {
			b.t.Errorf("%s writes money not to the cent: %s", at, strings.Join(found.Money, ", "))
		}
		if found.Reference != "/api/v3/docs" {
			b.t.Errorf("%s: the footer's API reference links to %q, want /api/v3/docs", at, found.Reference)
		}
		for _, s := range p.says {
			if !strings.Contains(found.Text, s) {
				b.t.Errorf("%s does not say %q", at, s)
			}
		}
		// A name in Japanese or Chinese carries its language, and the fonts
		// of its script come first.
		if _, base, _ := strings.Cut(p.name, "-"); titleLang[base] != "" {
			lang := b.eval(`document.querySelector("main h1").lang`).(string)
			fonts := b.eval(`getComputedStyle(document.querySelector("main h1")).fontFamily`).(string)
			if lang != titleLang[base] || !strings.Contains(fonts, "Noto Sans CJK") {
				b.t.Errorf("%s: the title's lang is %q and its fonts %s, want lang %q and CJK fonts", at, lang, fonts, titleLang[base])
			}
		}
	}
	b.run("viewport", chromedp.EmulateViewport(1280, 800))
}

// titleLang is the language of the titles of the tour's pages named in
// Japanese or Chinese.
var titleLang = map[string]string{"card-ja": "ja", "card-zh": "zh-cn"}

// checkCJKFont fails t when the machine has no font for Japanese and
// Chinese (Chromium would draw their names as empty boxes in the
// screenshots).
func checkCJKFont(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("fc-list"); err != nil {
		t.Log("fc-list is missing: the CJK font is not checked")
		return
	}
	for _, lang := range []string{"ja", "zh-cn", "zh-tw"} {
		out, err := exec.Command("fc-list", ":lang="+lang, "family").Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			t.Errorf("no font for %s is installed: names in it show as empty boxes (Debian: apt-get install fonts-noto-cjk; .ci/run installs it)", lang)
		}
	}
}

// pageProblems is what pageChecks finds.
type pageProblems struct {
	Overflow       []string `json:"overflow"`
	EmptyCharts    []string `json:"empty_charts"`
	GradeCodes     []string `json:"grade_codes"`
	Contradictions []string `json:"contradictions"`
	Wraps          []string `json:"wraps"`
	Money          []string `json:"money"`     // amounts not written to the cent
	Reference      string   `json:"reference"` // the footer's API reference link
	Text           string   `json:"text"`      // the page's innerText
}

// pageChecks is the script that reads a page for checkPage; it returns
// pageProblems as JSON.
const pageChecks = `(() => {
  const W = window.innerWidth, out = {overflow: [], empty_charts: [], grade_codes: [], contradictions: [], wraps: [], money: []};
  out.text = document.body.innerText;
  const ref = Array.from(document.querySelectorAll("footer a")).find(a => a.textContent.trim() === "API reference");
  out.reference = ref ? ref.getAttribute("href") : "";
  const describe = e => {
    let s = e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\s+/).join(".") : "");
    const txt = (e.innerText || e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 50);
    return s + (txt ? " “" + txt + "”" : "");
  };
  const visible = e => e.checkVisibility ? e.checkVisibility() : true;

  // Sideways scrolling: the document, elements wider than the window or
  // past the content column (unless an ancestor clips them), elements that
  // scroll sideways themselves.
  const se = document.scrollingElement;
  if (se.scrollWidth > W) out.overflow.push("the document is " + se.scrollWidth + " px wide in a " + W + " px window");
  const main = document.querySelector("main");
  let colRight = W;
  if (main) {
    const r = main.getBoundingClientRect(), cs = getComputedStyle(main);
    colRight = Math.min(W, r.right - parseFloat(cs.paddingRight));
  }
  const clipped = e => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox === "hidden" || ox === "clip") return a.getBoundingClientRect().right <= W + 0.5;
    }
    return false;
  };
  const seen = new Set();
  const report = (e, why) => {
    for (const s of seen) if (s.contains(e)) return; // one line per overflowing subtree
    seen.add(e);
    out.overflow.push(describe(e) + " " + why);
  };
  for (const e of document.body.querySelectorAll("*")) {
    if (!visible(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const inMain = main && main !== e && main.contains(e);
    if (r.width > W + 0.5) report(e, "is " + Math.round(r.width) + " px wide");
    else if (r.right > W + 0.5 && !clipped(e)) report(e, "ends at " + Math.round(r.right) + " px");
    else if (inMain && r.right > colRight + 1 && !clipped(e)) report(e, "ends at " + Math.round(r.right) + " px, past the column's " + Math.round(colRight));
    const ox = getComputedStyle(e).overflowX;
    if ((ox === "auto" || ox === "scroll") && e.scrollWidth > e.clientWidth + 1) report(e, "scrolls sideways (" + e.scrollWidth + " px in " + e.clientWidth + ")");
  }

  // Charts: an empty one says so (.chart-empty, data-empty); a line needs
  // two points.
  for (const f of document.querySelectorAll("figure.chart")) {
    const id = (f.closest("section") || f).querySelector("h2");
    const name = id ? id.textContent.trim() : describe(f);
    if (f.classList.contains("chart-empty") || f.hasAttribute("data-empty")) {
      out.empty_charts.push(name + ": " + (f.innerText || "").trim().slice(0, 120));
      continue;
    }
    const line = f.querySelector("polyline");
    if (line) {
      const pts = line.getAttribute("points").trim().split(/\s+/);
      const ys = new Set(pts.map(p => p.split(",")[1]));
      if (pts.length < 2) out.empty_charts.push(name + ": a line of " + pts.length + " point");
    } else if (!f.querySelector("rect:not(.bar-none)")) {
      out.empty_charts.push(name + ": no line and no bar");
    }
  }

  // Grades as codes in the text a person reads (code examples aside), the
  // options of every list included.
  const codeRe = /\b(?:raw|slab|bgs|cgc|psa|sgc|tag):[a-z0-9_.]+/g;
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest("code, pre, script, style, svg, option")) continue;
    if (!visible(el)) continue;
    texts.push(n.nodeValue);
  }
  const shown = texts.slice(); // the text, without lists' options and labels
  for (const o of document.querySelectorAll("option")) texts.push(o.textContent);
  for (const e of document.querySelectorAll("[aria-label]")) texts.push(e.getAttribute("aria-label"));
  const codes = new Set();
  for (const s of texts) for (const m of s.matchAll(codeRe)) codes.add(m[0]);
  out.grade_codes = Array.from(codes);

  // Money to the cent, outside charts' axes (svg text) and the round
  // thresholds a list offers (a price floor of $10).
  const amounts = new Set();
  for (const s of shown) for (const m of s.matchAll(/\$[0-9][0-9,]*(?:\.[0-9]+)?k?/g)) if (!/\.[0-9]{2}$/.test(m[0])) amounts.add(m[0]);
  out.money = Array.from(amounts);

  // A "thin" flag beside high confidence, in a row or a list of facts.
  for (const e of document.querySelectorAll("tr, dl, li")) {
    if (!visible(e)) continue;
    const t = e.innerText || "";
    if (/\bthin\b/i.test(t) && (e.querySelector(".conf-high") || /high confidence/i.test(t))) {
      out.contradictions.push(describe(e));
    }
  }

  // At 1280 px a card name in the collection takes one line (two for a
  // name longer than 24 characters).
  if (W >= 1000) {
    for (const n of document.querySelectorAll("table.holdings th .name")) {
      const lh = parseFloat(getComputedStyle(n).lineHeight) || 24;
      const lines = Math.round(n.getBoundingClientRect().height / lh);
      if (lines > 2 || (lines > 1 && n.textContent.trim().length <= 24)) out.wraps.push("the holding " + describe(n) + " wraps to " + lines + " lines");
    }
  }
  return JSON.stringify(out);
})()`
