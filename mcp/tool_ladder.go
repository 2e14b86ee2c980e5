package mcp

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// MaxLadderGrades is the most grades one ladder may have.
const MaxLadderGrades = 12

// parseGrades parses a comma list of grades ("" = DefaultLadderGrades).
func parseGrades(list string) ([]snapshots.Grade, error) {
	if strings.TrimSpace(list) == "" {
		list = DefaultLadderGrades
	}
	if strings.Trim(list, " ,") == "" {
		return nil, apperr.Errorf(apperr.EINVALID, "grades is empty: give a comma list such as %q", DefaultLadderGrades)
	}
	out, err := snapshots.ReadGrades(list)
	if err != nil {
		return nil, apperr.Errorf(apperr.EINVALID, "grades: %v", err)
	}
	if len(out) > MaxLadderGrades {
		return nil, apperr.Errorf(apperr.EINVALID, "grades: %d grades, at most %d", len(out), MaxLadderGrades)
	}
	return out, nil
}

// eraFilter parses an era: a set series name, a year or a range of years.
func eraFilter(era string) (func(*snapshots.Set) bool, error) {
	era = strings.TrimSpace(era)
	if era == "" {
		return nil, nil
	}
	year := func(s string) (int, bool) {
		if len(s) != 4 {
			return 0, false
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	lo, hi := 0, 0
	if y, ok := year(era); ok {
		lo, hi = y, y
	} else if a, b, found := strings.Cut(era, "-"); found {
		ya, okA := year(strings.TrimSpace(a))
		yb, okB := year(strings.TrimSpace(b))
		if okA && okB {
			if ya > yb {
				return nil, apperr.Errorf(apperr.EINVALID, "era %q: the first year is after the second", era)
			}
			lo, hi = ya, yb
		}
	}
	if lo > 0 {
		return func(s *snapshots.Set) bool {
			if len(s.ReleaseDate) < 4 {
				return false
			}
			y, err := strconv.Atoi(s.ReleaseDate[:4])
			return err == nil && y >= lo && y <= hi
		}, nil
	}
	return func(s *snapshots.Set) bool { return strings.EqualFold(s.Series, era) }, nil
}

// cardSource is where a batch tool's cards come from, and its filters.
type cardSource struct {
	IDs          []string
	Queries      []string
	SetID        string
	CohortHandle string
	ResultHandle string
	Era, Rarity  string
	Finish       string // cards without it are left out
	Game         string
}

// selected is the outcome of selecting cards.
type selected struct {
	game        string
	cards       []*snapshots.Card
	finishes    map[*snapshots.Card]pricing.Finish
	unresolved  []unresolved
	source      CohortSource
	filteredOut int
}

// selectCards resolves exactly one card source and applies the filters.
// Errors: EINVALID for zero or several sources, bad filters or more than
// MaxJSONIDs cards; ENOTFOUND for an unknown set, cohort or result.
func (t *toolCall) selectCards(cs cardSource, allowed ...string) (*selected, error) {
	var given []string
	for _, x := range []struct {
		name string
		set  bool
	}{{"ids", cs.IDs != nil}, {"queries", cs.Queries != nil}, {"set_id", cs.SetID != ""}, {"cohort_handle", cs.CohortHandle != ""}, {"result_handle", cs.ResultHandle != ""}} {
		if x.set {
			given = append(given, x.name)
		}
	}
	if len(given) != 1 {
		return nil, apperr.Errorf(apperr.EINVALID, "give exactly one of %s (got %d)", strings.Join(allowed, ", "), len(given))
	}
	game, explicit, err := t.game(cs.Game)
	if err != nil {
		return nil, err
	}
	keepEra, err := eraFilter(cs.Era)
	if err != nil {
		return nil, err
	}
	sel := &selected{game: game, finishes: map[*snapshots.Card]pricing.Finish{}, unresolved: []unresolved{}}
	sel.source = CohortSource{Era: cs.Era, Rarity: cs.Rarity, Finish: cs.Finish}
	r := t.snap.Reader
	var cards []*snapshots.Card
	switch given[0] {
	case "ids", "queries":
		refs := cs.IDs
		if given[0] == "queries" {
			refs = cs.Queries
		}
		sel.source.Kind = "ids"
		rs, cc, err := t.resolveIDs(given[0], game, explicit, refs)
		if err != nil {
			return nil, err
		}
		cards, sel.unresolved = cc, unresolvedOf(rs)
		if len(cc) > 0 {
			sel.game = cc[0].Game
		}
	case "set_id":
		set, err := r.Set(game, cs.SetID)
		if err != nil {
			if apperr.ErrorCode(err) == apperr.ENOTFOUND {
				return nil, apperr.Errorf(apperr.ENOTFOUND, "unknown set_id %q in %s: set ids look like %q (see search results' set_id)", cs.SetID, game, exampleSet(r, game))
			}
			return nil, err
		}
		sel.source.Kind, sel.source.SetID = "set", set.ID
		if cards, err = r.SetCards(game, set.ID); err != nil {
			return nil, err
		}
	case "cohort_handle":
		c, err := t.srv.cohorts.get(t.call.caller.KeyID, cs.CohortHandle)
		if err != nil {
			return nil, err
		}
		sel.game, sel.source = c.Game, c.Source
		sel.source.Kind = "cohort"
		for _, id := range c.IDs {
			if card, err := r.Card(c.Game, id); err == nil {
				cards = append(cards, card)
			} else {
				sel.unresolved = append(sel.unresolved, unresolved{Ref: id, Status: resolve.NotFound, Message: "card of the cohort is not in the current snapshot"})
			}
		}
	case "result_handle":
		res, ok := t.srv.sessions.result(t.session(), cs.ResultHandle)
		if !ok {
			return nil, apperr.Errorf(apperr.ENOTFOUND, "unknown result_handle %q: result handles live in the session that produced them (its newest %d results); pass ids instead", cs.ResultHandle, ResultHandlesPerSession)
		}
		sel.game = res.game
		sel.source.Kind, sel.source.ResultHandle = "result", cs.ResultHandle
		for _, id := range res.ids {
			if card, err := r.Card(res.game, id); err == nil {
				cards = append(cards, card)
			}
		}
	}
	sets := map[string]*snapshots.Set{}
	for _, c := range cards {
		if keepEra != nil {
			s, ok := sets[c.SetID]
			if !ok {
				s, _ = r.Set(c.Game, c.SetID)
				sets[c.SetID] = s
			}
			if s == nil || !keepEra(s) {
				sel.filteredOut++
				continue
			}
		}
		if cs.Rarity != "" && !strings.EqualFold(strings.TrimSpace(cs.Rarity), c.Rarity) {
			sel.filteredOut++
			continue
		}
		f, err := pricing.MatchFinish(c, cs.Finish)
		if err != nil {
			sel.filteredOut++
			continue
		}
		sel.finishes[c] = f
		sel.cards = append(sel.cards, c)
	}
	if len(sel.cards) > access.MaxJSONIDs {
		return nil, apperr.Errorf(apperr.EINVALID, "%d cards match, at most %d per call: narrow with rarity, era or finish, or pass ids", len(sel.cards), access.MaxJSONIDs)
	}
	return sel, nil
}

func exampleSet(r snapshots.Reader, game string) string {
	if sets, err := r.Sets(game); err == nil && len(sets) > 0 {
		return sets[0].ID
	}
	return "en:base1"
}

// ladderCell is one card and grade of a ladder.
type ladderCell struct {
	Grade           string   `json:"grade"`
	LastUSD         *float64 `json:"last_usd"`
	LastDate        *string  `json:"last_date"`
	LastMarketplace *string  `json:"last_marketplace"`
	AskUSD          *float64 `json:"ask_usd"`
	AskShippingUSD  *float64 `json:"ask_shipping_usd"`
	AskPlatform     *string  `json:"ask_platform"`
	AskLastX        *float64 `json:"ask_last_x"`
	Sales90d        int      `json:"sales_90d"`
	MidpriceUSD     *float64 `json:"midprice_usd"`
	MidStatus       string   `json:"midprice_status"`
}

type ladderCard struct {
	CardID string       `json:"card_id"`
	Name   string       `json:"name"`
	SetID  string       `json:"set_id"`
	Number string       `json:"number"`
	Rarity string       `json:"rarity,omitempty"`
	Finish *string      `json:"finish"`
	Ladder []ladderCell `json:"ladder"`
}

type gradeSummary struct {
	Grade          string   `json:"grade"`
	GradeName      string   `json:"grade_name"`
	CardsWithLast  int      `json:"cards_with_last"`
	CardsWithAsk   int      `json:"cards_with_ask"`
	MedianLastUSD  *float64 `json:"median_last_usd"`
	MedianAskUSD   *float64 `json:"median_ask_usd"`
	MedianAskLastX *float64 `json:"median_ask_last_x"`
}

var compactColumns = []string{"card_id", "name", "number", "grade", "last_usd", "last_date", "ask_usd", "ask_last_x", "sales_90d"}

// ladderHead is where a ladder's cards came from.
type ladderHead struct {
	Game        string       `json:"game"`
	Source      CohortSource `json:"source"`
	Unresolved  []unresolved `json:"unresolved"`
	FilteredOut int          `json:"filtered_out"`
}

// ladderBody is a ladder's grades and per-grade summary.
type ladderBody struct {
	Grades []string `json:"grades"`
	// GradeNames are Grades as people read them (PSA 10), in order.
	GradeNames []string       `json:"grade_names"`
	Cards      int            `json:"cards"`
	Summary    []gradeSummary `json:"summary"`
	Basis      string         `json:"basis"`
}

// ladderTable is a ladder's cells as rows under one columns header
// (compact).
type ladderTable struct {
	Columns []string    `json:"columns"`
	Rows    []ladderRow `json:"rows"`
}

// ladderRow is one cell of a ladder in the order of compactColumns.
type ladderRow []any

// JSONSchema says what a row holds: strings, numbers and nulls.
func (ladderRow) JSONSchema() map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{
		map[string]any{"type": "string"}, map[string]any{"type": "number"}, map[string]any{"type": "null"}}}}
}

