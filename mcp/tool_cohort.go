package mcp

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// cohortOut is a cohort in tool results.
type cohortOut struct {
	Cohort
	Size   int                 `json:"size"`
	Active bool                `json:"active"`
	Cards  []resolve.Candidate `json:"cards,omitempty"`
}

// pinOut is pin_cohort's data.
type pinOut struct {
	Cohort      cohortOut    `json:"cohort"`
	Unresolved  []unresolved `json:"unresolved"`
	FilteredOut int          `json:"filtered_out"`
	Next        string       `json:"next"`
}

// getCohortOut is get_cohort's data.
type getCohortOut struct {
	Cohort cohortOut `json:"cohort"`
}

// rankOut is rank_set_sales' data.
type rankOut struct {
	Game                string       `json:"game"`
	Source              CohortSource `json:"source"`
	Window              rankWindow   `json:"window"`
	CardsScanned        int          `json:"cards_scanned"`
	GradedSalesInWindow int          `json:"graded_sales_in_window"`
	Items               []rankRow    `json:"items"`
	Basis               string       `json:"basis"`
	ResultHandle        *string      `json:"result_handle"`
}

// rankWindow is the window rank_set_sales ranked, and how the key's history
// window clamped it.
type rankWindow struct {
	Name                   string `json:"name" enum:"ytd,90d,365d"`
	From                   string `json:"from"`
	To                     string `json:"to"`
	RowsFrom               string `json:"rows_from"`
	ClampedByHistoryWindow bool   `json:"clamped_by_history_window"`
	HistoryDays            int    `json:"history_days,omitempty"`
	Note                   string `json:"note,omitempty"`
}

// ---- pin_cohort ----

type pinArgs struct {
	Name         string   `json:"name"`
	IDs          []string `json:"ids"`
	SetID        string   `json:"set_id"`
	ResultHandle string   `json:"result_handle"`
	Era          string   `json:"era"`
	Rarity       string   `json:"rarity"`
	Game         string   `json:"game"`
}

func (s *Server) toolPinCohort(t *toolCall) (any, error) {
	var a pinArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	sel, err := t.selectCards(cardSource{IDs: a.IDs, SetID: a.SetID, ResultHandle: a.ResultHandle, Era: a.Era, Rarity: a.Rarity, Game: a.Game},
		"ids", "set_id", "result_handle")
	if err != nil {
		return nil, err
	}
	if len(sel.cards) == 0 {
		return nil, apperr.Errorf(apperr.EINVALID, "nothing to pin: no card left (%d unresolved, %d filtered out by era or rarity)", len(sel.unresolved), sel.filteredOut)
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		switch sel.source.Kind {
		case "set":
			name = "set " + sel.source.SetID
		case "result":
			name = "result " + a.ResultHandle
		default:
			name = fmt.Sprintf("%d cards", len(sel.cards))
		}
	}
	c, err := s.cohorts.pin(t.call.caller.KeyID, sel.game, name, sel.source, cardIDs(sel.cards))
	if err != nil {
		return nil, err
	}
	s.sessions.setCohort(t.session(), c.Handle)
	return pinOut{Cohort: cohortOut{Cohort: c, Size: len(c.IDs), Active: t.session() != ""},
		Unresolved: jsontext.NonNil(sel.unresolved), FilteredOut: sel.filteredOut,
		Next: "pass cohort_handle to batch_grade_ladder, rank_set_sales or get_cohort"}, nil
}

// ---- get_cohort ----

type getCohortArgs struct {
	CohortHandle string `json:"cohort_handle"`
	IncludeCards bool   `json:"include_cards"`
}

func (s *Server) toolGetCohort(t *toolCall) (any, error) {
	var a getCohortArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	active := s.sessions.activeCohort(t.session())
	h := strings.TrimSpace(a.CohortHandle)
	if h == "" {
		if active == "" {
			return nil, apperr.Errorf(apperr.ENOTFOUND, "no cohort is active in this session: pin one with pin_cohort (or compare_set_finish), or pass cohort_handle")
		}
		h = active
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	c, err := s.cohorts.get(t.call.caller.KeyID, h)
	if err != nil {
		return nil, err
	}
	out := cohortOut{Cohort: c, Size: len(c.IDs), Active: h == active}
	if a.IncludeCards {
		for _, id := range c.IDs {
			if card, err := t.snap.Reader.Card(c.Game, id); err == nil {
				out.Cards = append(out.Cards, resolve.NewCandidate(t.snap.Reader, card))
			}
		}
	}
	return getCohortOut{Cohort: out}, nil
}

// ---- rank_set_sales ----

type rankArgs struct {
	SetID        string   `json:"set_id"`
	CohortHandle string   `json:"cohort_handle"`
	Window       string   `json:"window"`
	Limit        int      `json:"limit"`
	Grader       string   `json:"grader"`
	MinGrade     *float64 `json:"min_grade"`
	Rarity       string   `json:"rarity"`
	Finish       string   `json:"finish"`
	Game         string   `json:"game"`
}

type rankRow struct {
	Rank        int     `json:"rank"`
	CardID      string  `json:"card_id"`
	Name        string  `json:"name"`
	SetID       string  `json:"set_id"`
	Number      string  `json:"number"`
	Grade       string  `json:"grade"`
	GradeName   string  `json:"grade_name"`
	PriceUSD    float64 `json:"price_usd"`
	SaleDate    string  `json:"sale_date"`
	Marketplace string  `json:"marketplace"`
	TradeType   string  `json:"trade_type"`
	Finish      *string `json:"finish"`
	SaleID      string  `json:"sale_id"`

	cents int64
	day   snapshots.Day
}

// rankWindowStart returns the first day of a rank window ending at asOf.
func rankWindowStart(asOf snapshots.Day, window string) snapshots.Day {
	switch window {
	case "ytd":
		t := asOf.Time()
		return snapshots.DayOf(time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC))
	case "365d":
		return asOf - 364
	}
	return asOf - 89
}

