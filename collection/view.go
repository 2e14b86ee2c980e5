package collection

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// ChangeDays is the span of a holding's change: its value now against its
// value ChangeDays ago (the 30-day change).
const ChangeDays = 30

// View is collection.v1: an owner's collection valued as of a snapshot.
type View struct {
	Owner      string       `json:"owner"` // account or key: whose collection it is
	SnapshotID string       `json:"snapshot_id"`
	AsOf       string       `json:"as_of"`
	Summary    Summary      `json:"summary"`
	Sort       string       `json:"sort"`
	Total      int          `json:"total"` // holdings of the selection (every page)
	Offset     int          `json:"offset"`
	Limit      int          `json:"limit"`
	Holdings   []HoldingRow `json:"holdings"`
	// History is the value of today's holdings on each day of the range:
	// the caller's history window, at most HistoryDays days back.
	History     []ValuePoint `json:"history"`
	HistoryFrom *string      `json:"history_from"`
	Imports     []ImportRow  `json:"imports"`
	Updated     *string      `json:"updated"`
	Basis       string       `json:"basis"`
}

// Summary is the whole collection (or game) at a glance.
type Summary struct {
	Holdings int `json:"holdings"` // card, printing and grade
	Cards    int `json:"cards"`
	Quantity int `json:"quantity"`
	// ValueUSD is the sum of the valued holdings; Unvalued counts the
	// others (no price at a confidence above none).
	ValueUSD float64 `json:"value_usd"`
	Unvalued int     `json:"unvalued_holdings"`
	// PaidUSD is what the copies with a price paid cost; GainUSD their
	// value less that (null when no valued copy has a price paid).
	PaidUSD float64  `json:"paid_usd"`
	GainUSD *float64 `json:"gain_usd"`
	// Change30dUSD is the change in value of the holdings valued both now
	// and 30 days ago; Change30dPct that against their value then.
	Change30dUSD *float64 `json:"change_30d_usd"`
	Change30dPct *float64 `json:"change_30d_pct"`

	valueCents, paidCents int64
}

// HoldingRow is one holding (card, printing and grade), valued.
type HoldingRow struct {
	Game     string `json:"game"`
	CardID   string `json:"card_id"`
	Name     string `json:"name"`
	SetID    string `json:"set_id"`
	SetName  string `json:"set_name"`
	Number   string `json:"number"`
	Language string `json:"language"`
	// Printing is the card's variant the copies are of ("" for a card
	// without variants); BasePrinting whether it is the card's base one.
	Printing     string `json:"printing"`
	BasePrinting bool   `json:"base_printing"`
	Grade        string `json:"grade"`
	GradeName    string `json:"grade_name"` // as people read it: PSA 10, Raw, near mint
	Quantity     int    `json:"quantity"`
	// PaidUSD is the total paid for PaidQuantity of the copies.
	PaidUSD      *float64 `json:"paid_usd"`
	PaidQuantity int      `json:"paid_quantity"`
	// FMVUSD is one copy's fair market value (the printing's and grade's
	// estimate), null at confidence none, with Note saying why.
	FMVUSD       *float64 `json:"fmv_usd"`
	ValueUSD     *float64 `json:"value_usd"`
	Confidence   string   `json:"confidence"`
	Flags        []string `json:"flags"`
	GainUSD      *float64 `json:"gain_usd"`
	Change30dUSD *float64 `json:"change_30d_usd"`
	Change30dPct *float64 `json:"change_30d_pct"`
	Added        *string  `json:"added"`
	Note         string   `json:"note,omitempty"`

	valueCents, thenCents, gainCents, paidCents int64
	valued, hasThen, hasGain                    bool
	finish                                      int
	known                                       bool // the card and printing are in the snapshot
	added                                       time.Time
}

// ValuePoint is the collection's value on one day.
type ValuePoint struct {
	Date     string  `json:"date"`
	ValueUSD float64 `json:"value_usd"`
}

// ImportRow is one confirmed import.
type ImportRow struct {
	ImportID    string `json:"import_id"`
	ConfirmedAt string `json:"confirmed_at"`
	Rows        int    `json:"rows"`
	Quantity    int    `json:"quantity"`
}

