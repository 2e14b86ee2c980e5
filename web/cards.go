package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// Cards in the browser: a search box whose typeahead asks /dashboard/lookup
// (the index's lookup, as GET /api/v3/lookup answers it, for the signed-in
// page: same origin, the session's cookie, no key), a results page (the
// index's search with the search syntax, as /api/v3/search), and a card
// page: the card, a printing selector, its market summary with confidence
// and flags, the price history of a printing and grade within the account's
// history window, the grade ladder, recent sales with outliers marked and
// listings.

func (h *Handler) registerCardRoutes() {
	h.mux.HandleFunc("GET "+Base+"/cards", h.requireSession(h.handleCards))
	h.mux.HandleFunc("GET "+Base+"/cards/{id}", h.requireSession(h.handleCard))
	h.mux.HandleFunc("GET "+Base+"/lookup", h.handleLookup)
}

// lookupItem is one typeahead suggestion: the index's, and the page it
// opens. No price: the typeahead is not charged to the account's quota, so
// it shows the catalog only.
type lookupItem struct {
	Kind     string `json:"kind"` // card or set
	ID       string `json:"id"`
	Label    string `json:"label"`
	Detail   string `json:"detail,omitempty"`
	Language string `json:"language"`
	Href     string `json:"href"`
}

type lookupAnswer struct {
	Query string       `json:"query"`
	Items []lookupItem `json:"items"`
}

// lookupLimit is how many suggestions the typeahead shows.
const lookupLimit = 8

// handleLookup answers the search box's typeahead with JSON: the index's
// suggestions for q (AppendLookup, the code of GET /api/v3/lookup). It needs
// a session (401 JSON without one) and is not charged; the dashboard's
// per-address rate limit applies.
func (h *Handler) handleLookup(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if _, _, _, ok := h.session(r); !ok {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"sign in to search"}`))
		return
	}
	if h.opts.Snapshots == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"market data is not available"}`))
		return
	}
	q := r.URL.Query()
	text := q.Get("q")
	if len(text) > 256 {
		text = text[:256]
	}
	s := h.opts.Snapshots.Acquire()
	defer s.Release()
	game := q.Get("game")
	if !s.Reader.Manifest().HasGame(game) {
		game = s.Reader.Manifest().Games[0]
	}
	out := lookupAnswer{Query: text, Items: []lookupItem{}}
	if strings.TrimSpace(text) != "" {
		for _, sg := range s.Index.AppendLookup(nil, game, text, "", lookupLimit) {
			it := lookupItem{Kind: sg.Kind, ID: sg.ID, Label: sg.Label, Detail: sg.Detail, Language: sg.Language}
			if sg.Kind == "set" {
				it.Href = setHref(game, sg.ID)
			} else {
				it.Href = cardHref(gameParamOf(game, s), sg.ID, "", "")
			}
			out.Items = append(out.Items, it)
		}
	}
	b, _ := json.Marshal(out)
	w.Write(b)
}

// gameParamOf is game as a link names it: "" for the first game (the
// default).
func gameParamOf(game string, s *live.View) string {
	if gs := s.Reader.Manifest().Games; len(gs) > 0 && gs[0] == game {
		return ""
	}
	return game
}

func setHref(game, id string) string {
	u := Base + "/sets/" + url.PathEscape(id)
	if game != "" {
		u += "?game=" + url.QueryEscape(game)
	}
	return u
}

type resultRow struct {
	Name, Href, Detail, Price, Rarity string
	Lang                              string // the name's language
	SetHref, SetName                  string
}

type cardsData struct {
	Q, Game    string
	Games      []string
	Results    []resultRow
	Total      int
	Searched   bool
	Prev, Next string
	From, To   int
	Error      string
	Hints      []hintView // a search that found nothing: why, and what to try
}

// hintView is an index.Hint as the page shows it: its message and a link
// per known value (the query with the term's value replaced).
type hintView struct {
	Message string
	Tries   []option // Value: href, Label: the term with the value
}

const resultsPageSize = 25

