package alert_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/alert/alerttest"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep/sweeptest"
)

var (
	ctx   = context.Background()
	t0    = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	day0  = snapshots.Day(t0.Unix() / 86400)
	nm    = snapshots.RawNearMint
	lim   = alert.Limits{Rules: 100, SetRules: 5}
	price = func(v float64) *float64 { return &v }
)

// stores runs fn against a bbolt store and a Redis store (skipped without
// redis-server), each with a settable clock.
func stores(t *testing.T, fn func(t *testing.T, st state.Store, clock *statetest.Clock)) {
	for _, open := range []struct {
		name string
		open func(testing.TB, *statetest.Clock) state.Store
	}{{"bolt", openBolt}, {"redis", openRedis}} {
		t.Run(open.name, func(t *testing.T) {
			clock := statetest.NewClock(t0)
			fn(t, open.open(t, clock), clock)
		})
	}
}

// openBolt is a checked bbolt store over a new state file of tb's, on
// clock.
func openBolt(tb testing.TB, clock *statetest.Clock) state.Store {
	return statetest.MustOpenPath(tb, tb.TempDir()+"/state.bolt", statebolt.Options{Now: clock.Now})
}

// openRedis is a store over a new redis-server (tb skipped without one), on
// clock, closed when tb ends.
func openRedis(tb testing.TB, clock *statetest.Clock) state.Store {
	srv := redistest.Start(tb, false)
	st, err := stateredis.Open(srv.URL(), stateredis.Options{Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func MustService(tb testing.TB, st state.Store, clock *statetest.Clock, onEvent func(state.Tx, alert.Event) error) *alert.Service {
	tb.Helper()
	s, err := alert.New(alert.Options{State: st, Now: clock.Now, OnEvent: onEvent})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func MustCreate(tb testing.TB, s *alert.Service, m alert.Market, account string, in alert.Input) alert.Rule {
	tb.Helper()
	r, err := s.Create(ctx, m, account, in, lim)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// fixture is a market of five cards in two sets.
func fixture() *alerttest.Market {
	m := alerttest.New("s1", day0)
	m.AddCard("pokemon", "base1", "base1-4", "Charizard", "holo/unlimited", "holo/1st-edition")
	m.AddCard("pokemon", "base1", "base1-2", "Blastoise")
	m.AddCard("pokemon", "base1", "base1-15", "Venusaur")
	m.AddCard("pokemon", "jungle", "jungle-1", "Clefable")
	m.AddCard("pokemon", "jungle", "jungle-2", "Electrode")
	return m
}

// fired returns the events' card ids and rules, sorted: "rule:card".
func fired(evs []alert.Event, names map[string]string) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, names[e.RuleID]+":"+e.CardID)
	}
	slices.Sort(out)
	return out
}

// TestService_Evaluate: snapshots in a row fire exactly the expected
// alerts, once per crossing; a snapshot that changes nothing fires none.
func TestService_Evaluate(t *testing.T) {
	stores(t, func(t *testing.T, st state.Store, clock *statetest.Clock) {
		m := fixture()
		var handed []string
		s := MustService(t, st, clock, func(_ state.Tx, e alert.Event) error { handed = append(handed, e.ID); return nil })
		names := map[string]string{}
		add := func(name string, in alert.Input) {
			names[MustCreate(t, s, m, "a_1", in).ID] = name
		}
		// Prices before the rules: base1-4's 1st edition at $120, base1-2 at $30,
		// base1-15 at $10 seven days ago, $10.50 today.
		m.SetPrice("own", "pokemon", "base1-4", 1, nm, day0-30, 12000)
		m.SetPrice("own", "pokemon", "base1-2", 0, nm, day0-30, 3000)
		m.SetPrice("own", "pokemon", "base1-15", 0, nm, day0-10, 1000)
		m.SetPrice("own", "pokemon", "base1-15", 0, nm, day0, 1050)
		m.SetActivity("pokemon", "jungle-1", 0, nm, alert.Activity{Listings: 1, LowAskCents: 500}) // listed before the rule
		add("below", alert.Input{Game: "pokemon", CardID: "BASE1-4", Printing: "1st edition", Kind: alert.AtOrBelow, PriceUSD: price(100)})
		add("above", alert.Input{Game: "pokemon", CardID: "base1-2", Kind: alert.AtOrAbove, PriceUSD: price(25)})
		add("move", alert.Input{Game: "pokemon", CardID: "base1-15", Kind: alert.Move, Pct: price(10), Days: 7, Direction: "up"})
		add("listing", alert.Input{Game: "pokemon", SetID: "jungle", Kind: alert.FirstListing})
		add("sale", alert.Input{Game: "pokemon", CardID: "jungle-2", Kind: alert.FirstSale, Want: true, Quantity: 2})
		add("wantlist", alert.Input{Game: "pokemon", CardID: "base1-4", Want: true, Note: "any price"})
		add("partner", alert.Input{Game: "pokemon", CardID: "base1-2", Source: "partner", Kind: alert.AtOrBelow, PriceUSD: price(50)})

		steps := []struct {
			name   string
			change func()
			want   []string
		}{
			{"s1", func() {}, []string{"above:base1-2"}}, // already above: fires at the first evaluation
			{"s2", func() {
				m.SetPrice("own", "pokemon", "base1-4", 1, nm, day0+1, 9900)                                         // crosses below
				m.SetPrice("own", "pokemon", "base1-2", 0, nm, day0+1, 3100)                                         // stays above
				m.SetPrice("own", "pokemon", "base1-15", 0, nm, day0+1, 1200)                                        // +20% over 7 days
				m.SetActivity("pokemon", "jungle-2", 0, nm, alert.Activity{Sales: 1, Listings: 1, LowAskCents: 700}) // listed, sold
			}, []string{"below:base1-4", "listing:jungle-2", "move:base1-15", "sale:jungle-2"}},
			{"s3", func() {}, []string{}}, // nothing crossed again
			{"s4", func() {
				m.SetPrice("own", "pokemon", "base1-2", 0, nm, day0+3, 2000)  // back below 25: re-armed
				m.SetPrice("own", "pokemon", "base1-4", 1, nm, day0+3, 0)     // no price: keeps its state
				m.SetActivity("pokemon", "jungle-1", 0, nm, alert.Activity{}) // unlisted: re-armed
			}, []string{}},
			{"s5", func() {
				m.SetPrice("own", "pokemon", "base1-2", 0, nm, day0+4, 2600)                               // above again
				m.SetPrice("own", "pokemon", "base1-4", 1, nm, day0+4, 9800)                               // still below: no new crossing
				m.SetActivity("pokemon", "jungle-1", 0, nm, alert.Activity{Listings: 2, LowAskCents: 400}) // listed again
			}, []string{"above:base1-2", "listing:jungle-1"}},
		}
		seen := 0
		for i, step := range steps {
			step.change()
			m.Next(step.name, day0+snapshots.Day(i))
			clock.Advance(time.Hour)
			rep, err := s.Evaluate(ctx, m, sweeptest.MustRunner(t, st, "r", clock, 3))
			if err != nil {
				t.Fatal(err)
			}
			evs, _, err := s.Events(ctx, "a_1", 500, "")
			if err != nil {
				t.Fatal(err)
			}
			fresh := evs[:len(evs)-seen]
			seen = len(evs)
			if got := fired(fresh, names); !slices.Equal(got, step.want) {
				t.Fatalf("%s fired %v, want %v", step.name, got, step.want)
			}
			if rep.Fired != len(step.want) || rep.Rules != 7 {
				t.Fatalf("%s report: %+v", step.name, rep)
			}
		}
		if len(handed) != seen {
			t.Fatalf("OnEvent got %d events, want %d", len(handed), seen)
		}
		// The same snapshot again: done, nothing new.
		if _, err := s.Evaluate(ctx, m, sweeptest.MustRunner(t, st, "other", clock, 3)); err != nil {
			t.Fatal(err)
		}
		if evs, _, _ := s.Events(ctx, "a_1", 500, ""); len(evs) != seen {
			t.Fatalf("evaluating s5 again: %d events, want %d", len(evs), seen)
		}
	})
}

func TestService_EvaluateEvent(t *testing.T) {
	clock := statetest.NewClock(t0)
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	s := MustService(t, st, clock, nil)
	m := fixture()
	m.SetPrice("own", "pokemon", "base1-4", 1, nm, day0, 9900)
	r := MustCreate(t, s, m, "a_1", alert.Input{Game: "pokemon", CardID: "base1-4", Printing: "1st edition", Kind: alert.AtOrBelow, PriceUSD: price(100)})
	if _, err := s.Evaluate(ctx, m, sweeptest.MustRunner(t, st, "r", clock, 3)); err != nil {
		t.Fatal(err)
	}
	evs, _, _ := s.Events(ctx, "a_1", 10, "")
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	e := evs[0]
	if got, want := e.ID, alert.EventID("s1", r.ID, "base1-4"); got != want {
		t.Errorf("id %s, want %s", got, want)
	}
	if got, want := e.Summary, "Charizard (base1-4, holo/1st-edition, Raw, near mint) is $99.00 (own), at or below $100.00"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := string(e.Payload()); !strings.Contains(got, `"price_usd":99`) || !strings.Contains(got, `"rule_id":"`+r.ID+`"`) {
		t.Errorf("payload %s", got)
	}
}

func TestService_Create(t *testing.T) {
	clock := statetest.NewClock(t0)
	st := statetest.MustOpenPath(t, t.TempDir()+"/s.bolt", statebolt.Options{Now: clock.Now})
	s := MustService(t, st, clock, nil)
	m := fixture()
	r := MustCreate(t, s, m, "a_1", alert.Input{Game: "pokemon", CardID: "BASE1-4", Printing: "1st edition", Grade: "slab 10", Kind: alert.AtOrAbove, PriceUSD: price(1000.004)})
	if got, want := fmt.Sprint(r.CardID, " ", r.Printing, " ", r.Grade, " ", r.Source, " ", r.Condition.TargetCents), "base1-4 holo/1st-edition slab:10 own 100000"; got != want {
		t.Errorf("rule %s, want %s", got, want)
	}
	for _, tc := range []struct {
		name string
		in   alert.Input
		lim  alert.Limits
		code string
	}{
		{"ErrCard", alert.Input{Game: "pokemon", CardID: "nope-1", Kind: alert.FirstSale}, lim, apperr.ENOTFOUND},
		{"ErrSet", alert.Input{Game: "pokemon", SetID: "nope", Kind: alert.FirstSale}, lim, apperr.ENOTFOUND},
		{"ErrPrinting", alert.Input{Game: "pokemon", CardID: "base1-4", Printing: "reverse", Kind: alert.FirstSale}, lim, apperr.EINVALID},
		{"ErrTier", alert.Input{Game: "pokemon", CardID: "base1-4", Kind: alert.FirstSale}, alert.Limits{}, apperr.EFORBIDDEN},
		{"ErrTierSet", alert.Input{Game: "pokemon", SetID: "base1", Kind: alert.FirstSale}, alert.Limits{Rules: 5}, apperr.EFORBIDDEN},
		{"ErrFull", alert.Input{Game: "pokemon", CardID: "base1-4", Kind: alert.FirstSale}, alert.Limits{Rules: 1}, apperr.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Create(ctx, m, "a_1", tc.in, tc.lim)
			if got := apperr.ErrorCode(err); got != tc.code {
				t.Fatalf("code %s (%v), want %s", got, err, tc.code)
			}
		})
	}
	// Replace resets; Delete removes; Get of another account's rule is not found.
	r2, err := s.Replace(ctx, m, "a_1", r.ID, alert.Input{Game: "pokemon", CardID: "base1-2", Kind: alert.FirstSale}, lim)
	if err != nil || r2.ID != r.ID || r2.CardID != "base1-2" || !r2.Updated.After(r.Updated) {
		t.Fatalf("replace: %+v %v", r2, err)
	}
	if _, err := s.Get(ctx, "a_2", r.ID); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("another account's rule: %v", err)
	}
	if err := s.Delete(ctx, "a_1", r.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a_1", r.ID); apperr.ErrorCode(err) != apperr.ENOTFOUND {
		t.Fatalf("delete twice: %v", err)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     alert.Input
		fields []string // named by the errors, in order; nil: valid
	}{
		{"OK", alert.Input{Game: "pokemon", CardID: "x-1", Kind: alert.AtOrBelow, PriceUSD: price(1)}, nil},
		{"OKWant", alert.Input{Game: "pokemon", SetID: "x", Want: true}, nil},
		{"OKMove", alert.Input{Game: "pokemon", CardID: "x-1", Kind: alert.Move, Pct: price(5), Days: 30}, nil},
		{"ErrNothing", alert.Input{}, []string{"game", "card_id", "kind"}},
		{"ErrBoth", alert.Input{Game: "pokemon", CardID: "a", SetID: "b", Kind: alert.FirstSale}, []string{"set_id"}},
		{"ErrPrice", alert.Input{Game: "pokemon", CardID: "a", Kind: alert.AtOrAbove, PriceUSD: price(-1)}, []string{"price_usd"}},
		{"ErrNoPrice", alert.Input{Game: "pokemon", CardID: "a", Kind: alert.AtOrAbove}, []string{"price_usd"}},
		{"ErrMove", alert.Input{Game: "pokemon", CardID: "a", Kind: alert.Move, Pct: price(0), Days: 3, Direction: "sideways"}, []string{"pct", "days", "direction"}},
		{"ErrKind", alert.Input{Game: "pokemon", CardID: "a", Kind: "cheaper"}, []string{"kind"}},
		{"ErrGrade", alert.Input{Game: "pokemon", CardID: "a", Grade: "shiny", Kind: alert.FirstSale}, []string{"grade"}},
		{"ErrSource", alert.Input{Game: "pokemon", CardID: "a", Source: "Card Market", Kind: alert.FirstSale}, []string{"source"}},
		{"ErrQuantity", alert.Input{Game: "pokemon", CardID: "a", Kind: alert.FirstSale, Quantity: 2}, []string{"quantity"}},
		{"ErrExtra", alert.Input{Game: "pokemon", CardID: "a", Kind: alert.FirstSale, PriceUSD: price(3)}, []string{"price_usd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := alert.Check(tc.in, nil)
			var fe apperr.FieldErrors
			if tc.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want FieldErrors", err)
			}
			var got []string
			for _, f := range fe {
				got = append(got, fmt.Sprint(f.Loc[len(f.Loc)-1]))
			}
			if !slices.Equal(got, tc.fields) {
				t.Fatalf("fields %v, want %v (%v)", got, tc.fields, err)
			}
		})
	}
	if _, err := alert.Check(alert.Input{Game: "pokemon", CardID: "a", Source: "tcgplayer", Kind: alert.FirstSale}, []string{"own"}); err == nil {
		t.Fatal("a source not in the list: no error")
	}
}