// Sorts of View's holdings.
var Sorts = []string{"value", "gain", "change_30d", "name", "quantity", "added"}

// ViewOptions select what View returns.
type ViewOptions struct {
	// Game keeps one game's holdings; "" keeps every game.
	Game string
	// Sort orders the holdings (one of Sorts; "" is value), highest first
	// but for name; ties by name, then card id, printing and grade.
	Sort string
	// Offset and Limit page the holdings; Limit 0 returns every one.
	Offset, Limit int
	// History asks for the value history from HistoryFrom (the first day
	// of the caller's history window, or further back) to the snapshot's
	// as_of, at most HistoryDays days.
	History     bool
	HistoryFrom snapshots.Day
}

// HistoryDays is the longest value history View returns.
const HistoryDays = 365

// View returns o's collection valued as of src. Storage errors wrapped.
func (s *Service) View(ctx context.Context, src *live.View, o Owner, opts ViewOptions) (*View, error) {
	coll, err := s.read(ctx, o)
	if err != nil {
		return nil, err
	}
	if opts.Game != "" {
		kept := coll.Holdings[:0:0]
		for _, h := range coll.Holdings {
			if h.Game == opts.Game {
				kept = append(kept, h)
			}
		}
		coll.Holdings = kept
	}
	val := valueCollection(src, &coll)
	sortRows(val.rows, opts.Sort)
	v := &View{Owner: o.Kind(), SnapshotID: src.Reader.Manifest().SnapshotID, AsOf: src.AsOf.String(), Summary: val.summary,
		Sort: cmp.Or(opts.Sort, "value"), Total: len(val.rows), Offset: opts.Offset, Limit: opts.Limit,
		History: []ValuePoint{}, Imports: []ImportRow{},
		Basis: "holdings merged by card, printing and grade; fmv_usd = the estimate of the holding's printing and grade as of the snapshot (null at confidence none: such holdings are unvalued); value_usd = fmv x quantity; gain_usd = value of the copies with a price paid less what they cost; change_30d compares the fmv now with the fmv 30 days before as_of; history values today's holdings at each day's fmv"}
	rows := val.rows
	if opts.Offset > 0 {
		rows = rows[min(opts.Offset, len(rows)):]
	}
	if opts.Limit > 0 && len(rows) > opts.Limit {
		rows = rows[:opts.Limit]
	}
	v.Holdings = append([]HoldingRow{}, rows...)
	if opts.History {
		from := max(opts.HistoryFrom, src.AsOf-HistoryDays+1)
		v.History = valueHistory(src, val.rows, from, src.AsOf)
		if len(v.History) > 0 {
			v.HistoryFrom = &v.History[0].Date
		}
	}
	for _, im := range coll.Imports {
		v.Imports = append(v.Imports, ImportRow{ImportID: im.ImportID, ConfirmedAt: im.ConfirmedAt.UTC().Format(time.RFC3339), Rows: im.Rows, Quantity: im.Quantity})
	}
	if !coll.Updated.IsZero() {
		u := coll.Updated.UTC().Format(time.RFC3339)
		v.Updated = &u
	}
	return v, nil
}

type valuation struct {
	rows    []HoldingRow
	summary Summary
}

// valueCollection values every holding of c as of src.
func valueCollection(src *live.View, c *collection) valuation {
	var v valuation
	cards := map[string]bool{}
	var gain, change, then int64
	var hasGain, hasChange bool
	for _, h := range c.Holdings {
		row := valueHolding(src, h, snapshots.NoDay)
		v.rows = append(v.rows, row)
		s := &v.summary
		s.Holdings++
		s.Quantity += h.Quantity
		s.paidCents += h.PaidCents
		cards[h.Game+"|"+strings.ToLower(h.CardID)] = true
		if !row.valued {
			s.Unvalued++
			continue
		}
		s.valueCents += row.valueCents
		if row.hasGain {
			gain += row.gainCents
			hasGain = true
		}
		if row.hasThen {
			change += row.valueCents - row.thenCents
			then += row.thenCents
			hasChange = true
		}
	}
	s := &v.summary
	s.Cards = len(cards)
	s.ValueUSD, s.PaidUSD = snapshots.USD(s.valueCents), snapshots.USD(s.paidCents)
	if hasGain {
		s.GainUSD = usd(gain)
	}
	if hasChange {
		s.Change30dUSD = usd(change)
		if then > 0 {
			s.Change30dPct = pct(change, then)
		}
	}
	return v
}

