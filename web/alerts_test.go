package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep"
	"github.com/cardedge/cardedge/web"
	"github.com/cardedge/cardedge/webhook"
)

// tinyRoot builds the tiny test snapshot into a directory of tb's.
func tinyRoot(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	if _, err := snapshotstest.Build(root, 7, snapshotstest.AsOf, "s0001"); err != nil {
		tb.Fatal(err)
	}
	return root
}

// board is a dashboard with alerts, webhooks and collections over one state
// store and the tiny snapshot, served by httptest, and a browser-like
// client signed in to a fresh Pro account.
type board struct {
	srv      *httptest.Server
	c        *http.Client
	st       state.Store
	accounts *account.Service
	alerts   *alert.Service
	webhooks *webhook.Service
	colls    *collection.Service
	live     *live.Live
	id       string // the account's id
}

func mustBoard(t *testing.T) *board {
	t.Helper()
	b := &board{st: statetest.MustOpen(t)}
	var err error
	if b.accounts, err = account.New(account.Options{State: b.st}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.accounts.Close() })
	acc, err := access.Open(access.Options{State: b.st, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { acc.Close() })
	if b.live, err = live.Open(tinyRoot(t), live.Options{Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.live.Close)
	if b.webhooks, err = webhook.New(webhook.Options{State: b.st, Transport: answer{200, "ok"}}); err != nil {
		t.Fatal(err)
	}
	wh := b.webhooks
	if b.alerts, err = alert.New(alert.Options{State: b.st, OnEvent: func(tx state.Tx, e alert.Event) error {
		return wh.Enqueue(tx, e.Account, webhook.Message{ID: e.ID, Type: e.Type, Time: e.Time, Data: e.Payload()})
	}}); err != nil {
		t.Fatal(err)
	}
	b.colls = collection.New(collection.Options{State: b.st})
	parts := []account.Part{
		{Name: "alerts", Export: func(tx state.Tx, o account.Owned) (any, error) { return alert.ExportAccount(tx, o.Account) },
			Delete: func(tx state.Tx, o account.Owned) error { return alert.DeleteAccount(tx, o.Account) }},
		{Name: "webhooks", Export: func(tx state.Tx, o account.Owned) (any, error) { return wh.ExportAccount(tx, o.Account) },
			Delete: func(tx state.Tx, o account.Owned) error { return webhook.DeleteAccount(tx, o.Account) }},
		{Name: "collection", Export: func(tx state.Tx, o account.Owned) (any, error) { return collection.ExportAccount(tx, o.IDs()) },
			Delete: func(tx state.Tx, o account.Owned) error { return collection.DeleteAccount(tx, o.IDs()) }},
	}
	h, err := web.New(web.Options{Accounts: b.accounts, Usage: acc, Signup: true, Snapshots: b.live, Collections: b.colls,
		Alerts: b.alerts, Webhooks: b.webhooks, AccountData: parts, RatePerSec: 1000, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	b.srv = httptest.NewServer(h)
	t.Cleanup(b.srv.Close)
	jar, _ := cookiejar.New(nil)
	b.c = &http.Client{Jar: jar, CheckRedirect: noRedirect}
	signUp(t, b.c, b.srv.URL, b.srv.URL)
	a, err := b.accounts.Lookup(context.Background(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.SetTier(context.Background(), a.ID, access.Pro, account.Client{}); err != nil {
		t.Fatal(err)
	}
	b.id = a.ID
	return b
}

// answer is a webhook transport that answers every delivery with status
// and body.
type answer struct {
	status int
	body   string
}

func (a answer) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: a.status, Body: io.NopCloser(strings.NewReader(a.body)), Header: http.Header{}, Request: r}, nil
}

type reply struct {
	status   int
	body     string
	location string
	header   http.Header
}

func (b *board) get(t *testing.T, path string) reply {
	t.Helper()
	resp, err := b.c.Get(b.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(body), resp.Header.Get("Location"), resp.Header}
}

// post sends form from page's form (its CSRF token) as the browser does.
func (b *board) post(t *testing.T, page, path string, form url.Values) reply {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("csrf") == "" {
		m := csrfRe.FindStringSubmatch(b.get(t, page).body)
		if m == nil {
			t.Fatalf("no CSRF token on %s", page)
		}
		form.Set("csrf", m[1])
	}
	req, _ := http.NewRequest("POST", b.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.srv.URL)
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(body), resp.Header.Get("Location"), resp.Header}
}

// evaluate does what serve does when a snapshot goes live: every rule
// checked, every collection's value recorded, then one delivery pass.
func (b *board) evaluate(t *testing.T) {
	t.Helper()
	run, err := sweep.New(sweep.Options{State: b.st})
	if err != nil {
		t.Fatal(err)
	}
	v := b.live.Acquire()
	defer v.Release()
	ctx := context.Background()
	if _, err := b.alerts.Evaluate(ctx, alert.NewReaderMarket(v.Reader, v.AsOf), run); err != nil {
		t.Fatal(err)
	}
	if _, err := b.colls.Record(ctx, v, run, collection.RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.webhooks.Deliver(ctx); err != nil {
		t.Fatal(err)
	}
}

var ruleLinkRe = regexp.MustCompile(`href="/dashboard/alerts/(r_[a-z2-7]+)"`)

func TestAlertsPage(t *testing.T) {
	b := mustBoard(t)
	t.Run("ErrFields", func(t *testing.T) {
		r := b.post(t, "/dashboard/alerts", "/dashboard/alerts", url.Values{"kind": {"at_or_below"}, "card": {"en:base1-4"}, "price_usd": {"cheap"}, "grade": {"raw:near_mint"}, "source": {"own"}})
		if r.status != 422 || !strings.Contains(r.body, `id="rule-price_usd-error">Enter a number`) || !strings.Contains(r.body, `value="cheap"`) {
			t.Fatalf("a bad price: %d %s", r.status, r.body)
		}
		r = b.post(t, "/dashboard/alerts", "/dashboard/alerts", url.Values{"kind": {"move"}, "card": {"en:base1-4"}, "pct": {"-5"}, "days": {"7"}, "grade": {"grade nine"}, "source": {"own"}})
		if r.status != 422 || !strings.Contains(r.body, `id="rule-pct-error"`) || !strings.Contains(r.body, `id="rule-grade-error"`) || !strings.Contains(r.body, `aria-invalid="true"`) {
			t.Fatalf("a bad move: %d %s", r.status, r.body)
		}
		r = b.post(t, "/dashboard/alerts", "/dashboard/alerts", url.Values{"kind": {"first_sale"}, "card": {"no such card at all"}, "grade": {"raw:near_mint"}, "source": {"own"}})
		if r.status != 422 || !strings.Contains(r.body, `id="rule-card-error"`) {
			t.Fatalf("an unknown card: %d %s", r.status, r.body)
		}
	})
	var id string
	t.Run("OK", func(t *testing.T) {
		// A card named, not only an id: resolved against the snapshot.
		r := b.post(t, "/dashboard/alerts", "/dashboard/alerts", url.Values{"kind": {"at_or_above"}, "card": {"en:base1-4"}, "price_usd": {"1"}, "grade": {"raw:near_mint"}, "source": {"own"}})
		if r.status != 303 || r.location != "/dashboard/alerts?done=created" {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		r = b.post(t, "/dashboard/alerts", "/dashboard/alerts", url.Values{"kind": {""}, "want": {"1"}, "quantity": {"2"}, "card": {"en:base1-4"}, "grade": {"slab:10"}, "source": {"own"}, "note": {"for the binder"}})
		if r.status != 303 {
			t.Fatalf("a want-list entry: %d %s", r.status, r.body)
		}
		page := b.get(t, "/dashboard/alerts?done=created")
		if !strings.Contains(page.body, "at or above $1.00") || !strings.Contains(page.body, "2 wanted") || !strings.Contains(page.body, "for the binder") ||
			!strings.Contains(page.body, "Saved.") || !strings.Contains(page.body, "No alert has fired yet") {
			t.Fatalf("the alerts page: %s", page.body)
		}
		m := ruleLinkRe.FindAllStringSubmatch(page.body, -1)
		if len(m) != 2 {
			t.Fatalf("%d rule links", len(m))
		}
		id = m[1][1] // the alert (the want list comes first)
		b.evaluate(t)
		page = b.get(t, "/dashboard/alerts")
		if !strings.Contains(page.body, "Charizard (en:base1-4, holo/unlimited, Raw, near mint) is $") {
			t.Errorf("the last alerts: %s", page.body)
		}
		// Change it: the form shows the rule's values.
		edit := b.get(t, "/dashboard/alerts/"+id)
		if edit.status != 200 || !strings.Contains(edit.body, `name="price_usd" type="text" value="1"`) {
			t.Fatalf("the edit page: %d %s", edit.status, edit.body)
		}
		r = b.post(t, "/dashboard/alerts/"+id, "/dashboard/alerts/"+id, url.Values{"kind": {"at_or_above"}, "card": {"en:base1-4"}, "price_usd": {"-3"}, "grade": {"raw:near_mint"}, "source": {"own"}})
		if r.status != 422 || !strings.Contains(r.body, `id="rule-price_usd-error"`) {
			t.Fatalf("replace with a bad price: %d %s", r.status, r.body)
		}
		r = b.post(t, "/dashboard/alerts/"+id, "/dashboard/alerts/"+id, url.Values{"kind": {"at_or_above"}, "card": {"en:base1-4"}, "price_usd": {"5000"}, "grade": {"raw:near_mint"}, "source": {"own"}})
		if r.status != 303 || r.location != "/dashboard/alerts?done=replaced" {
			t.Fatalf("replace: %d %s", r.status, r.body)
		}
		if page := b.get(t, "/dashboard/alerts"); !strings.Contains(page.body, "at or above $5000.00") {
			t.Errorf("the changed rule is not listed")
		}
	})
	t.Run("Feed", func(t *testing.T) {
		feedRe := regexp.MustCompile(`<code id="feed-url">([^<]+)</code>`)
		before := feedRe.FindStringSubmatch(b.get(t, "/dashboard/alerts").body)
		if before == nil || !strings.HasPrefix(before[1], b.srv.URL+"/feeds/alerts/fd_") {
			t.Fatalf("no feed URL")
		}
		if r := b.post(t, "/dashboard/alerts", "/dashboard/alerts/feed/roll", nil); r.status != 303 {
			t.Fatalf("roll: %d", r.status)
		}
		after := feedRe.FindStringSubmatch(b.get(t, "/dashboard/alerts").body)
		if after == nil || after[1] == before[1] {
			t.Errorf("the feed URL after a roll: %v", after)
		}
	})
	t.Run("ErrCSRF", func(t *testing.T) {
		if r := b.post(t, "", "/dashboard/alerts/"+id+"/delete", url.Values{"csrf": {"forged"}}); r.status != 403 {
			t.Errorf("a forged token: %d", r.status)
		}
		if r := b.get(t, "/dashboard/alerts/r_aaaaaaaaaaaaaaaa"); r.status != 404 {
			t.Errorf("another rule: %d", r.status)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		if r := b.post(t, "/dashboard/alerts", "/dashboard/alerts/"+id+"/delete", nil); r.status != 303 || r.location != "/dashboard/alerts?done=deleted" {
			t.Fatalf("delete: %d %s", r.status, r.body)
		}
		if r := b.get(t, "/dashboard/alerts/"+id); r.status != 404 {
			t.Errorf("a deleted rule: %d", r.status)
		}
	})
}

// secretRe finds a shown secret (html/template writes + as &#43;).
var secretRe = regexp.MustCompile(`<code id="webhook-secret">(whsec_[A-Za-z0-9&#;/=]+)</code>`)

func TestWebhooksPage(t *testing.T) {
	b := mustBoard(t)
	r := b.post(t, "/dashboard/webhooks", "/dashboard/webhooks", url.Values{"url": {"http://169.254.169.254/latest"}})
	if r.status != 422 || !strings.Contains(r.body, `id="webhook-url-error"`) || !strings.Contains(r.body, "169.254.169.254") {
		t.Fatalf("a metadata URL: %d %s", r.status, r.body)
	}
	r = b.post(t, "/dashboard/webhooks", "/dashboard/webhooks", url.Values{"url": {"https://93.184.216.34/hook"}, "description": {"mine"}})
	if r.status != 303 || r.location != "/dashboard/webhooks#new-secret" {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	page := b.get(t, "/dashboard/webhooks")
	secret := secretRe.FindStringSubmatch(page.body)
	if secret == nil || !strings.Contains(page.body, "https://93.184.216.34/hook") {
		t.Fatalf("no secret shown after adding: %s", page.body)
	}
	if again := b.get(t, "/dashboard/webhooks"); strings.Contains(again.body, secret[1]) {
		t.Error("the secret is shown twice")
	}
	es, _ := b.webhooks.List(context.Background(), b.id)
	if len(es) != 1 {
		t.Fatalf("%d endpoints", len(es))
	}
	id := es[0].ID
	if r := b.post(t, "/dashboard/webhooks", "/dashboard/webhooks/"+id+"/test", nil); r.status != 303 || r.location != "/dashboard/webhooks?done=test" {
		t.Fatalf("send test: %d %s", r.status, r.body)
	}
	b.evaluate(t) // a delivery pass
	log := b.get(t, "/dashboard/webhooks/"+id)
	if log.status != 200 || !strings.Contains(log.body, "webhook.test") || !strings.Contains(log.body, "delivered") || !strings.Contains(log.body, `<code class="response">ok</code>`) {
		t.Fatalf("the log: %d %s", log.status, log.body)
	}
	r = b.post(t, "/dashboard/webhooks", "/dashboard/webhooks/"+id+"/roll", nil)
	rolled := secretRe.FindStringSubmatch(b.get(t, "/dashboard/webhooks").body)
	if r.status != 303 || rolled == nil || rolled[1] == secret[1] {
		t.Fatalf("roll: %d %v", r.status, rolled)
	}
	// A disabled endpoint: a banner here and on the alerts page.
	if r := b.post(t, "/dashboard/webhooks", "/dashboard/webhooks/"+id+"/disable", nil); r.status != 303 {
		t.Fatalf("disable: %d", r.status)
	}
	for _, p := range []string{"/dashboard/webhooks", "/dashboard/alerts"} {
		if page := b.get(t, p); !strings.Contains(page.body, "A webhook endpoint is disabled") || !strings.Contains(page.body, "disabled by its owner") {
			t.Errorf("%s has no banner: %s", p, page.body)
		}
	}
	if r := b.post(t, "/dashboard/webhooks", "/dashboard/webhooks/"+id+"/enable", nil); r.status != 303 {
		t.Fatalf("enable: %d", r.status)
	}
	if page := b.get(t, "/dashboard/webhooks"); strings.Contains(page.body, "A webhook endpoint is disabled") {
		t.Error("the banner stays after enabling")
	}
	if r := b.post(t, "/dashboard/webhooks", "/dashboard/webhooks/"+id+"/delete", nil); r.status != 303 {
		t.Fatalf("delete: %d", r.status)
	}
	if r := b.get(t, "/dashboard/webhooks/"+id); r.status != 404 {
		t.Errorf("a deleted endpoint's log: %d", r.status)
	}
}

func TestCollectionPage_Recorded(t *testing.T) {
	b := mustBoard(t)
	v := b.live.Acquire()
	_, err := b.colls.Add(context.Background(), v, collection.AccountOwner(b.id), collection.Change{Game: "pokemon", CardID: "en:base1-4", Grade: "raw:near_mint", Quantity: 2})
	v.Release()
	if err != nil {
		t.Fatal(err)
	}
	if page := b.get(t, "/dashboard/collection"); strings.Contains(page.body, "Value recorded at each snapshot") || !strings.Contains(page.body, "Set completion") {
		t.Fatalf("before any recording: %s", page.body)
	}
	b.evaluate(t)
	page := b.get(t, "/dashboard/collection")
	for _, want := range []string{"Value recorded at each snapshot", "By own prices: $", `class="bar-conf-high"`, "Set completion", "1 of "} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the collection page lacks %q", want)
		}
	}
}

func TestAccountData(t *testing.T) {
	b := mustBoard(t)
	b.post(t, "/dashboard/alerts", "/dashboard/alerts", url.Values{"kind": {"first_listing"}, "card": {"en:base1-4"}, "grade": {"raw:near_mint"}, "source": {"own"}})
	r := b.get(t, "/dashboard/account/export.json")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment;") {
		t.Fatalf("export: %d %v", r.status, r.header)
	}
	var x account.Export
	if err := json.Unmarshal([]byte(r.body), &x); err != nil || x.Account.Email != "ada@example.com" || x.Data["alerts"] == nil {
		t.Fatalf("export: %v %s", err, r.body)
	}
	if strings.Contains(r.body, "argon2id") || strings.Contains(r.body, "csrf") {
		t.Errorf("the export holds a secret: %s", r.body)
	}
	r = b.post(t, "/dashboard/account", "/dashboard/account/delete", url.Values{"password": {"not it"}, "confirm": {"delete"}})
	if r.status != 422 || !strings.Contains(r.body, "not deleted") {
		t.Fatalf("a wrong password: %d %s", r.status, r.body)
	}
	r = b.post(t, "/dashboard/account", "/dashboard/account/delete", url.Values{"password": {"a long and unusual passphrase"}})
	if r.status != 422 {
		t.Fatalf("no confirmation: %d", r.status)
	}
	r = b.post(t, "/dashboard/account", "/dashboard/account/delete", url.Values{"password": {"a long and unusual passphrase"}, "confirm": {"delete"}})
	if r.status != 303 || r.location != "/dashboard/signin?done=deleted" {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := b.get(t, "/dashboard/alerts"); r.status != 303 {
		t.Errorf("the deleted account's session: %d", r.status)
	}
	if rules, _ := b.alerts.List(context.Background(), b.id, nil); len(rules) != 0 {
		t.Errorf("%d rules left", len(rules))
	}
	if _, err := b.accounts.Get(context.Background(), b.id); err == nil {
		t.Error("the account is still there")
	}
}