// ladderItems is a ladder's cards, one object each (compact false).
type ladderItems struct {
	Items []ladderCard `json:"items"`
}

// The data of batch_grade_ladder: a dry run, a compact ladder or a full one.
type (
	ladderDryRunOut struct {
		ladderHead
		DryRun    bool     `json:"dry_run"`
		Cards     int      `json:"cards"`
		WouldCost int      `json:"would_cost"`
		CardIDs   []string `json:"card_ids"`
		Note      string   `json:"note"`
	}
	ladderCompactOut struct {
		ladderHead
		ladderBody
		ladderTable
		ResultHandle *string `json:"result_handle"`
	}
	ladderFullOut struct {
		ladderHead
		ladderBody
		ladderItems
		ResultHandle *string `json:"result_handle"`
	}
)

// compareHead is the set, finish and cohort of compare_set_finish.
type compareHead struct {
	Game            string    `json:"game"`
	SetID           string    `json:"set_id"`
	Finish          string    `json:"finish"`
	FilteredOut     int       `json:"filtered_out"`
	CohortHandle    string    `json:"cohort_handle"`
	CohortName      string    `json:"cohort_name"`
	CohortExpiresAt time.Time `json:"cohort_expires_at"`
}

// The data of compare_set_finish: a compact ladder or a full one.
type (
	compareCompactOut struct {
		compareHead
		ladderBody
		ladderTable
	}
	compareFullOut struct {
		compareHead
		ladderBody
		ladderItems
	}
)

