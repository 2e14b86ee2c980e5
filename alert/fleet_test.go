package alert_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/alert/alerttest"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep"
	"github.com/cardedge/cardedge/sweep/sweeptest"
	"github.com/cardedge/cardedge/webhook"
)

// replica is one process of a fleet: its alert and webhook services over
// the shared store.
type replica struct {
	alerts   *alert.Service
	webhooks *webhook.Service
	runner   *sweep.Runner
}

func newReplica(t *testing.T, st state.Store, clock *statetest.Clock, name string) *replica {
	t.Helper()
	wh, err := webhook.New(webhook.Options{State: st, Now: clock.Now, Holder: name, Guard: webhook.Guard{AllowPrivate: true}})
	if err != nil {
		t.Fatal(err)
	}
	enqueue := func(tx state.Tx, e alert.Event) error {
		return wh.Enqueue(tx, e.Account, webhook.Message{ID: e.ID, Type: e.Type, Time: e.Time, Data: e.Payload()})
	}
	return &replica{alerts: MustService(t, st, clock, enqueue), webhooks: wh, runner: sweeptest.MustRunner(t, st, name, clock, 3)}
}

// TestFleet_ExactlyOnce: three replicas evaluate one snapshot while one of
// them is killed (its context canceled) mid-way; every event reaches its
// account's endpoint exactly once, verified by the official Standard
// Webhooks library.
func TestFleet_ExactlyOnce(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, _ *statetest.Clock) {
		clock := statetest.NewClock(time.Now().UTC().Truncate(time.Second)) // receivers check timestamps
		var mu sync.Mutex
		got := map[string]int{}
		var bad []string
		secrets := map[string]string{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var msg struct {
				Data struct {
					RuleID string `json:"rule_id"`
				} `json:"data"`
			}
			json.Unmarshal(body, &msg)
			mu.Lock()
			defer mu.Unlock()
			wh, _ := standardwebhooks.NewWebhook(secrets[r.URL.Path])
			if err := wh.Verify(body, r.Header); err != nil {
				bad = append(bad, r.Header.Get("webhook-id")+": "+err.Error())
				return
			}
			got[r.URL.Path+" "+r.Header.Get("webhook-id")]++
		}))
		defer srv.Close()

		replicas := []*replica{newReplica(t, st, clock, "r1"), newReplica(t, st, clock, "r2"), newReplica(t, st, clock, "r3")}
		m := fixture()
		var want []string
		for a := range 3 {
			account := fmt.Sprintf("a_%d", a)
			_, secret, err := replicas[0].webhooks.Create(ctx, account, webhook.EndpointInput{URL: srv.URL + "/" + account}, webhook.Limits{Endpoints: 1})
			if err != nil {
				t.Fatal(err)
			}
			secrets["/"+account] = secret
			for i := range 8 {
				card := []string{"base1-2", "base1-15", "jungle-1", "jungle-2"}[i%4]
				target := 10.0 + float64(i) // fires when the card is at or below
				r := MustCreate(t, replicas[0].alerts, m, account, alert.Input{Game: "pokemon", CardID: card, Kind: alert.AtOrBelow, PriceUSD: &target})
				if 1200 <= int64(target*100) { // every card is at $12.00
					want = append(want, "/"+account+" "+alert.EventID("s1", r.ID, card))
				}
			}
		}
		for _, card := range []string{"base1-2", "base1-15", "jungle-1", "jungle-2"} {
			m.SetPrice("own", "pokemon", card, 0, nm, day0-1, 1200)
		}
		// r1 dies while evaluating its third chunk.
		killed, kill := context.WithCancel(ctx)
		dying := fixtureLike(m, func(n int) {
			if n == 7 {
				kill()
			}
		})
		if _, err := replicas[0].alerts.Evaluate(killed, dying, replicas[0].runner); !errors.Is(err, context.Canceled) {
			t.Fatalf("the killed replica: %v", err)
		}
		p, _ := sweep.Status(ctx, st, alert.JobID("s1"))
		if p.Done || p.Records == 0 {
			t.Fatalf("the killed replica's progress: %+v, want some chunks done", p)
		}
		// The other two evaluate at once: one does the rest, the other waits.
		var wg sync.WaitGroup
		for _, r := range replicas[1:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := r.alerts.Evaluate(ctx, m, r.runner); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		// Every replica delivers at once, until nothing is left.
		for range 3 {
			for _, r := range replicas {
				wg.Add(1)
				go func() { defer wg.Done(); r.webhooks.Deliver(ctx) }()
			}
			wg.Wait()
		}
		var keys []string
		for k, n := range got {
			keys = append(keys, k)
			if n != 1 {
				t.Errorf("%s delivered %d times", k, n)
			}
		}
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) || len(bad) > 0 {
			t.Fatalf("delivered %d events %v (not verified: %v), want %d %v", len(keys), keys, bad, len(want), want)
		}
		p, _ = sweep.Status(ctx, st, alert.JobID("s1"))
		if !p.Done || len(p.Holders) != 2 || p.Holders[0] != "r1" {
			t.Fatalf("progress %+v, want done by r1 then one other", p)
		}
	})
}

// fixtureLike wraps m so that onCall sees each of its Price calls.
func fixtureLike(m *alerttest.Market, onCall func(int)) alert.Market {
	return &counting{Market: m, onCall: onCall}
}

type counting struct {
	*alerttest.Market
	mu     sync.Mutex
	n      int
	onCall func(int)
}

func (c *counting) Price(source string, card *snapshots.Card, finish int, g snapshots.Grade, day snapshots.Day) (p pricing.SourcePrice, err error) {
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	c.onCall(n)
	return c.Market.Price(source, card, finish, g, day)
}
