package collection

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/sweep"
)

// HistoryTTL is how long a collection's value at a snapshot is kept.
const HistoryTTL = 800 * 24 * time.Hour

// history is the table of collection histories: "<owner id>/<as_of>" ->
// the collection's value at that snapshot.
var history = state.NewTable[historyRecord](state.CollectionHistory)

// Unrated is the confidence of a price whose source rates none.
const Unrated = "unrated"

// historyRecord is a collection's value at one snapshot.
type historyRecord struct {
	SnapshotID string        `json:"snapshot_id"`
	Holdings   int           `json:"holdings"`
	Quantity   int           `json:"quantity"`
	Sources    []sourceValue `json:"sources"`
}

type sourceValue struct {
	Source     string `json:"source"`
	ValueCents int64  `json:"value_cents"`
	Valued     int    `json:"valued"`
	Unvalued   int    `json:"unvalued"`
	// ByConfidence splits the value by the confidence of the price behind
	// it: an estimate's (high, medium, low), or Unrated.
	ByConfidence map[string]int64 `json:"by_confidence"`
}

// HistoryPoint is a collection's value at one snapshot (GET
// /api/v3/me/collection/history).
type HistoryPoint struct {
	Date       string        `json:"date"` // the snapshot's as_of
	SnapshotID string        `json:"snapshot_id"`
	Holdings   int           `json:"holdings"`
	Quantity   int           `json:"quantity"`
	Sources    []SourceValue `json:"sources"`
}

// SourceValue is a collection's value by one source's prices.
type SourceValue struct {
	Source   string  `json:"source"`
	ValueUSD float64 `json:"value_usd"` // the valued holdings
	Valued   int     `json:"valued_holdings"`
	Unvalued int     `json:"unvalued_holdings"`
	// ByConfidenceUSD splits the value by the confidence of the price
	// behind it (high, medium, low; unrated for sources without one).
	ByConfidenceUSD map[string]float64 `json:"by_confidence_usd"`
}

// Prices is a source's price of a card, printing and grade on a day: what
// the live snapshot's view offers (alert.Market's Price; pricing.PriceAt
// over a reader).
type Prices interface {
	Price(source string, c *snapshots.Card, finish int, g snapshots.Grade, day snapshots.Day) (pricing.SourcePrice, error)
}

// readerPrices is Prices over a snapshot's reader (pricing.PriceAt).
type readerPrices struct {
	r    snapshots.Reader
	asOf snapshots.Day
}

func (p readerPrices) Price(source string, c *snapshots.Card, finish int, g snapshots.Grade, day snapshots.Day) (pricing.SourcePrice, error) {
	return pricing.PriceAt(p.r, source, c, finish, g, p.asOf, day)
}

// RecordOptions configure Record.
type RecordOptions struct {
	// Sources are the sources valued; nil means own (the headline fmv).
	Sources []string
	// Prices prices holdings; nil means pricing.PriceAt over src's reader
	// (any of pricing.PriceSources).
	Prices Prices
}

// HistoryJobID is the id of the recording of snapshot snapshotID (package
// sweep).
func HistoryJobID(snapshotID string) string { return "history/" + snapshotID }