func (s *Server) toolRankSetSales(t *toolCall) (any, error) {
	var a rankArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	if a.Window == "" {
		a.Window = "90d"
	}
	if a.Limit == 0 {
		a.Limit = RankDefaultLimit
	}
	if a.MinGrade != nil && (*a.MinGrade < 1 || *a.MinGrade > 10) {
		return nil, apperr.Errorf(apperr.EINVALID, "min_grade must be 1 to 10")
	}
	sel, err := t.selectCards(cardSource{SetID: a.SetID, CohortHandle: a.CohortHandle, Rarity: a.Rarity, Finish: a.Finish, Game: a.Game}, "set_id", "cohort_handle")
	if err != nil {
		return nil, err
	}
	if len(sel.cards) == 0 {
		return nil, apperr.Errorf(apperr.EINVALID, "no card to rank (%d filtered out by rarity or finish)", sel.filteredOut)
	}
	if err := t.charge(1); err != nil {
		return nil, err
	}
	asOf := t.snap.AsOf
	from := rankWindowStart(asOf, a.Window)
	tier := t.call.caller.Tier
	clampedFrom := access.ClampSince(asOf, tier, from, true)
	gi := -1
	if a.Grader != "" {
		gi = snapshots.ReadGrader(a.Grader) // PSA is slab
	}
	var rows []rankRow
	inWindow := 0
	for _, c := range sel.cards {
		if err := t.ctx.Err(); err != nil {
			return nil, err
		}
		sales, err := t.snap.Reader.Sales(c.Game, c.ID)
		if err != nil && apperr.ErrorCode(err) != apperr.ENOTFOUND {
			return nil, err
		}
		f := sel.finishes[c]
		for i := range sales {
			x := &sales[i]
			if x.Day > asOf {
				continue
			}
			if x.Day < clampedFrom {
				break
			}
			if x.Hidden() || x.Grade.Raw() || !f.Sale(x) || (gi >= 0 && x.Grade.Grader() != gi) || (a.MinGrade != nil && x.Grade.Number() < *a.MinGrade) {
				continue
			}
			inWindow++
			row := rankRow{CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Grade: x.Grade.String(), GradeName: x.Grade.Name(), PriceUSD: snapshots.USD(x.PriceCents),
				SaleDate: x.Day.String(), Marketplace: x.Marketplace.String(), TradeType: x.TradeType.String(), SaleID: pricing.SaleID(x.ID), cents: x.PriceCents, day: x.Day}
			if int(x.Finish) < len(c.Variants) {
				row.Finish = &c.Variants[x.Finish]
			}
			rows = append(rows, row)
		}
	}
	slices.SortFunc(rows, func(p, q rankRow) int {
		switch {
		case p.cents != q.cents:
			return int(q.cents - p.cents)
		case p.day != q.day:
			return int(q.day - p.day)
		}
		return strings.Compare(p.SaleID, q.SaleID)
	})
	if len(rows) > a.Limit {
		rows = rows[:a.Limit]
	}
	ids := []string{}
	seen := map[string]bool{}
	for i := range rows {
		rows[i].Rank = i + 1
		if !seen[rows[i].CardID] {
			seen[rows[i].CardID] = true
			ids = append(ids, rows[i].CardID)
		}
	}
	win := rankWindow{Name: a.Window, From: from.String(), To: asOf.String(), RowsFrom: clampedFrom.String(), ClampedByHistoryWindow: clampedFrom != from}
	if clampedFrom != from {
		win.HistoryDays = access.LimitsOf(tier).HistoryDays
		win.Note = fmt.Sprintf("this key's tier sees %d days of history: only sales from %s are ranked", access.LimitsOf(tier).HistoryDays, clampedFrom)
	}
	return rankOut{Game: sel.game, Source: sel.source, Window: win, CardsScanned: len(sel.cards), GradedSalesInWindow: inWindow,
		Items: jsontext.NonNil(rows), Basis: "verified graded sales (quality-flagged, low-confidence identity and price-feed rows excluded), highest price first",
		ResultHandle: nilIfEmpty(s.sessions.addResult(t.session(), "rank_set_sales", sel.game, ids))}, nil
}