// ladder computes the grade ladder of the selected cards.
func (t *toolCall) ladder(sel *selected, grades []snapshots.Grade) (ladderBody, []ladderCard, error) {
	cards := make([]ladderCard, 0, len(sel.cards))
	lastBy := make([][]int64, len(grades))
	askBy := make([][]int64, len(grades))
	multBy := make([][]float64, len(grades))
	for _, c := range sel.cards {
		if err := t.ctx.Err(); err != nil {
			return ladderBody{}, nil, err
		}
		cm, err := pricing.LoadCardMarket(t.snap.Reader, c, t.snap.AsOf)
		if err != nil {
			return ladderBody{}, nil, err
		}
		// One printing per card: the one finish names (pricing.PrintingOf),
		// else the base printing; prices are never blended across printings.
		f, err := pricing.PrintingOf(c, sel.finishes[c].Asked)
		if err != nil {
			f = snapshots.BasePrinting(c)
		}
		lc := ladderCard{CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Rarity: c.Rarity}
		if name := pricing.PrintingName(c, f); name != "" {
			lc.Finish = &name
		}
		for i, g := range grades {
			mk := cm.Market(g, f)
			cell := ladderCell{Grade: g.String(), Sales90d: mk.MidSales, MidStatus: mk.MidStatus}
			if mk.LastCents > 0 {
				cell.LastUSD, cell.LastDate, cell.LastMarketplace = snapshots.USDOrNil(mk.LastCents), dayOrNil(mk.LastDay, true), jsontext.StrOrNil(mk.LastMarketplace)
				lastBy[i] = append(lastBy[i], mk.LastCents)
			}
			if mk.AskCents > 0 {
				ship := snapshots.USD(mk.AskShippingCents)
				cell.AskUSD, cell.AskShippingUSD, cell.AskPlatform = snapshots.USDOrNil(mk.AskCents), &ship, jsontext.StrOrNil(mk.AskPlatform)
				askBy[i] = append(askBy[i], mk.AskCents)
			}
			if mk.LastCents > 0 && mk.AskCents > 0 {
				x := math.Round(100*float64(mk.AskCents)/float64(mk.LastCents)) / 100
				cell.AskLastX = &x
				multBy[i] = append(multBy[i], x)
			}
			if mk.Usable() {
				cell.MidpriceUSD = snapshots.USDOrNil(mk.MidCents)
			}
			lc.Ladder = append(lc.Ladder, cell)
		}
		cards = append(cards, lc)
	}
	summary := make([]gradeSummary, len(grades))
	for i, g := range grades {
		gs := gradeSummary{Grade: g.String(), GradeName: g.Name(), CardsWithLast: len(lastBy[i]), CardsWithAsk: len(askBy[i])}
		if len(lastBy[i]) > 0 {
			gs.MedianLastUSD = snapshots.USDOrNil(snapshots.Median(lastBy[i]))
		}
		if len(askBy[i]) > 0 {
			gs.MedianAskUSD = snapshots.USDOrNil(snapshots.Median(askBy[i]))
		}
		if v := multBy[i]; len(v) > 0 {
			slices.Sort(v)
			m := v[len(v)/2]
			if len(v)%2 == 0 {
				m = math.Round(100*(v[len(v)/2-1]+v[len(v)/2])/2) / 100
			}
			gs.MedianAskLastX = &m
		}
		summary[i] = gs
	}
	body := ladderBody{Grades: gradeNames(grades), GradeNames: gradeDisplayNames(grades), Cards: len(cards), Summary: summary,
		Basis: "last = most recent verified sale of the grade (any age, finish-restricted when finish is set); ask = cheapest current listing of the grade (shipping excluded); ask_last_x = ask / last"}
	return body, cards, nil
}