// Record values every collection at the snapshot src, per source, and
// keeps each value as the collection's point of the snapshot's day (a later
// snapshot of the same day replaces it): once per snapshot across a fleet,
// chunk by chunk at run's pace, resumed where a process that died left it.
func (s *Service) Record(ctx context.Context, src *live.View, run *sweep.Runner, o RecordOptions) (sweep.Progress, error) {
	if o.Sources == nil {
		o.Sources = []string{pricing.SourceOwn}
	}
	if o.Prices == nil {
		o.Prices = readerPrices{src.Reader, src.AsOf}
	}
	id := src.ID()
	date := src.AsOf.String()
	job := sweep.Job{ID: HistoryJobID(id), Bucket: state.Collections, Visit: func(_ context.Context, chunk sweep.Chunk) (func(state.Tx) error, error) {
		type point struct {
			key string
			rec historyRecord
		}
		var points []point
		for _, r := range chunk.Records {
			var c collection
			if err := json.Unmarshal(r.Value, &c); err != nil {
				return nil, fmt.Errorf("%w: %s %q: %v", state.ErrCorrupt, state.Collections, r.Key, err)
			}
			points = append(points, point{r.Key + "/" + date, valueAt(src, o, id, &c)})
		}
		return func(tx state.Tx) error {
			for _, p := range points {
				if err := history.Put(tx, p.key, p.rec, HistoryTTL); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}}
	p, err := run.Run(ctx, job)
	if err != nil {
		return p, fmt.Errorf("collection: record the value at %s: %w", id, err)
	}
	return p, nil
}

// valueAt values c at the snapshot src by each source of o.
func valueAt(src *live.View, o RecordOptions, snapshotID string, c *collection) historyRecord {
	rec := historyRecord{SnapshotID: snapshotID, Holdings: len(c.Holdings)}
	for _, source := range o.Sources {
		rec.Sources = append(rec.Sources, sourceValue{Source: source, ByConfidence: map[string]int64{}})
	}
	for _, h := range c.Holdings {
		rec.Quantity += h.Quantity
		card, err := src.Reader.Card(h.Game, h.CardID)
		var finish int
		ok := err == nil
		if ok {
			finish, ok = printingIndex(card, h.Printing)
		}
		g, err := snapshots.ParseGrade(h.Grade)
		ok = ok && err == nil
		for i, source := range o.Sources {
			sv := &rec.Sources[i]
			var p pricing.SourcePrice
			if ok {
				p, err = o.Prices.Price(source, card, finish, g, src.AsOf)
			}
			if !ok || err != nil || p.Cents <= 0 {
				sv.Unvalued++
				continue
			}
			v := p.Cents * int64(h.Quantity)
			sv.Valued++
			sv.ValueCents += v
			conf := Unrated
			if p.Estimate != nil {
				conf = p.Estimate.Confidence.String()
			}
			sv.ByConfidence[conf] += v
		}
	}
	return rec
}

// History returns o's collection's value at each recorded snapshot from
// day from on (snapshots.NoDay: every one kept), oldest first.
func (s *Service) History(ctx context.Context, o Owner, from snapshots.Day) ([]HistoryPoint, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var out []HistoryPoint
	err := s.state.View(ctx, func(tx state.Tx) error {
		var err error
		out, err = readHistory(tx, o.id(), from)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("collection: read the history of %s: %w", o.id(), err)
	}
	return out, nil
}

// readHistory reads the points of owner id from day from on in tx.
func readHistory(tx state.Tx, id string, from snapshots.Day) ([]HistoryPoint, error) {
	out := []HistoryPoint{}
	err := history.Scan(tx, state.ScanOptions{Prefix: id + "/"}, func(k string, r historyRecord) error {
		date := strings.TrimPrefix(k, id+"/")
		if d, err := snapshots.ParseDay(date); err != nil || (from != snapshots.NoDay && d < from) {
			return nil
		}
		p := HistoryPoint{Date: date, SnapshotID: r.SnapshotID, Holdings: r.Holdings, Quantity: r.Quantity, Sources: []SourceValue{}}
		for _, sv := range r.Sources {
			v := SourceValue{Source: sv.Source, ValueUSD: snapshots.USD(sv.ValueCents), Valued: sv.Valued, Unvalued: sv.Unvalued, ByConfidenceUSD: map[string]float64{}}
			for c, cents := range sv.ByConfidence {
				v.ByConfidenceUSD[c] = snapshots.USD(cents)
			}
			p.Sources = append(p.Sources, v)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// ExportHistory returns the history of the owner whose id is ownerID (an
// account's or a key's), read in tx: the account's data export.
func ExportHistory(tx state.Tx, ownerID string) ([]HistoryPoint, error) {
	return readHistory(tx, ownerID, snapshots.NoDay)
}

// DeleteHistory deletes the history of the owner whose id is ownerID, in
// tx: the account's deletion calls it in its own transaction.
func DeleteHistory(tx state.Tx, ownerID string) error {
	if ownerID == "" || strings.Contains(ownerID, "/") {
		return apperr.Errorf(apperr.EINTERNAL, "collection: no owner")
	}
	var keys []string
	if err := history.Scan(tx, state.ScanOptions{Prefix: ownerID + "/"}, func(k string, _ historyRecord) error {
		keys = append(keys, k)
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := history.Delete(tx, k); err != nil {
			return err
		}
	}
	return nil
}

// SetCompletion is how much of one set a collection holds (a printing held
// in any grade counts), and what the rest costs.
type SetCompletion struct {
	Game      string  `json:"game"`
	SetID     string  `json:"set_id"`
	SetName   string  `json:"set_name"`
	Printings int     `json:"printings"` // the set's printings: each card's variants
	Owned     int     `json:"owned"`
	Pct       float64 `json:"pct"`
	Missing   int     `json:"missing"`
	// CostUSD prices the missing printings at today's fmv of Grade;
	// Unpriced counts those without one (not in the cost).
	CostUSD   float64 `json:"cost_to_complete_usd"`
	Unpriced  int     `json:"unpriced"`
	Grade     string  `json:"grade"`
	GradeName string  `json:"grade_name"` // as people read it: PSA 10, Raw, near mint
}

// Completion returns, for each set o's collection holds a card of (of game,
// or every game for ""), the printings held against the set's, and the cost
// of the missing ones in grade g at the snapshot src's fmv; most complete
// first.
func (s *Service) Completion(ctx context.Context, src *live.View, o Owner, game string, g snapshots.Grade) ([]SetCompletion, error) {
	coll, err := s.read(ctx, o)
	if err != nil {
		return nil, err
	}
	owned := map[string]bool{} // game|lower card id|finish
	sets := map[[2]string]bool{}
	for _, h := range coll.Holdings {
		if game != "" && h.Game != game {
			continue
		}
		c, err := src.Reader.Card(h.Game, h.CardID)
		if err != nil {
			continue
		}
		f, ok := printingIndex(c, h.Printing)
		if !ok {
			continue
		}
		owned[fmt.Sprintf("%s|%s|%d", c.Game, strings.ToLower(c.ID), f)] = true
		sets[[2]string{c.Game, c.SetID}] = true
	}
	out := []SetCompletion{}
	for k := range sets {
		cards, err := src.Reader.SetCards(k[0], k[1])
		if err != nil {
			continue
		}
		sc := SetCompletion{Game: k[0], SetID: k[1], Grade: g.String(), GradeName: g.Name()}
		if set, err := src.Reader.Set(k[0], k[1]); err == nil {
			sc.SetID, sc.SetName = set.ID, set.Name
		}
		var cost int64
		for _, c := range cards {
			for f := range c.Printings() {
				sc.Printings++
				if owned[fmt.Sprintf("%s|%s|%d", c.Game, strings.ToLower(c.ID), f)] {
					sc.Owned++
					continue
				}
				sc.Missing++
				p, err := pricing.Own(src.Reader, c, f, g, src.AsOf)
				if err != nil || p.Cents <= 0 {
					sc.Unpriced++
					continue
				}
				cost += p.Cents
			}
		}
		if sc.Printings > 0 {
			sc.Pct = float64(int(float64(sc.Owned)/float64(sc.Printings)*1000+0.5)) / 10
		}
		sc.CostUSD = snapshots.USD(cost)
		out = append(out, sc)
	}
	slices.SortFunc(out, func(a, b SetCompletion) int {
		if a.Pct != b.Pct {
			if a.Pct > b.Pct {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Game+"|"+a.SetID, b.Game+"|"+b.SetID)
	})
	return out, nil
}

// History is collection-history.v1: the values recorded from a day on.
type History struct {
	// Points are the recorded values, oldest first: one per snapshot day.
	Points []HistoryPoint `json:"points"`
	// From is the first day read (the tier's window; "" when unlimited
	// and not given).
	From string `json:"from"`
}

// NewHistory is the points read from a day on (snapshots.NoDay: from the
// first).
func NewHistory(points []HistoryPoint, from snapshots.Day) History {
	out := History{Points: points}
	if from != snapshots.NoDay {
		out.From = from.String()
	}
	return out
}

// Completion is collection-completion.v1: set completion at a snapshot.
type Completion struct {
	AsOf       string          `json:"as_of"`
	SnapshotID string          `json:"snapshot_id"`
	Sets       []SetCompletion `json:"sets"`
}
