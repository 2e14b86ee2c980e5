package edge

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/sweep"
	"github.com/cardedge/cardedge/webhook"
)

// mustAlertServices returns the alerts and webhook services over st, wired
// as serve wires them (an event is queued for the account's endpoints in
// the transaction that records it); deliveries go to a transport that
// answers 204 without a network.
func mustAlertServices(tb testing.TB, st state.Store) (*alert.Service, *webhook.Service) {
	tb.Helper()
	wh, err := webhook.New(webhook.Options{State: st, Transport: answer204{}})
	if err != nil {
		tb.Fatal(err)
	}
	al, err := alert.New(alert.Options{State: st, Sources: pricing.PriceSources, OnEvent: func(tx state.Tx, e alert.Event) error {
		return wh.Enqueue(tx, e.Account, webhook.Message{ID: e.ID, Type: e.Type, Time: e.Time, Data: e.Payload()})
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return al, wh
}

// answer204 is a webhook transport that answers every delivery 204.
type answer204 struct{}

func (answer204) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 204, Status: "204 No Content", Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
}

// evaluate runs the evaluation of every rule and the recording of every
// collection's value against the live snapshot of e (what serve does at a
// swap), then one delivery pass.
func (e *memoEnv) evaluate(t *testing.T) {
	t.Helper()
	run, err := sweep.New(sweep.Options{State: e.st})
	if err != nil {
		t.Fatal(err)
	}
	v := e.srv.live.Acquire()
	defer v.Release()
	if _, err := e.srv.opts.Alerts.(*alert.Service).Evaluate(context.Background(), alert.NewReaderMarket(v.Reader, v.AsOf), run); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.collections.(*collection.Service).Record(context.Background(), v, run, collection.RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.opts.Webhooks.(*webhook.Service).Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// call makes one keyed request and decodes the envelope's data into out
// (when not nil); it returns the status and body.
func (e *memoEnv) call(t *testing.T, key, method, target, body string, out any) (int, string) {
	t.Helper()
	ctype := ""
	if body != "" {
		ctype = "application/json"
	}
	status, b := e.do(t, method, target, ctype, body, "Authorization", "Bearer "+key)
	if out != nil && status == 200 {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s %s: %v: %s", method, target, err, b)
		}
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, target, err, env.Data)
		}
	}
	return status, string(b)
}

// fieldLocs returns the loc of each error of a 422 body, joined by ".".
func fieldLocs(t *testing.T, body string) []string {
	t.Helper()
	var v struct {
		Detail []struct {
			Loc []any `json:"loc"`
		} `json:"detail"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not a 422 body: %s", body)
	}
	var out []string
	for _, d := range v.Detail {
		var parts []string
		for _, p := range d.Loc {
			parts = append(parts, strings.TrimSpace(strings.Trim(jsonString(p), `"`)))
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestAlerts_Rules(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	t.Run("OK", func(t *testing.T) {
		var r alert.View
		status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"EN:BASE1-4","kind":"at_or_below","price_usd":1000000,"source":"own"}`, &r)
		if status != 200 {
			t.Fatalf("create: %d %s", status, body)
		}
		if got, want := r.CardID, "en:base1-4"; got != want {
			t.Errorf("card_id %q, want the canonical %q", got, want)
		}
		if r.PriceUSD == nil || *r.PriceUSD != 1e6 || r.Grade != "raw:near_mint" || r.Want {
			t.Errorf("created %+v", r)
		}
		var got alert.View
		if status, body := e.call(t, e.elite, "GET", "/api/v3/me/alerts/"+r.ID, "", &got); status != 200 || got.ID != r.ID {
			t.Fatalf("get: %d %s", status, body)
		}
		var list alert.RuleList
		e.call(t, e.elite, "GET", "/api/v3/me/alerts", "", &list)
		if list.Total != 1 || list.Limit != access.LimitsOf(access.Elite).AlertRules || list.Items[0].ID != r.ID {
			t.Errorf("list: %+v", list)
		}
		// Replace: what a GET returned, changed, goes back as it is.
		in := r
		p := 12.5
		in.PriceUSD = &p
		b, _ := json.Marshal(map[string]any{"game": in.Game, "card_id": in.CardID, "grade": in.Grade, "source": in.Source, "kind": in.Kind, "price_usd": p})
		var rep alert.View
		if status, body := e.call(t, e.elite, "PUT", "/api/v3/me/alerts/"+r.ID, string(b), &rep); status != 200 || *rep.PriceUSD != 12.5 || rep.ID != r.ID {
			t.Fatalf("replace: %d %s", status, body)
		}
		// The want list is apart: the rule is not there, nor its id.
		var wl alert.RuleList
		e.call(t, e.elite, "GET", "/api/v3/me/want-list", "", &wl)
		if wl.Total != 0 {
			t.Errorf("want list holds %d", wl.Total)
		}
		if status, _ := e.call(t, e.elite, "GET", "/api/v3/me/want-list/"+r.ID, "", nil); status != 404 {
			t.Errorf("a rule read as a want-list entry: %d, want 404", status)
		}
		var w alert.View
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/want-list", `{"card_id":"en:base1-4","game":"pokemon","quantity":2,"note":"binder"}`, &w); status != 200 || !w.Want || w.Quantity != 2 {
			t.Fatalf("want-list entry: %d %s", status, body)
		}
		if status, body := e.call(t, e.elite, "DELETE", "/api/v3/me/alerts/"+r.ID, "", nil); status != 200 || !strings.Contains(body, `"deleted":true`) {
			t.Fatalf("delete: %d %s", status, body)
		}
		if status, _ := e.call(t, e.elite, "GET", "/api/v3/me/alerts/"+r.ID, "", nil); status != 404 {
			t.Errorf("a deleted rule: %d", status)
		}
		// Another key (another owner) does not see the entry.
		if status, _ := e.call(t, e.free, "GET", "/api/v3/me/want-list/"+w.ID, "", nil); status != 404 {
			t.Errorf("another key reads the entry: %d", status)
		}
	})
	t.Run("ErrFields", func(t *testing.T) {
		status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"","card_id":"en:base1-4","set_id":"en:base1","kind":"move","pct":-1,"days":3}`, nil)
		if status != 422 {
			t.Fatalf("%d %s", status, body)
		}
		got := strings.Join(fieldLocs(t, body), " ")
		for _, want := range []string{"body.game", "body.set_id", "body.pct", "body.days"} {
			if !strings.Contains(got, want) {
				t.Errorf("422 names %s; want %s among them (%s)", got, want, body)
			}
		}
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_sale","want":true}`, nil); status != 422 || !strings.Contains(body, "want-list") {
			t.Errorf("a want entry posted as a rule: %d %s", status, body)
		}
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_sale","bogus":1}`, nil); status != 422 || !strings.Contains(body, "bogus") {
			t.Errorf("an unknown field: %d %s", status, body)
		}
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:nope-999","kind":"first_sale"}`, nil); status != 404 {
			t.Errorf("an unknown card: %d %s", status, body)
		}
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_sale","source":"amazon"}`, nil); status != 422 || !strings.Contains(body, "source") {
			t.Errorf("an unknown source: %d %s", status, body)
		}
	})
	t.Run("ErrTier", func(t *testing.T) {
		// Free: no rule on a whole set (403), 10 rules at most (422). An
		// unmetered Free key: the tier's rate would stop the loop first.
		free, _, err := e.store.Create(context.Background(), access.KeySpec{Tier: access.Free, Name: "free unmetered", Unmetered: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.acc.Sync(); err != nil {
			t.Fatal(err)
		}
		if status, body := e.call(t, free, "POST", "/api/v3/me/alerts", `{"game":"pokemon","set_id":"en:base1","kind":"first_listing"}`, nil); status != 403 {
			t.Errorf("a set rule on Free: %d %s", status, body)
		}
		for i := range 10 {
			if status, body := e.call(t, free, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_listing"}`, nil); status != 200 {
				t.Fatalf("rule %d on Free: %d %s", i+1, status, body)
			}
		}
		if status, body := e.call(t, free, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_listing"}`, nil); status != 422 || !strings.Contains(body, "most its tier allows") {
			t.Errorf("rule 11 on Free: %d %s", status, body)
		}
	})
}

func TestAlerts_EventsAndFeed(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	var r alert.View
	if status, body := e.call(t, e.elite, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_above","price_usd":0.01}`, &r); status != 200 {
		t.Fatalf("create: %d %s", status, body)
	}
	e.evaluate(t)
	var evs alert.EventPage
	if status, body := e.call(t, e.elite, "GET", "/api/v3/me/alert-events", "", &evs); status != 200 || len(evs.Items) != 1 {
		t.Fatalf("events: %d %s", status, body)
	}
	if ev := evs.Items[0]; ev.RuleID != r.ID || ev.CardID != "en:base1-4" || ev.Seen.PriceUSD == nil || ev.Condition.Kind != alert.AtOrAbove {
		t.Errorf("event %+v", ev)
	}
	e.evaluate(t) // the same snapshot again: nothing more
	e.call(t, e.elite, "GET", "/api/v3/me/alert-events", "", &evs)
	if len(evs.Items) != 1 {
		t.Errorf("%d events after a second evaluation of the same snapshot", len(evs.Items))
	}

	var f alert.FeedLink
	if status, body := e.call(t, e.elite, "GET", "/api/v3/me/feed", "", &f); status != 200 || !strings.HasPrefix(f.Token, "fd_") || !strings.HasSuffix(f.URL, FeedPath+f.Token+".atom") {
		t.Fatalf("feed: %d %s", status, body)
	}
	// The feed answers without a key, as Atom, with the event.
	resp := e.doResponse(t, "GET", FeedPath+f.Token+".atom")
	if resp.StatusCode() != 200 || !strings.HasPrefix(string(resp.Header.ContentType()), "application/atom+xml") {
		t.Fatalf("GET the feed: %d %s", resp.StatusCode(), resp.Body())
	}
	var atom struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		Entries []struct {
			Title string `xml:"title"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(resp.Body(), &atom); err != nil || len(atom.Entries) != 1 || !strings.Contains(atom.Entries[0].Title, "Charizard") {
		t.Errorf("the feed: %v %+v\n%s", err, atom, resp.Body())
	}
	var rolled alert.FeedLink
	e.call(t, e.elite, "POST", "/api/v3/me/feed/roll", "", &rolled)
	if rolled.Token == f.Token {
		t.Fatal("roll kept the token")
	}
	if resp := e.doResponse(t, "GET", FeedPath+f.Token+".atom"); resp.StatusCode() != 404 {
		t.Errorf("the rolled URL: %d", resp.StatusCode())
	}
	if resp := e.doResponse(t, "GET", FeedPath+rolled.Token+".atom"); resp.StatusCode() != 200 {
		t.Errorf("the new URL: %d", resp.StatusCode())
	}
	if resp := e.doResponse(t, "GET", FeedPath+rolled.Token); resp.StatusCode() != 404 {
		t.Errorf("without .atom: %d", resp.StatusCode())
	}
}

func TestWebhooks_Endpoints(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	t.Run("ErrGuard", func(t *testing.T) {
		for _, u := range []string{"http://127.0.0.1:9/hook", "http://169.254.169.254/latest/meta-data", "http://[::1]/x", "ftp://93.184.216.34/"} {
			status, body := e.call(t, e.elite, "POST", "/api/v3/me/webhooks", `{"url":"`+u+`"}`, nil)
			if status != 422 || !strings.Contains(strings.Join(fieldLocs(t, body), " "), "body.url") {
				t.Errorf("%s: %d %s", u, status, body)
			}
		}
	})
	t.Run("ErrTier", func(t *testing.T) {
		if status, body := e.call(t, e.free, "POST", "/api/v3/me/webhooks", `{"url":"https://93.184.216.34/hook"}`, nil); status != 403 {
			t.Errorf("Free: %d %s", status, body)
		}
	})
	t.Run("OK", func(t *testing.T) {
		var c webhook.EndpointCreated
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/webhooks", `{"url":"https://93.184.216.34/hook","description":"mine"}`, &c); status != 200 || !strings.HasPrefix(c.Secret, "whsec_") {
			t.Fatalf("create: %d %s", status, body)
		}
		id := c.Endpoint.ID
		var list webhook.EndpointList
		if e.call(t, e.elite, "GET", "/api/v3/me/webhooks", "", &list); list.Total != 1 || strings.Contains(jsonString(list), "whsec_") {
			t.Errorf("list: %+v", list)
		}
		var tq webhook.TestQueued
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/webhooks/"+id+"/test", "", &tq); status != 200 || tq.MessageID == "" {
			t.Fatalf("test: %d %s", status, body)
		}
		e.evaluate(t) // one delivery pass
		var log webhook.DeliveryLog
		if status, body := e.call(t, e.elite, "GET", "/api/v3/me/webhooks/"+id+"/log", "", &log); status != 200 || len(log.Items) != 1 ||
			log.Items[0].MessageID != tq.MessageID || log.Items[0].Status != 204 || log.Items[0].Outcome != webhook.Delivered {
			t.Fatalf("log: %d %s", status, body)
		}
		var sr webhook.SecretRolled
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/webhooks/"+id+"/roll-secret", "", &sr); status != 200 || sr.Secret == c.Secret || sr.OldSecretUntil == "" {
			t.Fatalf("roll: %d %s", status, body)
		}
		var ep webhook.Endpoint
		if e.call(t, e.elite, "POST", "/api/v3/me/webhooks/"+id+"/disable", "", &ep); ep.Disabled == nil {
			t.Errorf("disable: %+v", ep)
		}
		if status, body := e.call(t, e.elite, "POST", "/api/v3/me/webhooks/"+id+"/test", "", nil); status != 422 || !strings.Contains(body, "disabled") {
			t.Errorf("a test to a disabled endpoint: %d %s", status, body)
		}
		if e.call(t, e.elite, "POST", "/api/v3/me/webhooks/"+id+"/enable", "", &ep); ep.Disabled != nil {
			t.Errorf("enable: %+v", ep)
		}
		if status, body := e.call(t, e.elite, "PUT", "/api/v3/me/webhooks/"+id, `{"url":"https://93.184.216.35/other","types":["alert.triggered"]}`, &ep); status != 200 || ep.URL != "https://93.184.216.35/other" {
			t.Errorf("replace: %d %s", status, body)
		}
		if status, body := e.call(t, e.elite, "PUT", "/api/v3/me/webhooks/"+id, `{"url":"http://10.0.0.1/"}`, nil); status != 422 {
			t.Errorf("replace with a private URL: %d %s", status, body)
		}
		if status, _ := e.call(t, e.free, "GET", "/api/v3/me/webhooks/"+id, "", nil); status != 404 {
			t.Errorf("another key reads the endpoint: %d", status)
		}
		var ns webhook.NoticeList
		if status, body := e.call(t, e.elite, "GET", "/api/v3/me/webhook-notices", "", &ns); status != 200 || len(ns.Items) != 0 {
			t.Errorf("notices: %d %s", status, body)
		}
		if status, _ := e.call(t, e.elite, "DELETE", "/api/v3/me/webhooks/"+id, "", nil); status != 200 {
			t.Errorf("delete: %d", status)
		}
		if status, _ := e.call(t, e.elite, "GET", "/api/v3/me/webhooks/"+id+"/log", "", nil); status != 404 {
			t.Errorf("the log of a deleted endpoint: %d", status)
		}
	})
}

func TestCollection_HistoryAndCompletion(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	var pv struct {
		PreviewID string `json:"preview_id"`
	}
	if status, body := e.call(t, e.elite, "POST", "/api/v3/me/imports/preview", `{"rows":[{"card_id":"en:base1-4","quantity":2}]}`, &pv); status != 200 {
		t.Fatalf("preview: %d %s", status, body)
	}
	if status, body := e.call(t, e.elite, "POST", "/api/v3/me/imports/confirm", `{"preview_id":"`+pv.PreviewID+`"}`, nil); status != 200 {
		t.Fatalf("confirm: %d %s", status, body)
	}
	var h collection.History
	if e.call(t, e.elite, "GET", "/api/v3/me/collection/history", "", &h); len(h.Points) != 0 {
		t.Errorf("history before any recording: %+v", h)
	}
	e.evaluate(t)
	if status, body := e.call(t, e.elite, "GET", "/api/v3/me/collection/history", "", &h); status != 200 || len(h.Points) != 1 ||
		h.Points[0].Quantity != 2 || h.Points[0].Sources[0].Source != "own" {
		t.Fatalf("history: %d %s", status, body)
	}
	var c collection.Completion
	if status, body := e.call(t, e.elite, "GET", "/api/v3/me/collection/completion", "", &c); status != 200 || len(c.Sets) != 1 || c.Sets[0].Owned != 1 || c.Sets[0].Printings < 2 {
		t.Fatalf("completion: %d %s", status, body)
	}
	if status, body := e.call(t, e.elite, "GET", "/api/v3/me/collection/completion?grade=bogus", "", nil); status != 422 || !strings.Contains(body, "grade") {
		t.Errorf("a bad grade: %d %s", status, body)
	}
}