func TestParseInput(t *testing.T) {
	in, err := alert.ParseInput([]byte(`{"game":"pokemon","card_id":"base1-4","kind":"at_or_below","price_usd":12.5}`))
	if err != nil || *in.PriceUSD != 12.5 {
		t.Fatalf("%+v %v", in, err)
	}
	for _, body := range []string{``, `[]`, `{"game":1}`, `{"colour":"red"}`, `{} {}`, strings.Repeat(" ", alert.MaxInputSize+1)} {
		if _, err := alert.ParseInput([]byte(body)); apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("ParseInput(%.20q): %v, want EINVALID", body, err)
		}
	}
}

func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		`{"game":"pokemon","card_id":"base1-4","kind":"at_or_below","price_usd":12.5}`,
		`{"game":"pokemon","set_id":"base1","kind":"move","pct":10,"days":7,"direction":"down"}`,
		`{"game":"pokemon","card_id":"x","want":true,"quantity":3,"note":"hi"}`,
		`{"price_usd":1e400}`, `{"pct":-0}`, `{"grade":"PSA 9.5"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := alert.ParseInput(body)
		if err != nil {
			if apperr.ErrorCode(err) != apperr.EINVALID {
				t.Fatalf("ParseInput error %v is not EINVALID", err)
			}
			return
		}
		r, err := alert.Check(in, nil)
		if err != nil {
			if apperr.ErrorCode(err) != apperr.EINVALID {
				t.Fatalf("Check error %v is not EINVALID", err)
			}
			return
		}
		if (r.CardID == "") == (r.SetID == "") || r.Grade == "" || r.Source == "" {
			t.Fatalf("valid rule without a target: %+v", r)
		}
		if k := r.Condition.Kind; k == alert.AtOrBelow || k == alert.AtOrAbove {
			if r.Condition.TargetCents <= 0 {
				t.Fatalf("target %d", r.Condition.TargetCents)
			}
		}
	})
}