// valueHolding values h as of src (at as_of; day, when set, is ignored:
// reserved).
func valueHolding(src *live.View, h holding, _ snapshots.Day) HoldingRow {
	row := HoldingRow{Game: h.Game, CardID: h.CardID, Printing: h.Printing, Grade: h.Grade, GradeName: snapshots.GradeNameOf(h.Grade), Quantity: h.Quantity,
		PaidQuantity: h.PaidQuantity, Confidence: estimate.ConfidenceNone.String(), Flags: []string{}, added: h.Added}
	if h.PaidQuantity > 0 {
		row.PaidUSD, row.paidCents = usd(h.PaidCents), h.PaidCents
	}
	if !h.Added.IsZero() {
		a := h.Added.UTC().Format("2006-01-02")
		row.Added = &a
	}
	c, err := src.Reader.Card(h.Game, h.CardID)
	if err != nil {
		row.Note = "card " + h.CardID + " is not in this snapshot's catalog: not valued"
		return row
	}
	row.CardID, row.Name, row.Number, row.Language, row.SetID = c.ID, c.Name, c.Number, c.Language, c.SetID
	if set, err := src.Reader.Set(c.Game, c.SetID); err == nil {
		row.SetName = set.Name
	}
	finish, ok := printingIndex(c, h.Printing)
	if !ok {
		row.Note = "printing " + h.Printing + " is not one of the card's printings in this snapshot: not valued"
		return row
	}
	row.finish, row.known = finish, true
	if finish < len(c.Variants) {
		row.Printing = c.Variants[finish]
	}
	row.BasePrinting = finish == snapshots.BasePrinting(c)
	g, err := snapshots.ParseGrade(h.Grade)
	if err != nil {
		row.Note = "grade " + h.Grade + " cannot be read: not valued"
		return row
	}
	e, ok := estimateOf(src.Reader, c, finish, g)
	if !ok {
		row.Note = "no price series of this printing in " + g.Name() + ": no verified sale of it"
		return row
	}
	row.Confidence, row.Flags = e.Confidence.String(), pricing.FlagNames(e.Flags)
	if _, note := pricing.Shown(e); note != "" || e.FMVCents == 0 {
		row.Note = cmp.Or(note, "no value: no fmv")
		return row
	}
	row.valued, row.valueCents = true, e.FMVCents*int64(h.Quantity)
	row.FMVUSD, row.ValueUSD = usd(e.FMVCents), usd(row.valueCents)
	if h.PaidQuantity > 0 {
		row.hasGain, row.gainCents = true, e.FMVCents*int64(h.PaidQuantity)-h.PaidCents
		row.GainUSD = usd(row.gainCents)
	}
	if ps := seriesOf(src.Reader, c, finish, g); ps != nil {
		if fmv, ok := fmvAt(ps, src.AsOf-ChangeDays); ok {
			row.hasThen, row.thenCents = true, fmv*int64(h.Quantity)
			row.Change30dUSD = usd(row.valueCents - row.thenCents)
			row.Change30dPct = pct(row.valueCents-row.thenCents, row.thenCents)
		}
	}
	return row
}

// estimateOf is printing finish's estimate of grade g as of the snapshot
// (false when that grade has no series there).
func estimateOf(r snapshots.Reader, c *snapshots.Card, finish int, g snapshots.Grade) (snapshots.Estimate, bool) {
	e, ok, err := pricing.PrintingEstimate(r, c, finish, g)
	return e, ok && err == nil
}