// handleCards is the search page: the search box (with the typeahead when
// scripts run) and, for a q, the index's results as /api/v3/search ranks
// them (the search syntax's fields work).
func (h *Handler) handleCards(w http.ResponseWriter, r *http.Request, si signedIn) {
	q := r.URL.Query()
	text := strings.TrimSpace(q.Get("q"))
	units := 0
	if text != "" {
		units = 1
	}
	m, ok := h.openMarket(w, r, si, units)
	if !ok {
		return
	}
	defer m.done()
	d := cardsData{Q: text, Game: m.game, Games: m.Reader.Manifest().Games}
	status := http.StatusOK
	if text != "" {
		d.Searched = true
		if err := h.search(r, m, text, &d); err != nil {
			var se *syntax.Error
			if !errors.As(err, &se) {
				h.fail(w, r, err)
				return
			}
			d.Error, status = "The search could not be read: "+se.Error()+".", http.StatusUnprocessableEntity
		}
	}
	p := si.page("Cards", "cards", d)
	p.Error = d.Error
	h.render(w, r, status, "cards", p)
}

func (h *Handler) search(r *http.Request, m *market, text string, d *cardsData) error {
	parsed, err := syntax.Parse(text)
	if err != nil {
		return err
	}
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	offset = max(0, min(offset, 10000))
	req := index.SearchRequest{Game: m.game, Q: text, MinPriceCents: -1, MaxPriceCents: -1, Offset: offset, Limit: resultsPageSize}
	if parsed.Structured() {
		req.Query = parsed
	}
	res, err := m.Index.Search(r.Context(), req)
	if err != nil {
		return err
	}
	d.Total = res.Total
	game := gameParamOf(m.game, m.View)
	for _, hit := range res.Hits {
		c, err := m.Reader.Card(m.game, hit.CardID)
		if err != nil {
			continue
		}
		row := resultRow{Name: c.Name, Lang: c.Language, Href: cardHref(game, c.ID, "", ""), Rarity: c.Rarity, SetHref: setHref(game, c.SetID), SetName: c.SetID,
			Detail: "#" + c.Number + " · " + strings.ToUpper(c.Language) + " · " + c.ID, Price: "no price"}
		if s, err := m.Reader.Set(c.Game, c.SetID); err == nil {
			row.SetName = s.Name
		}
		if cents, err := snapshots.ShownPrice(m.Reader, c); err == nil && cents > 0 {
			row.Price = money(cents)
		}
		d.Results = append(d.Results, row)
	}
	link := func(off int, text string) string {
		v := url.Values{"q": {text}}
		if game != "" {
			v.Set("game", game)
		}
		if off > 0 {
			v.Set("offset", strconv.Itoa(off))
		}
		return Base + "/cards?" + v.Encode()
	}
	if offset > 0 {
		d.Prev = link(max(0, offset-resultsPageSize), text)
	}
	if offset+len(res.Hits) < res.Total {
		d.Next = link(offset+resultsPageSize, text)
	}
	d.From, d.To = offset+1, offset+len(res.Hits)
	if res.Total == 0 && parsed.Structured() {
		hints, err := m.Index.Hints(r.Context(), m.game, parsed.Filter())
		if err != nil {
			return err
		}
		for _, h := range hints {
			// The message's first clause; its list of values is the links.
			msg, _, _ := strings.Cut(h.Message, ";")
			hv := hintView{Message: msg}
			for _, v := range h.Known {
				q, term := withValue(parsed, h.Term, v)
				hv.Tries = append(hv.Tries, option{Value: link(0, q), Label: term})
			}
			d.Hints = append(d.Hints, hv)
		}
	}
	return nil
}

// withValue returns the query q with the value of its field term printed
// as term replaced by v (printed canonically), and the new term.
func withValue(q *syntax.Query, term, v string) (query, newTerm string) {
	var walk func(n *syntax.Node)
	walk = func(n *syntax.Node) {
		if n == nil {
			return
		}
		if n.Kind == syntax.NodeTerm && n.Term.Field != "" && n.Term.String() == term {
			n.Term.Value = v
			newTerm = n.Term.String()
			return
		}
		for _, c := range n.Nodes {
			walk(c)
		}
	}
	cp := cloneNode(q.Root)
	walk(cp)
	return (&syntax.Query{Root: cp}).String(), newTerm
}

func cloneNode(n *syntax.Node) *syntax.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Nodes = make([]*syntax.Node, len(n.Nodes))
	for i, x := range n.Nodes {
		c.Nodes[i] = cloneNode(x)
	}
	return &c
}

type option struct {
	Value, Label string
	Selected     bool
}

type estimateView struct {
	Grade, GradeHref string
	Price            string
	Confidence       string
	Flags            string
	Sample           int
	LastSale         string
	Note             string
	Selected         bool
}

type printingView struct {
	Name, Href         string
	Base, Selected     bool
	Price, Confidence  string
	Flags, Note        string
	Sales30d, Listings int
	Volume30d          string
}

