package pricing

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/jsonschema"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// QuoteRequest asks for quotes of some cards.
type QuoteRequest struct {
	// Game names the game; "" means the snapshot's first game, and card ids
	// of the other games are then recognized too.
	Game string
	// Refs are card ids, partner product ids or card names: one quote per
	// reference, in order. 1..MaxRefs.
	Refs []string
	// Grade is raw:<condition> or <grader>:<number>; "" quotes ungraded
	// (UngradedOrder).
	Grade string
	// Finish names the printing to quote (PrintingOf); "" quotes the card's
	// base printing. Every quote names its printing.
	Finish string
}

// Midprice describes the midprice a quote looked at for its grade: the
// fmv of the printing and grade (null at confidence none) and what stands
// behind it.
type Midprice struct {
	Status       string   `json:"status"`
	PriceUSD     *float64 `json:"price_usd"`
	Sales        int      `json:"sales_in_window"` // sample_size
	Window       int      `json:"window_days"`     // estimate.Default.SampleDays
	Basis        string   `json:"basis"`           // fmv
	SampleSize   int      `json:"sample_size"`
	LastSaleDate *string  `json:"last_sale_date"`
	Confidence   string   `json:"confidence"`
	Flags        []string `json:"flags"`
	// Source is where the fmv comes from (a source's file, observed sales
	// or synthetic), Synthetic whether it is synthesized.
	Source    string `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic bool   `json:"synthetic"`
	Note      string `json:"note,omitempty"`
}

// QuoteResult is the quote of one reference. Status is resolved, ambiguous
// or not_found. A resolved quote always carries label, price_usd and
// price_basis (label and price_usd null when nothing could be priced); an
// ambiguous one carries candidates.
type QuoteResult struct {
	Ref        string
	Status     string
	ResolvedBy string
	Card       *snapshots.Card
	SetName    string
	Grade      string   // the grade quoted (or the last tried when none priced)
	Tried      []string // grades tried, in order
	// GradeBasis says why the quote is of its grade: asked for, said in
	// the reference's words, or tried first because no grade was given
	// (UngradedGradeBasis).
	GradeBasis string
	// Finish is the printing quoted (an index into the card's variants; -1
	// when the finish asked for is not one of the card's printings).
	Finish      int
	FinishAsked string
	Price       *Price // nil when nothing could be priced
	Mid         *Midprice
	Candidates  []resolve.Candidate
	Message     string
	// Understood is what a free-text reference said besides the card
	// (resolve.Read): the grade and printing it named are the ones quoted.
	Understood *resolve.Understood
}

type quoteJSON struct {
	Ref        string   `json:"ref"`
	Status     string   `json:"status"`
	ResolvedBy string   `json:"resolved_by"`
	Game       string   `json:"game"`
	CardID     string   `json:"card_id"`
	Name       string   `json:"name"`
	SetID      string   `json:"set_id"`
	SetName    string   `json:"set_name"`
	Number     string   `json:"number"`
	Language   string   `json:"language"`
	Grade      string   `json:"grade"`
	GradeName  string   `json:"grade_name"`
	GradeBasis string   `json:"grade_basis"`
	Finish     *string  `json:"finish"`
	BaseFinish bool     `json:"base_finish"`
	Label      *string  `json:"label"`
	PriceUSD   *float64 `json:"price_usd"`
	PriceDate  *string  `json:"price_date"`
	PriceBasis string   `json:"price_basis"`
	// Source is where price_usd comes from (null when nothing was priced),
	// Synthetic whether it is synthesized.
	Source    *string   `json:"source" enum:"tcgplayer,cardmarket,pricecharting,observed,synthetic"`
	Synthetic bool      `json:"synthetic"`
	Midprice  *Midprice `json:"midprice"`
	Tried     []string  `json:"grades_tried"`
	Message   string    `json:"message,omitempty"`
	// Understood says how a free-text reference was read.
	Understood *resolve.Understood `json:"understood,omitempty"`
	// MarketIDs are the card's printings at the marketplaces.
	MarketIDs []snapshots.MarketLink `json:"market_ids"`
}

type unresolvedJSON struct {
	Ref        string              `json:"ref"`
	Status     string              `json:"status"`
	Candidates []resolve.Candidate `json:"candidates,omitempty"`
	Message    string              `json:"message,omitempty"`
	Understood *resolve.Understood `json:"understood,omitempty"`
}

// JSONSchema describes the JSON of a quote (for the OpenAPI document and
// the MCP quote tool's output schema): a resolved quote, or an unresolved
// reference with its candidates and message.
func (QuoteResult) JSONSchema() map[string]any {
	return map[string]any{"anyOf": []any{jsonschema.For[quoteJSON](), jsonschema.For[unresolvedJSON]()}}
}

// MarshalJSON writes a resolved quote with every price field (nulls
// included) and an unresolved one with its candidates and message only.
func (q QuoteResult) MarshalJSON() ([]byte, error) {
	if q.Status != resolve.Resolved || q.Card == nil {
		return json.Marshal(unresolvedJSON{Ref: q.Ref, Status: q.Status, Candidates: q.Candidates, Message: q.Message, Understood: q.Understood})
	}
	c := q.Card
	j := quoteJSON{
		Ref: q.Ref, Status: q.Status, ResolvedBy: q.ResolvedBy, Game: c.Game, CardID: c.ID, Name: c.Name, SetID: c.SetID,
		SetName: q.SetName, Number: c.Number, Language: c.Language, Grade: q.Grade, GradeName: snapshots.GradeNameOf(q.Grade),
		GradeBasis: q.GradeBasis, Midprice: q.Mid, Tried: q.Tried, Message: q.Message, Understood: q.Understood, MarketIDs: snapshots.MarketLinks(c),
	}
	if q.Finish >= 0 {
		j.Finish, j.BaseFinish = strOrNil(PrintingName(c, q.Finish)), q.Finish == snapshots.BasePrinting(c)
	} else if q.FinishAsked != "" {
		j.Finish = &q.FinishAsked
	}
	if p := q.Price; p != nil {
		label, usd, day := p.Label, snapshots.USD(p.Cents), p.Day.String()
		j.Label, j.PriceUSD, j.PriceDate, j.PriceBasis = &label, &usd, &day, p.Basis
		j.Source, j.Synthetic = &p.Origin.Source, p.Origin.Synthetic
	} else {
		j.PriceBasis = "no price: no usable midprice, verified sale or current ask for " + strings.Join(gradeNames(q.Tried), " or ")
		if j.Finish != nil {
			j.PriceBasis += " in printing " + *j.Finish
		}
	}
	return json.Marshal(j)
}

// Quote resolves each reference and quotes the cards it resolves (see the
// package doc for the rule). Errors: EINVALID for a bad grade, an unknown
// game, no references or more than MaxRefs; otherwise only the context's or
// storage errors. A finish a card does not have is not an error of the call:
// that card's quote has no price and says why in message.
func Quote(ctx context.Context, src *live.View, req QuoteRequest) ([]QuoteResult, error) {
	game, explicit, err := src.Game(req.Game)
	if err != nil {
		return nil, err
	}
	if _, err := QuoteGrades(req.Grade); err != nil {
		return nil, err
	}
	if len(req.Refs) == 0 {
		return nil, apperr.Errorf(apperr.EINVALID, "give at least one card id, partner product id or card name")
	}
	rs, err := resolve.ResolveAll(ctx, src, game, explicit, req.Refs)
	if err != nil {
		return nil, err
	}
	return QuoteResolutions(ctx, src, rs, req.Grade, req.Finish)
}

// QuoteGrades returns the grades a quote tries: the one grade named, or
// UngradedOrder for "". A bad grade is EINVALID.
func QuoteGrades(grade string) ([]snapshots.Grade, error) {
	if strings.TrimSpace(grade) == "" {
		return UngradedOrder, nil
	}
	g, err := snapshots.ReadGrade(grade)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "%v", err)
	}
	return []snapshots.Grade{g}, nil
}

// QuoteResolutions quotes references already resolved with ResolveAll (a
// caller that charges for the resolved cards first resolves once).
func QuoteResolutions(ctx context.Context, src *live.View, rs []resolve.Resolution, grade, finish string) ([]QuoteResult, error) {
	grades, err := QuoteGrades(grade)
	if err != nil {
		return nil, err
	}
	out := make([]QuoteResult, len(rs))
	type key struct {
		card          *snapshots.Card
		grade, finish string
	}
	done := map[key]QuoteResult{}
	for i, r := range rs {
		if r.Status != resolve.Resolved {
			out[i] = QuoteResult{Ref: r.Ref, Status: r.Status, Candidates: r.Candidates, Message: r.Message, Understood: r.Understood}
			continue
		}
		// A free-text reference's own words (resolve.Read) give the grade
		// and the printing when the call does not: "PSA 10 ... 1st
		// edition". A printing the card has not is left out, and said.
		gs, f, note := grades, finish, ""
		basis := GradeAsked
		if strings.TrimSpace(grade) == "" {
			basis = GradeUngraded
		}
		if u := r.Understood; u != nil {
			if strings.TrimSpace(grade) == "" && u.Grade != "" {
				if g, err := snapshots.ParseGrade(u.Grade); err == nil {
					gs, basis = []snapshots.Grade{g}, GradeSaid
				}
			}
			if strings.TrimSpace(finish) == "" && u.Finish != "" {
				if _, err := PrintingOf(r.Card, u.Finish); err == nil {
					f = u.Finish
				} else {
					note = "printing " + u.Finish + " not found among this card's printings; its base printing is quoted"
				}
			}
		}
		k := key{r.Card, gradesKey(gs), f}
		if q, ok := done[k]; ok {
			q.Ref, q.ResolvedBy, q.Understood = r.Ref, r.ResolvedBy, r.Understood
			q.GradeBasis = GradeBasisOf(basis, q, r.Understood)
			out[i] = q
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q, err := QuoteCard(src, r.Card, gs, f)
		if err != nil {
			return nil, err
		}
		q.Ref, q.ResolvedBy, q.Understood = r.Ref, r.ResolvedBy, r.Understood
		q.GradeBasis = GradeBasisOf(basis, q, r.Understood)
		if note != "" && q.Message == "" {
			q.Message = note
		}
		if r.Message != "" { // how it was found (another game's card: resolve.Resolve)
			q.Message = strings.TrimPrefix(r.Message+"; "+q.Message, "; ")
			q.Message = strings.TrimSuffix(q.Message, "; ")
		}
		done[k] = q
		out[i] = q
	}
	return out, nil
}

// How a quote's grade was chosen (GradeBasisOf).
const (
	GradeAsked    = "asked"    // the call's grade
	GradeSaid     = "said"     // the reference's own words ("PSA 10 ...")
	GradeUngraded = "ungraded" // no grade: UngradedOrder
)

// GradeBasisOf says why quote q is of its grade, chosen by how (GradeAsked,
// GradeSaid or GradeUngraded; u: the reference's words, when read).
func GradeBasisOf(how string, q QuoteResult, u *resolve.Understood) string {
	name := snapshots.GradeNameOf(q.Grade)
	switch how {
	case GradeAsked:
		return name + ": the grade asked for"
	case GradeSaid:
		said := ""
		if u != nil && u.GradeSaid != "" {
			said = " (\"" + u.GradeSaid + "\")"
		}
		return name + ": the grade the words said" + said
	}
	top, raw := UngradedOrder[0].Name(), UngradedOrder[len(UngradedOrder)-1].Name()
	basis := "no grade was given, so the quote answers at the top grade first, " + top + " (the top grade of the top grader: the price a card's best copies sell at, " +
		"the grade collectors compare cards by), then " + raw + "; "
	switch {
	case q.Price == nil:
		basis += "neither had a price"
	case q.Grade == UngradedOrder[0].String():
		basis += top + " had a price"
	default:
		basis += top + " had none, so " + name + " is quoted"
	}
	return basis + ". Add a grade (grade=raw, grade=psa9, or say it: \"raw charizard\") to quote another"
}

// gradeNames are the names of grade codes (snapshots.GradeNameOf).
func gradeNames(codes []string) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = snapshots.GradeNameOf(c)
	}
	return out
}

func gradesKey(gs []snapshots.Grade) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString(g.String())
		b.WriteByte(',')
	}
	return b.String()
}

// QuoteCard quotes card c over grades in order (one grade, or
// UngradedOrder) in the printing finish names ("" for the base printing;
// PrintingOf).
func QuoteCard(src *live.View, c *snapshots.Card, grades []snapshots.Grade, finish string) (QuoteResult, error) {
	q := QuoteResult{Status: resolve.Resolved, Card: c}
	if s, err := src.Reader.Set(c.Game, c.SetID); err == nil {
		q.SetName = s.Name
	}
	for _, g := range grades {
		q.Tried = append(q.Tried, g.String())
	}
	q.Grade = q.Tried[len(q.Tried)-1]
	f, err := PrintingOf(c, finish)
	if err != nil {
		q.Message = apperr.ErrorMessage(err)
		q.Finish, q.FinishAsked = -1, strings.TrimSpace(finish)
		return q, nil
	}
	q.Finish = f
	cm, err := LoadCardMarket(src.Reader, c, src.AsOf)
	if err != nil {
		return q, err
	}
	markets := make([]Market, len(grades))
	for i, g := range grades {
		markets[i] = cm.Market(g, f)
	}
	last := markets[len(markets)-1]
	if p, ok := Choose(markets); ok {
		q.Price, q.Grade = &p, p.Grade.String()
		for _, m := range markets {
			if m.Grade == p.Grade {
				last = m
			}
		}
	}
	q.Mid = NewMidprice(last)
	return q, nil
}

// NewMidprice describes the midprice of market m.
func NewMidprice(m Market) *Midprice {
	e := m.Estimate
	mid := &Midprice{Status: m.MidStatus, PriceUSD: snapshots.USDOrNil(m.MidCents), Sales: m.MidSales, Window: estimate.Default.SampleDays, Basis: "fmv",
		SampleSize: int(e.SampleSize), LastSaleDate: LastSaleDate(e), Confidence: e.Confidence.String(), Flags: FlagNames(e.Flags),
		Source: m.MidOrigin.Source, Synthetic: m.MidOrigin.Synthetic}
	if m.MidCents == 0 {
		mid.Note = NoteNone(e)
	}
	return mid
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