// seriesOf is printing finish's price series of grade g (nil when none).
func seriesOf(r snapshots.Reader, c *snapshots.Card, finish int, g snapshots.Grade) *snapshots.PriceSeries {
	series, err := r.PrintingSeries(c.Game, c.ID, finish)
	if err != nil {
		return nil
	}
	for i := range series {
		if series[i].Grade == g {
			return &series[i]
		}
	}
	return nil
}

// maxAgeDays is how long a price stands after the last accepted sale behind
// it: past that, its confidence is none (estimate.Default's lowest level)
// and the holding is not valued.
var maxAgeDays = func() snapshots.Day {
	n := 0
	for _, l := range estimate.Default.Confidence {
		n = max(n, l.MaxAgeDays)
	}
	return snapshots.Day(n)
}()

// fmvAt is a series' fmv as of day d as a holding is valued: the point in
// force, unless its confidence was none or its last sale is more than
// maxAgeDays before d (the estimate's confidence none).
func fmvAt(ps *snapshots.PriceSeries, d snapshots.Day) (int64, bool) {
	p, ok := snapshots.PointAt(ps, d)
	if !ok || p.FMVCents == 0 || p.Confidence == estimate.ConfidenceNone || d-p.Day > maxAgeDays {
		return 0, false
	}
	return p.FMVCents, true
}

// valueHistory is the value of rows' holdings on each day from..to, each
// day's fmv (fmvAt) times the quantity: on as_of, the summary's value.
func valueHistory(src *live.View, rows []HoldingRow, from, to snapshots.Day) []ValuePoint {
	if from > to {
		return []ValuePoint{}
	}
	n := int(to-from) + 1
	diff := make([]int64, n+1)                 // diff[i] changes the value from day from+i on
	add := func(a, b snapshots.Day, v int64) { // v on days [a, b)
		a, b = max(a, from), min(b, to+1)
		if a < b && v != 0 {
			diff[a-from] += v
			diff[b-from] -= v
		}
	}
	priced := false
	for _, row := range rows {
		if !row.known {
			continue
		}
		c, err := src.Reader.Card(row.Game, row.CardID)
		if err != nil {
			continue
		}
		g, err := snapshots.ParseGrade(row.Grade)
		if err != nil {
			continue
		}
		ps := seriesOf(src.Reader, c, row.finish, g)
		if ps == nil {
			continue
		}
		priced = true
		for i, p := range ps.Points {
			end := to + 1
			if i+1 < len(ps.Points) {
				end = ps.Points[i+1].Day
			}
			if end <= from || p.Day > to || p.Confidence == estimate.ConfidenceNone {
				continue
			}
			add(p.Day, min(end, p.Day+maxAgeDays+1), p.FMVCents*int64(row.Quantity))
		}
	}
	if !priced {
		return []ValuePoint{}
	}
	out := make([]ValuePoint, 0, n)
	var v int64
	for i := 0; i < n; i++ {
		v += diff[i]
		out = append(out, ValuePoint{Date: (from + snapshots.Day(i)).String(), ValueUSD: snapshots.USD(v)})
	}
	return out
}

// sortRows orders rows by sort (Sorts).
func sortRows(rows []HoldingRow, sort string) {
	key := func(r *HoldingRow) int64 {
		switch sort {
		case "gain":
			return r.gainCents
		case "change_30d":
			if r.hasThen {
				return r.valueCents - r.thenCents
			}
			return 0
		case "quantity":
			return int64(r.Quantity)
		case "added":
			return r.added.Unix()
		case "name":
			return 0
		}
		return r.valueCents
	}
	slices.SortStableFunc(rows, func(a, b HoldingRow) int {
		if c := cmp.Compare(key(&b), key(&a)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.CardID, b.CardID),
			cmp.Compare(a.Printing, b.Printing), cmp.Compare(a.Grade, b.Grade))
	})
}

func usd(cents int64) *float64 {
	v := snapshots.USD(cents)
	return &v
}

// pct is a/b in percent, to two decimals; nil when b is 0 (a holding
// emptied by Remove: JSON has no NaN).
func pct(a, b int64) *float64 {
	if b == 0 {
		return nil
	}
	v := math.Round(float64(a)/float64(b)*10000) / 100
	return &v
}
