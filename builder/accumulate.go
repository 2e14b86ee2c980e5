package builder

import (
	"sort"
	"strconv"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/ecb"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// How much history a snapshot keeps of the sources (docs/real-data.md,
// "History at scale"): each source's headline series, and the price series
// and partner feed rows made of them, have one point a day for the last
// DailyDays days up to as_of, one a calendar week (Monday to Sunday) up to
// WeeklyDays days before as_of, and one a calendar month before: the
// latest of its day, week or month. A price series made of a feed keeps
// only the points where its price changes, and its last (a day without a
// point keeps the previous point's values). The partner feed rows
// (SalePriceFeed) cover the last FeedRowDays days only. Sold listings
// (observed sales) are kept whole.
const (
	DailyDays   = 30
	WeeklyDays  = 182
	FeedRowDays = 7
)

// week numbers the calendar weeks, Monday to Sunday (day 0, 1970-01-01,
// was a Thursday).
func week(d snapshots.Day) int { return (int(d) + 3) / 7 }

// historyBucket returns the bucket of a source's point of day d in a
// snapshot as of asOf: of the points of one bucket only the latest is
// kept. Its day in the daily days, its week in the weekly ones, its month
// before (the zone in the high bits keeps the buckets of zones apart).
func historyBucket(d, asOf snapshots.Day) int64 {
	switch age := int(asOf - d); {
	case age < DailyDays:
		return int64(d)
	case age < WeeklyDays:
		return 1<<40 | int64(week(d))
	}
	t := d.Time()
	return 2<<40 | int64(t.Year())*12 + int64(t.Month())
}

// accumulator gathers the sources' observations, day after day (each
// source's days oldest first), into each card's compact market: the newest
// day's quotes per source, the headline fields' daily history, the
// observed sales. Only one day of a source is in memory at a time.
type accumulator struct {
	asOf  snapshots.Day
	cards map[*snapshots.Card]*cardAcc
}

type histKey struct {
	source, field string
	finish        uint8
	grade         snapshots.Grade
}

// cardAcc is one card's accumulated market: a few series and sources, so
// slices searched in order (a card's observations come together).
type cardAcc struct {
	history  []keyedSeries
	quotes   []provQuotes
	sales    []snapshots.Sale
	saleSeen map[string]bool
}

type keyedSeries struct {
	key histKey
	s   *snapshots.SourceSeries
}

// provQuotes are one provenance's quotes of its newest day with the card.
type provQuotes struct {
	prov   string
	day    snapshots.Day
	quotes []snapshots.Quote
}

func newAccumulator(asOf snapshots.Day) *accumulator {
	return &accumulator{asOf: asOf, cards: map[*snapshots.Card]*cardAcc{}}
}

func (a *accumulator) card(c *snapshots.Card) *cardAcc {
	ca := a.cards[c]
	if ca == nil {
		ca = &cardAcc{}
		a.cards[c] = ca
	}
	return ca
}

// series returns the card's series of k (nil when none).
func (ca *cardAcc) series(k histKey) *snapshots.SourceSeries {
	for i := range ca.history {
		if ca.history[i].key == k {
			return ca.history[i].s
		}
	}
	return nil
}

// quotesOf returns the card's quotes of provenance prov, added when none.
func (ca *cardAcc) quotesOf(prov string) *provQuotes {
	for i := range ca.quotes {
		if ca.quotes[i].prov == prov {
			return &ca.quotes[i]
		}
	}
	ca.quotes = append(ca.quotes, provQuotes{prov: prov})
	return &ca.quotes[len(ca.quotes)-1]
}

// Reasons an observation is dropped while accumulating (counted in its
// day's report).
const (
	dropAfterAsOf = "observation after as_of"
	dropNoRates   = "no --rates to convert the currency"
	dropNoRate    = "no ECB rate for the day"
	dropDuplicate = "duplicate observation"
)

// add files one day's observations of source src; it returns the
// observations it dropped, by reason.
func (a *accumulator) add(src string, day snapshots.Day, obs []source.Observation, rates *ecb.Rates) map[string]int {
	dropped := map[string]int{}
	prov := provenanceName(src)
	var last *snapshots.Card
	var ca *cardAcc
	for i := range obs {
		o := &obs[i]
		if o.Day > a.asOf {
			dropped[dropAfterAsOf]++
			continue
		}
		conv := ecb.Conversion{USDCents: o.Amount, Amount: o.Amount, Currency: o.Currency, Rate: 1}
		if o.Currency != "USD" {
			if rates == nil {
				dropped[dropNoRates+" "+o.Currency]++
				continue
			}
			var err error
			if conv, err = rates.ToUSD(o.Amount, o.Currency, o.Day); err != nil {
				dropped[dropNoRate]++
				continue
			}
		}
		if o.Card != last {
			last, ca = o.Card, a.card(o.Card)
		}
		finish := uint8(o.Finish)
		if o.Field == source.FieldSale {
			key := o.Day.String() + "|" + strconv.FormatInt(o.Amount, 10) + "|" + o.Currency + "|" + o.Title + "|" + o.URL
			if ca.saleSeen == nil {
				ca.saleSeen = map[string]bool{}
			}
			if ca.saleSeen[key] {
				dropped[dropDuplicate]++
				continue
			}
			ca.saleSeen[key] = true
			ca.sales = append(ca.sales, snapshots.Sale{Day: o.Day, PriceCents: conv.USDCents, Marketplace: o.Marketplace,
				TradeType: o.TradeType, Grade: o.Grade, Confidence: o.Confidence, Finish: finish})
			continue
		}
		pq := ca.quotesOf(prov)
		if day > pq.day {
			pq.day, pq.quotes = day, pq.quotes[:0]
		}
		if day == pq.day {
			pq.quotes = append(pq.quotes, snapshots.Quote{Source: prov, Finish: finish, Grade: o.Grade, Field: o.Field, Day: o.Day,
				Cents: conv.USDCents, Amount: conv.Amount, Currency: conv.Currency, Rate: conv.Rate, RateDay: conv.RateDay,
				Product: o.Product, Match: o.Match})
		}
		if !headline(src, o.Field) {
			continue
		}
		k := histKey{prov, o.Field, finish, o.Grade}
		s := ca.series(k)
		if s == nil {
			s = &snapshots.SourceSeries{Source: prov, Field: o.Field, Finish: finish, Grade: o.Grade, Currency: conv.Currency}
			ca.history = append(ca.history, keyedSeries{k, s})
		}
		n := len(s.Points)
		if n > 0 && s.Points[n-1].Day >= o.Day {
			dropped[dropDuplicate]++ // two products of one printing: the first keeps the day
			continue
		}
		p := snapshots.SourcePoint{Day: o.Day, Cents: conv.USDCents, Amount: conv.Amount, RateDay: conv.RateDay}
		if n > 0 && historyBucket(s.Points[n-1].Day, a.asOf) == historyBucket(o.Day, a.asOf) {
			s.Points[n-1] = p // the later point of its week or month
			continue
		}
		s.Points = append(s.Points, p)
	}
	for k, n := range dropped {
		if n == 0 {
			delete(dropped, k)
		}
	}
	return dropped
}

// markets makes each card's CardMarket from what was accumulated.
func (a *accumulator) markets(cards []*snapshots.Card, loaded []*loadedSource) map[*snapshots.Card]*CardMarket {
	stale := map[string]bool{}
	for _, ls := range loaded {
		stale[provenanceName(ls.in.Source)] = ls.status.Stale
	}
	out := make(map[*snapshots.Card]*CardMarket, len(a.cards))
	for _, c := range cards {
		ca := a.cards[c]
		if ca == nil {
			continue
		}
		cs := &snapshots.CardSources{}
		provs := append([]provQuotes(nil), ca.quotes...)
		sort.SliceStable(provs, func(i, j int) bool { return seriesPriority(provs[i].prov) < seriesPriority(provs[j].prov) })
		for _, pq := range provs {
			for _, q := range pq.quotes {
				q.Stale = stale[pq.prov]
				cs.Quotes = append(cs.Quotes, q)
			}
		}
		sort.SliceStable(cs.Quotes, func(i, j int) bool {
			x, y := &cs.Quotes[i], &cs.Quotes[j]
			if x.Finish != y.Finish {
				return x.Finish < y.Finish
			}
			return x.Grade < y.Grade
		})
		keyed := append([]keyedSeries(nil), ca.history...)
		sort.Slice(keyed, func(i, j int) bool {
			x, y := keyed[i].key, keyed[j].key
			if x.finish != y.finish {
				return x.finish < y.finish
			}
			if x.grade != y.grade {
				return x.grade < y.grade
			}
			if seriesPriority(x.source) != seriesPriority(y.source) {
				return seriesPriority(x.source) < seriesPriority(y.source)
			}
			return x.field < y.field
		})
		cm := &CardMarket{Sources: cs}
		type pg struct {
			finish uint8
			grade  snapshots.Grade
		}
		chosen := map[pg]*snapshots.SourceSeries{}
		var order []pg
		for _, ks := range keyed {
			k, s := ks.key, ks.s
			cs.History = append(cs.History, *s)
			g := pg{k.finish, k.grade}
			best, ok := chosen[g]
			if !ok {
				order = append(order, g)
			}
			if !ok || betterSeries(s, best, a.asOf) {
				chosen[g] = s
			}
			if k.source == snapshots.SourceTCGplayer && k.field == "market" {
				for _, p := range s.Points {
					if p.Day <= a.asOf-FeedRowDays {
						continue
					}
					cm.Sales = append(cm.Sales, snapshots.Sale{Day: p.Day, PriceCents: p.Cents, Marketplace: snapshots.MarketPartner,
						TradeType: snapshots.TradeFixedPrice, Grade: k.grade, Confidence: snapshots.ConfExact, Flags: snapshots.SalePriceFeed, Finish: k.finish})
				}
			}
		}
		for _, g := range order {
			s := chosen[g]
			ps := snapshots.PriceSeries{Grade: g.grade, Points: make([]snapshots.PricePoint, 0, len(s.Points))}
			for i, p := range s.Points {
				// A feed's point is the source's number of the day: fmv,
				// tvwap and median alike; no sales behind it that the
				// feed counts. Only changes are kept, and the last point
				// (how fresh the feed is).
				if n := len(ps.Points); n > 0 && ps.Points[n-1].FMVCents == p.Cents && i < len(s.Points)-1 {
					continue
				}
				ps.Points = append(ps.Points, snapshots.PricePoint{Day: p.Day, FMVCents: p.Cents, TVWAPCents: p.Cents, MedianCents: p.Cents,
					Confidence: estimate.ConfidenceMedium})
			}
			cm.Prices = append(cm.Prices, SuppliedSeries{Finish: g.finish, PriceSeries: ps, Source: s.Source, Field: s.Field})
		}
		cm.Sales = append(cm.Sales, ca.sales...)
		sort.SliceStable(cm.Sales, func(i, j int) bool { return cm.Sales[i].Day > cm.Sales[j].Day })
		if len(cm.Sales) > maxSalesPerCard {
			cm.Sales = cm.Sales[:maxSalesPerCard] // the newest
		}
		out[c] = cm
	}
	return out
}

// betterSeries reports whether s should make a price series rather than
// cur: a fresh series (its last point at most snapshots.StaleAfterDays
// before asOf) over a stale one; among fresh ones the higher priority
// (TCGplayer, Cardmarket, PriceCharting); among stale ones the later last
// point, then the priority.
func betterSeries(s, cur *snapshots.SourceSeries, asOf snapshots.Day) bool {
	last := func(x *snapshots.SourceSeries) snapshots.Day {
		if len(x.Points) == 0 {
			return 0
		}
		return x.Points[len(x.Points)-1].Day
	}
	fs, fc := estimate.Default.SourceFresh(int(asOf-last(s))), estimate.Default.SourceFresh(int(asOf-last(cur)))
	if fs != fc {
		return fs
	}
	ps, pc := seriesPriority(s.Source), seriesPriority(cur.Source)
	if !fs && last(s) != last(cur) {
		return last(s) > last(cur)
	}
	return ps < pc
}