// table lays a ladder's cards out as compact rows.
func table(cards []ladderCard) ladderTable {
	var rows []ladderRow
	if len(cards) > 0 {
		rows = make([]ladderRow, 0, len(cards)*len(cards[0].Ladder))
	}
	for _, c := range cards {
		for _, cell := range c.Ladder {
			rows = append(rows, ladderRow{c.CardID, c.Name, c.Number, cell.Grade, cell.LastUSD, cell.LastDate, cell.AskUSD, cell.AskLastX, cell.Sales90d})
		}
	}
	return ladderTable{Columns: compactColumns, Rows: rows}
}

// gradeDisplayNames are the names of gs as people read them (PSA 10).
func gradeDisplayNames(gs []snapshots.Grade) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Name()
	}
	return out
}

func gradeNames(gs []snapshots.Grade) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.String()
	}
	return out
}

// ---- batch_grade_ladder ----

type ladderArgs struct {
	IDs          []string `json:"ids"`
	Queries      []string `json:"queries"`
	SetID        string   `json:"set_id"`
	CohortHandle string   `json:"cohort_handle"`
	Era          string   `json:"era"`
	Rarity       string   `json:"rarity"`
	Finish       string   `json:"finish"`
	Grades       string   `json:"grades"`
	Compact      *bool    `json:"compact"`
	DryRun       bool     `json:"dry_run"`
	Game         string   `json:"game"`
}

