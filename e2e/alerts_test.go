package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/sweep"
	"github.com/cardedge/cardedge/web/webtest"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// End-to-end tests of alerts (issue #33) through the cardedge binary: rules
// made over REST, evaluated by serve when a snapshot goes live, delivered to
// a receiver that verifies every delivery with the official Standard
// Webhooks library (not cardedge's code); and an account's data export and
// deletion with the binary's accounts commands.

// receiver is a webhook receiver built on the official library: it
// accepts a delivery only when its signature and timestamp verify, and
// records each event (by webhook-id) with how many times it came.
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	wh       *standardwebhooks.Webhook
	events   map[string]map[string]any // webhook-id -> the body's data
	types    map[string]string
	times    map[string]int
	refused  int
	received chan struct{}
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{events: map[string]map[string]any{}, types: map[string]string{}, times: map[string]int{}, received: make(chan struct{}, 1)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.wh == nil || rc.wh.Verify(body, r.Header) != nil {
			rc.refused++
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		var msg struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		id := r.Header.Get("webhook-id")
		rc.events[id], rc.types[id] = msg.Data, msg.Type
		rc.times[id]++
		select {
		case rc.received <- struct{}{}:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) setSecret(t *testing.T, secret string) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	rc.wh = wh
	rc.mu.Unlock()
}

// fired returns "rule card" of every alert.triggered event of snapshot id,
// sorted.
func (rc *receiver) fired(id string) []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for wid, d := range rc.events {
		if rc.types[wid] == "alert.triggered" && d["snapshot_id"] == id {
			out = append(out, fmt.Sprint(d["rule_id"], " ", d["card_id"]))
		}
	}
	slices.Sort(out)
	return out
}

// ownPrices returns the own (fmv) price of every card of set in grade g,
// base printing, in snapshot dir: card id -> cents (0: none).
func ownPrices(t *testing.T, dir, game, set string, g snapshots.Grade) map[string]int64 {
	t.Helper()
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cards, err := r.SetCards(game, set)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, c := range cards {
		p, err := pricing.Own(r, c, snapshots.BasePrinting(c), g, m.AsOfDay())
		if err != nil {
			t.Fatal(err)
		}
		out[c.ID] = p.Cents
	}
	return out
}

// waitJob waits until the server whose state file is stateFile finished
// the background job id (package sweep).
func waitJob(t *testing.T, stateFile, id string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := statebolt.Open(stateFile, statebolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := sweep.Status(context.Background(), st, id)
		st.Close()
		if err == nil && p.Done {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("job %s not done in 60 s", id)
}

// call makes a keyed REST call of the server at base (checked against the
// OpenAPI document) and decodes the envelope's data into out.
func call(t *testing.T, base, key, method, path, body string, out any) {
	t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	r := doAt(t, keyedClient, base, method, path, key, b)
	if r.Status != 200 {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, truncate(r.Body))
	}
	if out != nil {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(r.Body, &env)
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatalf("%s %s: %v %s", method, path, err, truncate(r.Body))
		}
	}
}