type saleView struct {
	Date, Price, Grade, Marketplace, TradeType string
	Outlier, Flagged                           bool
}

type listingView struct {
	Platform, Grade, Ask, Shipping, Listed string
	Quantity                               int
}

type cardPageData struct {
	Card        *snapshots.Card
	SetName     string
	SetHref     string
	Game        string // the game parameter of links ("" for the default)
	Printings   []option
	Grades      []option
	Ranges      []option
	HasChoice   bool
	Printing    string       // the printing shown ("" for a card without variants)
	Grade       string       // the grade shown, by name (PSA 10); links and forms carry codes
	Market      estimateView // raw near mint of the printing
	Source      string       // where Market's price comes from (pricing.Origin), in words
	Summary     printingView
	ByPrinting  []printingView
	Chart       LineChart
	Changes     int
	Ladder      []estimateView
	Sales       []saleView
	SalesTotal  int
	Listings    []listingView
	Window      string
	RangeText   string
	RangeNote   string // a range asked for beyond the tier's window, and what is shown
	Longer      string // which tiers see more history ("" for all of it)
	Methodology string
	// Rule says how confidence and the flags are decided, where they are
	// shown (estimate.Default.ConfidenceRule).
	Rule string
}

// historyRange is a range of the card page's price history.
type historyRange struct {
	Value string
	Days  int // 0: all the history the tier sees
	Label string
}

// historyRanges are the ranges of the price history, shortest first.
var historyRanges = []historyRange{{"7", 7, "7 days"}, {"30", 30, "30 days"}, {"90", 90, "90 days"}, {"365", 365, "1 year"}, {"all", 0, "All history"}}

// rangesOf returns the ranges of the price history tier t can see, and the
// one the card page opens on. A tier with a history window sees the ranges
// shorter than its window and the window itself (Free: 3 days only), and
// opens on the window; a tier without one sees every range and opens on all
// history. Either way the page opens on the longest range the tier sees.
func rangesOf(t access.Tier) (rs []historyRange, open string) {
	w := access.LimitsOf(t).HistoryDays
	if w == 0 {
		return historyRanges, historyRanges[len(historyRanges)-1].Value
	}
	for _, hr := range historyRanges {
		if hr.Days > 0 && hr.Days < w {
			rs = append(rs, hr)
		}
	}
	n := strconv.Itoa(w)
	return append(rs, historyRange{n, w, n + " days"}), n
}

// rangeOf reads the range parameter v for tier t: the range to show, and
// what to say of v when it is not one of t's (beyond: the label of a range
// beyond the tier's window, which shows the longest it sees; unknown: the
// form error of a value that is no range).
func rangeOf(t access.Tier, v string) (hr historyRange, beyond, unknown string) {
	rs, open := rangesOf(t)
	for _, r := range rs {
		if r.Value == open {
			hr = r
		}
	}
	if v == "" {
		return hr, "", ""
	}
	for _, r := range rs {
		if r.Value == v {
			return r, "", ""
		}
	}
	for _, r := range historyRanges {
		if r.Value == v {
			return hr, r.Label, ""
		}
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Value)
	}
	return hr, "", "“" + v + "” is not a history range (" + strings.Join(names, ", ") + "): showing " + hr.Label + "."
}

