package builder

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// TestAccumulator_HistoryStep: a source's daily numbers over 400 days keep
// one point a day for the last DailyDays days, one a week (the week's
// last) up to WeeklyDays days and one a month (the month's last) before;
// the price series made of them keeps the changes and the last point; the
// partner feed rows cover the last FeedRowDays days.
func TestAccumulator_HistoryStep(t *testing.T) {
	asOf, err := snapshots.ParseDay("2026-11-20") // a Friday
	if err != nil {
		t.Fatal(err)
	}
	moving := &snapshots.Card{Game: "pokemon", ID: "en:base1-4", Name: "Charizard"}
	flat := &snapshots.Card{Game: "pokemon", ID: "en:base1-2", Name: "Blastoise"}
	acc := newAccumulator(asOf)
	const days = 400
	for d := asOf - days + 1; d <= asOf; d++ {
		obs := []source.Observation{
			{Source: source.TCGplayer, Card: moving, Grade: snapshots.RawNearMint, Day: d, Field: "market", Amount: int64(d), Currency: "USD", Product: "42382", Match: source.MatchID},
			{Source: source.TCGplayer, Card: flat, Grade: snapshots.RawNearMint, Day: d, Field: "market", Amount: 500, Currency: "USD", Product: "42380", Match: source.MatchID},
		}
		if dropped := acc.add(source.TCGplayer, d, obs, nil); len(dropped) != 0 {
			t.Fatalf("day %s: dropped %v", d, dropped)
		}
	}
	// The kept days: every day of the last DailyDays; before, the last day
	// of each week (Sunday) or month, or the last day of its zone.
	var want []snapshots.Day
	for d := asOf - days + 1; d <= asOf; d++ {
		age := int(asOf - d)
		next := d + 1
		switch {
		case age < DailyDays:
			want = append(want, d)
		case age == DailyDays || age == WeeklyDays:
			want = append(want, d) // the last of its zone
		case age < WeeklyDays && next.Time().Weekday() == 1:
			want = append(want, d)
		case age > WeeklyDays && next.Time().Day() == 1:
			want = append(want, d)
		}
	}
	markets := acc.markets([]*snapshots.Card{moving, flat}, []*loadedSource{{in: source.Input{Source: source.TCGplayer}}})
	m := markets[moving]
	if len(m.Sources.History) != 1 {
		t.Fatalf("history %+v", m.Sources.History)
	}
	var got []snapshots.Day
	for _, p := range m.Sources.History[0].Points {
		got = append(got, p.Day)
		if p.Cents != int64(p.Day) {
			t.Errorf("point of %s holds the number of day %d", p.Day, p.Cents)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept days (-want +got):\n%s", diff)
	}
	var series []snapshots.Day
	for _, p := range m.Prices[0].Points {
		series = append(series, p.Day)
	}
	if diff := cmp.Diff(want, series); diff != "" {
		t.Errorf("price series days (-want +got):\n%s", diff)
	}
	var feed []snapshots.Day
	for _, s := range m.Sales {
		if s.Flags&snapshots.SalePriceFeed != 0 {
			feed = append(feed, s.Day)
		}
	}
	if len(feed) != FeedRowDays || feed[0] != asOf || feed[len(feed)-1] != asOf-FeedRowDays+1 {
		t.Errorf("feed rows on %v, want the last %d days, newest first", feed, FeedRowDays)
	}

	// A price that never moves: its history keeps every kept day, its
	// price series the first point and the last.
	f := markets[flat]
	if n := len(f.Sources.History[0].Points); n != len(want) {
		t.Errorf("flat history: %d points, want %d", n, len(want))
	}
	pts := f.Prices[0].Points
	if len(pts) != 2 || pts[0].Day != want[0] || pts[1].Day != asOf || pts[1].FMVCents != 500 {
		t.Errorf("flat price series %+v, want its first point and the last", pts)
	}
}