// TestAlerts_DeliveredEndToEnd: rules made over REST while snapshot A
// serves; B goes live and fires exactly the rules and cards whose condition
// holds at B (every one, since none was evaluated before), C fires exactly
// those that cross between B and C, and D (C's data again) fires none.
// Every event reaches the receiver once, verified by the official library.
func TestAlerts_DeliveredEndToEnd(t *testing.T) {
	staging := filepath.Join(t.TempDir(), "staging")
	for _, s := range []struct {
		seed     int64
		asOf, id string
	}{{7, snapshotstest.AsOf, "s0001"}, {7, "2026-11-21", "s0002"}, {8, "2026-11-22", "s0003"}} {
		if _, err := snapshotstest.Build(staging, s.seed, s.asOf, s.id); err != nil {
			t.Fatal(err)
		}
	}
	root := e2etest.CopyRoot(t, staging, "s0001")
	publish := func(id, from string) {
		t.Helper()
		if id == from {
			if err := e2etest.CopyDir(filepath.Join(staging, from), filepath.Join(root, id)); err != nil {
				t.Fatal(err)
			}
		} else { // C's data under another id: D
			e2etest.CloneSnapshot(t, root, from, id)
		}
		if err := snapshots.Publish(root, id); err != nil {
			t.Fatal(err)
		}
	}
	nm := snapshots.RawNearMint
	pb := ownPrices(t, filepath.Join(staging, "s0002"), "pokemon", "en:base1", nm)
	pc := ownPrices(t, filepath.Join(staging, "s0003"), "pokemon", "en:base1", nm)
	// A card priced at B and C at different prices: a target between them
	// fires at C only.
	var pick string
	for id := range pb {
		if pb[id] > 0 && pc[id] > 0 && pb[id] != pc[id] && (pick == "" || id < pick) {
			pick = id
		}
	}
	if pick == "" {
		t.Fatal("no card of en:base1 changes price between the two seeds")
	}

	p := serveRoot(t, root, "--webhooks-allow-private", "--alerts-share", "1", "--webhooks-poll", "100ms")
	waitJob(t, p.state, "alerts/s0001") // the start-up evaluation (nothing to evaluate yet)
	secret := p.key(t, access.Pro, false, true)
	rc := newReceiver(t)
	var created struct {
		Secret string `json:"secret"`
	}
	call(t, p.Base, secret, "POST", "/api/v3/me/webhooks", `{"url":"`+rc.srv.URL+`/hook","description":"e2e"}`, &created)
	rc.setSecret(t, created.Secret)
	type rule struct {
		ID string `json:"id"`
	}
	var always, never, between, set rule
	call(t, p.Base, secret, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_above","price_usd":0.01}`, &always)
	call(t, p.Base, secret, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_below","price_usd":0.01}`, &never)
	// A target between the two prices, holding at C and not at B.
	kind, target := "at_or_below", (pb[pick]+pc[pick])/2
	if pc[pick] > pb[pick] {
		kind, target = "at_or_above", (pb[pick]+pc[pick]+1)/2
	}
	call(t, p.Base, secret, "POST", "/api/v3/me/alerts", fmt.Sprintf(`{"game":"pokemon","card_id":%q,"kind":%q,"price_usd":%.2f}`, pick, kind, float64(target)/100), &between)
	call(t, p.Base, secret, "POST", "/api/v3/me/alerts", `{"game":"pokemon","set_id":"en:base1","kind":"at_or_above","price_usd":0.01}`, &set)

	// The expected firings, from the snapshots' own prices.
	var wantB, wantC []string
	switch {
	case pb["en:base1-4"] > 0:
		wantB = append(wantB, always.ID+" en:base1-4")
	case pc["en:base1-4"] > 0:
		wantC = append(wantC, always.ID+" en:base1-4")
	}
	for id, price := range pb {
		if price > 0 {
			wantB = append(wantB, set.ID+" "+id)
		}
		if pc[id] > 0 && price <= 0 {
			wantC = append(wantC, set.ID+" "+id)
		}
	}
	wantC = append(wantC, between.ID+" "+pick)
	slices.Sort(wantB)
	slices.Sort(wantC)
	t.Logf("expected: %d alerts at B, %d at C (%s at %d then %d cents), none at D", len(wantB), len(wantC), pick, pb[pick], pc[pick])

	for _, step := range []struct {
		id, from string
		want     []string
	}{{"s0002", "s0002", wantB}, {"s0003", "s0003", wantC}, {"s0004", "s0003", nil}} {
		publish(step.id, step.from)
		waitJob(t, p.state, "alerts/"+step.id)
		deadline := time.Now().Add(30 * time.Second)
		for len(rc.fired(step.id)) < len(step.want) && time.Now().Before(deadline) {
			select {
			case <-rc.received:
			case <-time.After(time.Second):
			}
		}
		time.Sleep(300 * time.Millisecond) // three more delivery passes: nothing else arrives
		if got := rc.fired(step.id); !slices.Equal(got, step.want) {
			t.Errorf("snapshot %s fired\n%q\nwant\n%q", step.id, got, step.want)
		}
	}
	if strings.Contains(strings.Join(rc.fired("s0002"), " "), never.ID) {
		t.Error("the rule that never holds fired")
	}
	var evs struct {
		Items []struct {
			ID string `json:"event_id"`
		} `json:"items"`
	}
	call(t, p.Base, secret, "GET", "/api/v3/me/alert-events?limit=500", "", &evs)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.refused != 0 {
		t.Errorf("%d deliveries did not verify", rc.refused)
	}
	for id, n := range rc.times {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
	// The events API and the receiver agree.
	if len(evs.Items) != len(wantB)+len(wantC) || len(rc.events) != len(evs.Items) {
		t.Errorf("%d events listed, %d delivered, want %d", len(evs.Items), len(rc.events), len(wantB)+len(wantC))
	}
}

// TestAccounts_ExportDelete: `cardedge accounts export` writes everything an
// account made through the dashboard and REST (an alert, its webhooks, its
// collection) without a secret; `accounts delete --yes` leaves nothing of
// it in the state file, its key is refused within a second, and another
// account is untouched.
func TestAccounts_ExportDelete(t *testing.T) {
	d := newDash(t)
	email := webtest.UniqueEmail(t)
	d.SignUp(email)
	key, _ := d.CreateKey("export")
	other := newDash(t)
	other.SignUp(webtest.UniqueEmail(t))
	otherKey, _ := other.CreateKey("other")
	waitStatus(t, "/api/v3/sets?limit=1", key, 200)
	waitStatus(t, "/api/v3/sets?limit=1", otherKey, 200)
	call(t, env.base, key, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_listing"}`, nil)
	call(t, env.base, otherKey, "POST", "/api/v3/me/alerts", `{"game":"pokemon","card_id":"en:base1-4","kind":"first_listing"}`, nil)
	var acct string
	out, err := runBin(t, "accounts", "list", "--state", env.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, email) {
			acct = strings.Fields(line)[0]
		}
	}
	file := filepath.Join(t.TempDir(), "export.json")
	if out, err := runBin(t, "accounts", "export", "--state", env.state, "--out", file, email); err != nil {
		t.Fatalf("export: %v %s", err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Account struct {
			ID string `json:"id"`
		} `json:"account"`
		Keys []map[string]any `json:"keys"`
		Data struct {
			Alerts struct {
				Rules []map[string]any `json:"rules"`
			} `json:"alerts"`
			Webhooks   map[string]any `json:"webhooks"`
			Collection map[string]any `json:"collection"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &x); err != nil || x.Account.ID != acct || len(x.Keys) != 1 || len(x.Data.Alerts.Rules) != 1 || x.Data.Webhooks == nil || x.Data.Collection == nil {
		t.Fatalf("export: %v %s", err, b)
	}
	if strings.Contains(string(b), key) || strings.Contains(string(b), "argon2id") || strings.Contains(string(b), `"hint"`) {
		t.Errorf("the export holds a secret: %s", b)
	}
	if _, err := runBin(t, "accounts", "delete", "--state", env.state, email); err == nil {
		t.Error("delete without --yes deleted")
	}
	if out, err := runBin(t, "accounts", "delete", "--state", env.state, "--yes", email); err != nil {
		t.Fatalf("delete: %v %s", err, out)
	}
	waitStatus(t, "/api/v3/sets?limit=1", key, 401)
	waitStatus(t, "/api/v3/sets?limit=1", otherKey, 200)
	st := stateAt(t, env.state)
	err = st.View(context.Background(), func(tx state.Tx) error {
		for _, bk := range state.Buckets {
			if bk.Kind() != state.KindRecords {
				continue
			}
			tx.Scan(bk, state.ScanOptions{}, func(k string, v []byte) error {
				if strings.Contains(k, acct) || strings.Contains(string(v), acct) || strings.Contains(string(v), email) {
					t.Errorf("left after the deletion: %s %s", bk, k)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Total int `json:"total"`
	}
	call(t, env.base, otherKey, "GET", "/api/v3/me/alerts", "", &rules)
	if rules.Total != 1 {
		t.Errorf("the other account has %d rules", rules.Total)
	}
}