// handleCard is a card's page for one printing (?printing=, default the
// base printing) and grade (?grade=, default raw near mint) over a range
// (?range=) within the account's history window.
func (h *Handler) handleCard(w http.ResponseWriter, r *http.Request, si signedIn) {
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	q := r.URL.Query()
	c, err := m.Reader.Card(m.game, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// A printing, grade or range the page cannot show is a form error (422):
	// the page shows the defaults and says what was wrong.
	var formErrs []string
	finish, err := pricing.PrintingOf(c, q.Get("printing"))
	if err != nil {
		finish = snapshots.BasePrinting(c)
		formErrs = append(formErrs, "There is no printing “"+q.Get("printing")+"” of this card: showing "+printingOr(pricing.PrintingName(c, finish))+".")
	}
	grade, err := snapshots.ReadGradeOr(q.Get("grade"), snapshots.RawNearMint)
	if err != nil {
		grade = snapshots.RawNearMint
		formErrs = append(formErrs, "“"+q.Get("grade")+"” is not a grade (PSA 10, BGS 9.5, raw, NM…): showing "+grade.Name()+".")
	}
	game := gameParamOf(m.game, m.View)
	d := cardPageData{Card: c, Game: game, SetHref: setHref(game, c.SetID), SetName: c.SetID, Printing: pricing.PrintingName(c, finish),
		Grade: grade.Name(), Window: m.windowText(), HasChoice: len(c.Variants) > 1,
		Methodology: "/api/v3/methodology", Rule: estimate.Default.ConfidenceRule}
	if s, err := m.Reader.Set(c.Game, c.SetID); err == nil {
		d.SetName = s.Name
	}
	printings, err := m.Reader.Printings(c.Game, c.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The card's market in the printing and each printing's (the card
	// routes' market object and show_cards' printings).
	prov, err := pricing.ReadProvenance(m.Reader, c)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	mv := pricing.NewMarketView(printings, finish, c.PriceDay).WithProvenance(prov)
	for _, pm := range mv.Printings {
		p := pm.Printing
		d.Printings = append(d.Printings, option{Value: p.Name, Label: printingLabel(p), Selected: int(p.Finish) == finish})
		pv := newPrintingView(pm)
		pv.Selected = int(p.Finish) == finish
		pv.Href = cardHref(game, c.ID, p.Name, grade.String())
		d.ByPrinting = append(d.ByPrinting, pv)
	}
	cur := mv.Priced.Printing
	d.Summary = newPrintingView(mv.Priced)
	d.Market = newEstimateView(mv.Priced.Estimate)
	d.Source = sourceText(mv.Priced.Origin)

	// The printing and grade's history (the series and estimate the price
	// history route and get_prices read).
	hist, err := pricing.ReadHistory(m.Reader, c, finish, grade)
	if err != nil {
		h.fail(w, r, err)
		return
	}

	// The grade ladder: every grade of the printing with a series.
	hasGrade := false
	for _, e := range cur.Estimates {
		ev := newEstimateView(e)
		ev.Selected = e.Grade == grade
		ev.GradeHref = cardHref(game, c.ID, d.Printing, e.Grade.String()) + "#history"
		hasGrade = hasGrade || ev.Selected
		d.Ladder = append(d.Ladder, ev)
		d.Grades = append(d.Grades, option{Value: e.Grade.String(), Label: e.Grade.Name(), Selected: e.Grade == grade})
	}
	if !hasGrade {
		d.Grades = append([]option{{Value: grade.String(), Label: grade.Name() + " (no sales)", Selected: true}}, d.Grades...)
	}

	// The price history of the printing and grade: a point per change in
	// the range, the range within the history window (as GET
	// /api/v3/cards/{id}/price-history?interval=change).
	hr, beyond, unknown := rangeOf(m.tier, q.Get("range"))
	if unknown != "" {
		formErrs = append(formErrs, unknown)
	}
	rs, _ := rangesOf(m.tier)
	for _, r := range rs {
		d.Ranges = append(d.Ranges, option{Value: r.Value, Label: r.Label, Selected: r.Value == hr.Value})
	}
	if beyond != "" {
		d.RangeNote = strings.ToUpper(beyond[:1]) + beyond[1:] + " is beyond your history window: showing " + hr.Label + "."
	}
	d.Longer = m.longerWindow()
	days := hr.Days
	from, fromSet := snapshots.Day(0), false
	if days > 0 {
		from, fromSet = m.AsOf-snapshots.Day(days)+1, true
	}
	from, fromSet = m.since(from, fromSet)
	pts := hist.Points(from, m.AsOf, fromSet, pricing.IntervalChange)
	// Today's value of the grade, or why none is shown (confidence none): the
	// line then ends at its last change instead of holding it to today.
	_, noneNote := pricing.Shown(hist.Estimate)
	empty := "No " + grade.Name() + " price of this printing in this range."
	var line []DayValue
	if fromSet && (noneNote == "" || len(pts) > 0) {
		if p, ok := snapshots.PointAt(hist.Grade, from-1); ok { // the price in force when the range starts
			line = append(line, DayValue{Day: p.Day, Cents: p.FMVCents})
		}
	}
	for _, p := range pts {
		line = append(line, DayValue{Day: p.Day, Cents: p.Price.FMVCents})
	}
	if noneNote != "" {
		empty = strings.TrimSuffix(empty, ".") + "; " + noneNote + "."
	}
	start := from
	if !fromSet {
		start = m.AsOf
		if len(pts) > 0 {
			start = pts[0].Day
		}
	}
	d.RangeText = start.String() + " to " + m.AsOf.String()
	title := "Price history of " + c.Name + ", " + printingWords(d.Printing) + grade.Name() + ", " + d.RangeText
	d.Chart = newLineChart("history", title, "The "+grade.Name()+" fmv", start, m.AsOf, line, true, noneNote == "", empty)
	d.Changes = len(pts)

	// Recent sales of the printing (every grade) within the window.
	sales, err := m.Reader.Sales(c.Game, c.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// Where a value is missing, why, with the last sale (in place of the
	// estimate's note).
	if nv := pricing.ExplainNoValue(c, sales, finish, mv.Priced.Estimate, m.AsOf); nv != nil {
		d.Market.Note, d.Summary.Note = nv.Note, nv.Note
	}
	for i := range d.Ladder {
		if nv := pricing.ExplainNoValue(c, sales, finish, cur.Estimates[i], m.AsOf); nv != nil {
			d.Ladder[i].Note = nv.Note
		}
	}
	wfrom, wset := m.since(0, false)
	f := pricing.SaleFilter{From: wfrom, FromSet: wset, To: m.AsOf, Finish: pricing.OnePrinting(c, finish)}
	for s := range f.Sales(sales) {
		d.SalesTotal++
		if len(d.Sales) < 25 {
			row := pricing.NewSaleRow(c, *s)
			d.Sales = append(d.Sales, saleView{Date: row.SaleDate, Price: money(s.PriceCents), Grade: row.GradeName, Marketplace: row.Marketplace,
				TradeType: strings.ReplaceAll(row.TradeType, "_", " "), Outlier: row.Outlier, Flagged: row.QualityFlagged})
		}
	}

	// Listings of the printing, cheapest first.
	ls, err := m.Reader.Listings(c.Game, c.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for i := range ls {
		l := &ls[i]
		if pricing.ListingPrinting(c, l) != finish || len(d.Listings) == 20 {
			continue
		}
		lv := listingView{Platform: l.Platform, Grade: snapshots.GradeNameOf(l.Grade), Ask: money(l.AskCents), Shipping: "free", Listed: l.ListedDay.String(), Quantity: l.Quantity}
		if l.ShippingCents > 0 {
			lv.Shipping = money(l.ShippingCents)
		}
		d.Listings = append(d.Listings, lv)
	}
	p := si.page(c.Name, "cards", d)
	p.Lang = c.Language
	status := http.StatusOK
	if len(formErrs) > 0 {
		p.Error, status = strings.Join(formErrs, " "), http.StatusUnprocessableEntity
	}
	h.render(w, r, status, "card", p)
}

// printingOr is a printing's name, or "the only printing" for a card
// without variants.
func printingOr(name string) string {
	if name == "" {
		return "the only printing"
	}
	return name
}

func printingWords(name string) string {
	if name == "" {
		return ""
	}
	return name + ", "
}

func printingLabel(p *snapshots.Printing) string {
	if p.Name == "" {
		return "The only printing"
	}
	if p.Base {
		return p.Name + " (base printing)"
	}
	return p.Name
}

func newPrintingView(pm pricing.PrintingMarket) printingView {
	p := pm.Printing
	ev := newEstimateView(pm.Estimate)
	name := p.Name
	if name == "" {
		name = "—"
	}
	return printingView{Name: name, Base: p.Base, Price: ev.Price, Confidence: ev.Confidence, Flags: ev.Flags, Note: ev.Note,
		Sales30d: p.Sales30d, Listings: p.Listings, Volume30d: money(p.Volume30dCents)}
}

func newEstimateView(e snapshots.Estimate) estimateView {
	v := estimateView{Grade: e.Grade.Name(), Confidence: e.Confidence.String(), Sample: int(e.SampleSize), Price: "—",
		Flags: strings.Join(pricing.FlagNames(e.Flags), ", "), LastSale: "—"}
	if e.Confidence == estimate.ConfidenceNone && e.SampleSize == 0 && e.FMVCents == 0 {
		v.Confidence = "none"
	}
	cents, note := pricing.Shown(e)
	if cents > 0 {
		v.Price = money(cents)
	}
	v.Note = note
	if d := pricing.LastSaleDate(e); d != nil {
		v.LastSale = *d
	}
	return v
}

// sourceText says where a price comes from (pricing.Origin).
func sourceText(o pricing.Origin) string {
	switch {
	case o.Synthetic:
		return "synthetic: generated, not a real market"
	case o.Field != "":
		return pricing.SourceLabel(o.Source) + "’s " + o.Field + " price, from its daily file (a market price, not a sale)"
	}
	return "verified sales (the methodology’s fair market value)"
}