func (s *Server) toolLadder(t *toolCall) (any, error) {
	var a ladderArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	grades, err := parseGrades(a.Grades)
	if err != nil {
		return nil, err
	}
	sel, err := t.selectCards(cardSource{IDs: a.IDs, Queries: a.Queries, SetID: a.SetID, CohortHandle: a.CohortHandle,
		Era: a.Era, Rarity: a.Rarity, Finish: a.Finish, Game: a.Game}, "ids", "queries", "set_id", "cohort_handle")
	if err != nil {
		return nil, err
	}
	head := ladderHead{Game: sel.game, Source: sel.source, Unresolved: jsontext.NonNil(sel.unresolved), FilteredOut: sel.filteredOut}
	if a.DryRun {
		return ladderDryRunOut{ladderHead: head, DryRun: true, Cards: len(sel.cards), WouldCost: max(1, len(sel.cards)), CardIDs: cardIDs(sel.cards),
			Note: "dry run: nothing was charged; the same call without dry_run costs would_cost units"}, nil
	}
	if len(sel.cards) == 0 {
		return nil, apperr.Errorf(apperr.EINVALID, "no card left to ladder (%d unresolved, %d filtered out by era, rarity or finish); loosen the filters or check the ids", len(sel.unresolved), sel.filteredOut)
	}
	if err := t.charge(len(sel.cards)); err != nil {
		return nil, err
	}
	body, cards, err := t.ladder(sel, grades)
	if err != nil {
		return nil, err
	}
	handle := nilIfEmpty(s.sessions.addResult(t.session(), "batch_grade_ladder", sel.game, cardIDs(sel.cards)))
	if a.Compact == nil || *a.Compact {
		return ladderCompactOut{ladderHead: head, ladderBody: body, ladderTable: table(cards), ResultHandle: handle}, nil
	}
	return ladderFullOut{ladderHead: head, ladderBody: body, ladderItems: ladderItems{cards}, ResultHandle: handle}, nil
}

// ---- compare_set_finish ----

type compareArgs struct {
	SetID   string `json:"set_id"`
	Finish  string `json:"finish"`
	Rarity  string `json:"rarity"`
	Grades  string `json:"grades"`
	Compact *bool  `json:"compact"`
	Name    string `json:"name"`
	Game    string `json:"game"`
}

func (s *Server) toolCompareSetFinish(t *toolCall) (any, error) {
	var a compareArgs
	if err := t.bind(&a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.SetID) == "" || strings.TrimSpace(a.Finish) == "" {
		return nil, apperr.Errorf(apperr.EINVALID, "set_id and finish are required")
	}
	grades, err := parseGrades(a.Grades)
	if err != nil {
		return nil, err
	}
	sel, err := t.selectCards(cardSource{SetID: a.SetID, Rarity: a.Rarity, Finish: a.Finish, Game: a.Game}, "set_id")
	if err != nil {
		return nil, err
	}
	if len(sel.cards) == 0 {
		return nil, apperr.Errorf(apperr.EINVALID, "no card of set %s has finish %q%s; finishes in this set: %s",
			sel.source.SetID, a.Finish, map[bool]string{true: " with rarity " + a.Rarity, false: ""}[a.Rarity != ""], strings.Join(setFinishes(t, sel), ", "))
	}
	if err := t.charge(len(sel.cards)); err != nil {
		return nil, err
	}
	body, cards, err := t.ladder(sel, grades)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		name = sel.source.SetID + " " + strings.ToLower(strings.TrimSpace(a.Finish))
	}
	src := CohortSource{Kind: "compare_set_finish", SetID: sel.source.SetID, Rarity: a.Rarity, Finish: a.Finish}
	c, err := s.cohorts.pin(t.call.caller.KeyID, sel.game, name, src, cardIDs(sel.cards))
	if err != nil {
		return nil, err
	}
	s.sessions.setCohort(t.session(), c.Handle)
	head := compareHead{Game: sel.game, SetID: sel.source.SetID, Finish: a.Finish, FilteredOut: sel.filteredOut,
		CohortHandle: c.Handle, CohortName: c.Name, CohortExpiresAt: c.ExpiresAt}
	if a.Compact == nil || *a.Compact {
		return compareCompactOut{compareHead: head, ladderBody: body, ladderTable: table(cards)}, nil
	}
	return compareFullOut{compareHead: head, ladderBody: body, ladderItems: ladderItems{cards}}, nil
}

// setFinishes lists the finishes of a set's cards (for error messages).
func setFinishes(t *toolCall, sel *selected) []string {
	seen := map[string]bool{}
	var out []string
	cards, _ := t.snap.Reader.SetCards(sel.game, sel.source.SetID)
	for _, c := range cards {
		for _, v := range c.Variants {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return []string{"(none known)"}
	}
	return out
}
