package collection_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/sweep"
)

// pricedCards returns n cards of the tiny snapshot with a raw near-mint fmv
// of their base printing, from sets with more than one card.
func pricedCards(t *testing.T, n int) []*snapshots.Card {
	t.Helper()
	cards, err := src.Reader.Cards("pokemon")
	if err != nil {
		t.Fatal(err)
	}
	var out []*snapshots.Card
	for _, c := range cards {
		if c.PriceCents > 0 && len(out) < n {
			out = append(out, c)
		}
	}
	if len(out) < n {
		t.Fatalf("%d priced cards, want %d", len(out), n)
	}
	return out
}

func MustRunner(tb testing.TB, st state.Store, clock *statetest.Clock) *sweep.Runner {
	tb.Helper()
	r, err := sweep.New(sweep.Options{State: st, Chunk: 2, Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestService_Record: the value recorded at a snapshot is the collection
// view's, per source; a second snapshot of another day adds a point; the
// history is the owner's only; deleting it leaves nothing.
func TestService_Record(t *testing.T) {
	ctx := context.Background()
	s, clock := newService(t)
	st := stores[t.Name()]
	a1, a2 := collection.AccountOwner("a_1"), collection.AccountOwner("a_2")
	for i, c := range pricedCards(t, 4) {
		o := a1
		if i == 3 {
			o = a2
		}
		if _, err := s.Add(ctx, src, o, collection.Change{Game: c.Game, CardID: c.ID, Quantity: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Add(ctx, src, a1, collection.Change{Game: "pokemon", CardID: pricedCards(t, 1)[0].ID, Grade: "slab:10", Quantity: 1}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Record(ctx, src, MustRunner(t, st, clock), collection.RecordOptions{Sources: []string{"own", "observed"}})
	if err != nil || !p.Done || p.Records != 2 {
		t.Fatalf("record: %+v %v", p, err)
	}
	h, err := s.History(ctx, a1, snapshots.NoDay)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.View(ctx, src, a1, collection.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].Date != src.AsOf.String() || h[0].SnapshotID != "s0001" || h[0].Holdings != 4 || h[0].Quantity != 7 || len(h[0].Sources) != 2 {
		t.Fatalf("history %+v", h)
	}
	own := h[0].Sources[0]
	if own.Source != "own" || own.ValueUSD != v.Summary.ValueUSD || own.Unvalued != v.Summary.Unvalued {
		t.Errorf("own %+v, the view's summary %+v", own, v.Summary)
	}
	sum := 0.0
	for conf, usd := range own.ByConfidenceUSD {
		if conf == collection.Unrated {
			t.Errorf("own prices rated %s", conf)
		}
		sum += usd
	}
	if d := sum - own.ValueUSD; d > 0.001 || d < -0.001 {
		t.Errorf("by confidence adds to %v, value %v", sum, own.ValueUSD)
	}
	if obs := h[0].Sources[1]; obs.Source != "observed" || obs.Valued == 0 || obs.ByConfidenceUSD[collection.Unrated] != obs.ValueUSD {
		t.Errorf("observed %+v", obs)
	}
	// The same snapshot again (as if on another day): its job is done, so
	// nothing is recorded twice.
	next := live.NewView(src.Reader, src.Index, nil)
	next.AsOf = src.AsOf + 1
	clock.Advance(24 * time.Hour)
	if _, err := s.Record(ctx, next, MustRunner(t, st, clock), collection.RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	h, _ = s.History(ctx, a1, src.AsOf+1)
	if len(h) != 0 {
		t.Fatalf("a done job recorded again: %+v", h)
	}
	if h2, _ := s.History(ctx, a2, snapshots.NoDay); len(h2) != 1 || h2[0].Holdings != 1 {
		t.Fatalf("a2 history %+v", h2)
	}
	if err := st.Update(ctx, func(tx state.Tx) error { return collection.DeleteHistory(tx, "a_1") }); err != nil {
		t.Fatal(err)
	}
	st.View(ctx, func(tx state.Tx) error {
		return tx.Scan(state.CollectionHistory, state.ScanOptions{}, func(k string, _ []byte) error {
			if strings.HasPrefix(k, "a_1/") {
				t.Errorf("left: %s", k)
			}
			return nil
		})
	})
	if h2, _ := s.History(ctx, a2, snapshots.NoDay); len(h2) != 1 {
		t.Fatalf("a2's history went with a1's: %+v", h2)
	}
}

// TestService_Completion: owned printings against the set's, and the cost
// of the missing ones.
func TestService_Completion(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	c := pricedCards(t, 1)[0]
	if _, err := s.Add(ctx, src, a(), collection.Change{Game: c.Game, CardID: c.ID, Quantity: 3}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Completion(ctx, src, a(), "", snapshots.RawNearMint)
	if err != nil {
		t.Fatal(err)
	}
	cards, _ := src.Reader.SetCards(c.Game, c.SetID)
	printings := 0
	for _, sc := range cards {
		printings += sc.Printings()
	}
	if len(got) != 1 || got[0].SetID != c.SetID || got[0].Owned != 1 || got[0].Printings != printings || got[0].Missing != printings-1 {
		t.Fatalf("completion %+v, want 1 of %d printings of %s", got, printings, c.SetID)
	}
	if got[0].CostUSD <= 0 || got[0].Missing < got[0].Unpriced {
		t.Errorf("cost %+v", got[0])
	}
}

func a() collection.Owner { return collection.AccountOwner("a_9") }

func TestNewHistory(t *testing.T) {
	pts := []collection.HistoryPoint{{}}
	for _, c := range []struct {
		name string
		from snapshots.Day
		want string
	}{
		{"Unlimited", snapshots.NoDay, ""},
		{"From", snapshots.DayOf(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)), "2024-03-01"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := collection.NewHistory(pts, c.from)
			if h.From != c.want || len(h.Points) != 1 {
				t.Errorf("got %+v, want from %q and the one point", h, c.want)
			}
		})
	}
}
