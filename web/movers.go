package web

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// The movers page (GET /api/v3/trending's leaderboards: every metric,
// window and language under the liquidity rule, pricing.Trending and
// pricing.Ranked) and the set pages (a set's breakdown by rarity, its price
// distribution as a histogram, its trending cards and its volume history as
// a chart: the set routes' data).

func (h *Handler) registerMarketRoutes() {
	h.mux.HandleFunc("GET "+Base+"/movers", h.requireSession(h.handleMovers))
	h.mux.HandleFunc("GET "+Base+"/sets/{id}", h.requireSession(h.handleSet))
}

// metricLabels say each trending metric in words.
var metricLabels = map[string]string{
	"composite": "Composite (price and volume)", "price_pct": "Price change", "volume_pct": "Volume change", "volume_usd": "Volume (USD)",
	"sales_count": "Sales", "new_listings": "New listings",
	"slab_composite": "Slabs: composite", "slab_price_pct": "Slabs: price change", "slab_volume_pct": "Slabs: volume change",
	"slab_volume_usd": "Slabs: volume (USD)", "slab_sales_count": "Slabs: sales",
}

var windowLabels = map[string]string{"1d": "1 day", "7d": "7 days", "30d": "30 days", "90d": "90 days", "180d": "180 days"}

var languageLabels = []option{{Value: "all", Label: "Every language"}, {Value: "en", Label: "English"}, {Value: "ja", Label: "Japanese"},
	{Value: "zh-cn", Label: "Chinese (simplified)"}, {Value: "zh-tw", Label: "Chinese (traditional)"}}

type moverView struct {
	Rank               int
	Name, Href, Detail string
	Lang               string // the name's language
	SetName, SetHref   string
	Printing           string
	Value, ValueClass  string
	Price              string
	Sample             int
	Flags              string
	Sales30d           int
}

type moversData struct {
	Metrics, Windows, Languages, Directions []option
	// Prices are the price floors offered (MinPrice the one shown, default
	// the movers' floor: pricing.MoversLiquidity).
	Prices                   []option
	MinPrice                 string
	Metric, Window, Language string
	MetricLabel, WindowLabel string
	Items                    []moverView
	Total                    int
	Basis                    string
	Game                     string
	Games                    []string
}

// handleMovers ranks the printings of a game by a trending metric over a
// window (one of snapshots.TrendingMetrics and TrendingWindows), highest
// first or lowest first, under the default liquidity rule.
func (h *Handler) handleMovers(w http.ResponseWriter, r *http.Request, si signedIn) {
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	q := r.URL.Query()
	var formErrs []string
	metric := pick("metric", q.Get("metric"), snapshots.TrendingMetrics, pricing.MoversMetric, &formErrs)
	window := pick("window", q.Get("window"), pricing.TrendingWindowNames(), "7d", &formErrs)
	lang := pick("language", q.Get("language"), []string{"all", "en", "ja", "zh-cn", "zh-tw"}, "all", &formErrs)
	dir := pick("direction", q.Get("direction"), []string{"desc", "asc"}, "desc", &formErrs)
	d := moversData{Metric: metric, Window: window, Language: lang, MetricLabel: metricLabels[metric], WindowLabel: windowLabels[window],
		Game: m.game, Games: m.Reader.Manifest().Games}
	for _, x := range snapshots.TrendingMetrics {
		d.Metrics = append(d.Metrics, option{Value: x, Label: metricLabels[x], Selected: x == metric})
	}
	for _, x := range pricing.TrendingWindowNames() {
		d.Windows = append(d.Windows, option{Value: x, Label: windowLabels[x], Selected: x == window})
	}
	for _, x := range languageLabels {
		x.Selected = x.Value == lang
		d.Languages = append(d.Languages, x)
	}
	d.Directions = []option{{Value: "desc", Label: "Highest first", Selected: dir == "desc"}, {Value: "asc", Label: "Lowest first", Selected: dir == "asc"}}
	liq := pricing.MoversLiquidity()
	floors := make([]string, len(priceFloors))
	for i, f := range priceFloors {
		floors[i] = strconv.FormatInt(f/100, 10)
	}
	floor := pick("min_price_usd", q.Get("min_price_usd"), floors, strconv.FormatInt(liq.MinPriceCents/100, 10), &formErrs)
	liq.MinPriceCents, _ = strconv.ParseInt(floor+"00", 10, 64)
	d.MinPrice = floor
	for i, f := range priceFloors {
		label := "$" + floors[i] + " and up"
		if f == 0 {
			label = "Any price"
		}
		if f == pricing.MoversLiquidity().MinPriceCents {
			label += " (default)"
		}
		d.Prices = append(d.Prices, option{Value: floors[i], Label: label, Selected: floors[i] == floor})
	}
	pg, err := pricing.RankTrending(m.Reader, m.AsOf, pricing.TrendingRequest{Game: m.game, Metric: metric, Window: window, Language: lang,
		Liquidity: liq, Asc: dir == "asc", Limit: 25})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Total, d.Basis = pg.Total, liq.Basis()+". "+estimate.Default.ConfidenceRule
	game := gameParamOf(m.game, m.View)
	for _, it := range pg.Items {
		d.Items = append(d.Items, newMoverView(game, it))
	}
	p := si.page("Movers", "movers", d)
	status := http.StatusOK
	if len(formErrs) > 0 {
		p.Error, status = strings.Join(formErrs, " "), http.StatusUnprocessableEntity
	}
	h.render(w, r, status, "movers", p)
}

// priceFloors are the price floors the movers page offers, in cents: the
// movers' default (pricing.MoversLiquidity, $10) among them.
var priceFloors = []int64{0, 100, 500, 1000, 2500, 5000, 10000}

func newMoverView(game string, it pricing.TrendingItem) moverView {
	v := moverView{Rank: it.Rank, Name: it.Name, Lang: it.Language, SetName: it.Set.Name, SetHref: setHref(game, it.Set.ID), Sample: it.SampleSize,
		Flags: strings.Join(it.Flags, ", "), Sales30d: it.Sales30d, Price: "—", Printing: "—",
		Detail: strings.ToUpper(it.Language) + " · " + it.CardID}
	printing := ""
	if it.Finish != nil {
		v.Printing = *it.Finish
		if !it.BaseFinish {
			printing = *it.Finish
		}
	}
	v.Href = cardHref(game, it.CardID, printing, "")
	if it.PriceUSD != nil {
		v.Price = money(cents(*it.PriceUSD))
	}
	v.Value, v.ValueClass = metricValue(it.Metric, it.Value)
	return v
}

// metricValue writes a trending value in the metric's unit.
func metricValue(metric string, v float64) (string, string) {
	class := ""
	if v > 0 {
		class = "up"
	} else if v < 0 {
		class = "down"
	}
	switch {
	case strings.HasSuffix(metric, "_pct"):
		return signedPct(v), class
	case strings.HasSuffix(metric, "composite"): // a score: weighted, clamped percentages
		return strings.TrimSuffix(signedPct(v), "%"), class
	case strings.HasSuffix(metric, "_usd"):
		return money(int64(math.Round(v * 100))), ""
	}
	return formatInt(int64(math.Round(v))), ""
}

// pick returns the value of a page's parameter name: v when it is one of
// values, def when v is empty; otherwise def, and errs says what was wrong
// (the page is then a form error, 422).
func pick(name, v string, values []string, def string, errs *[]string) string {
	if v == "" {
		return def
	}
	for _, x := range values {
		if x == v {
			return v
		}
	}
	*errs = append(*errs, "“"+v+"” is not a "+name+" ("+strings.Join(values, ", ")+"): showing "+def+".")
	return def
}

type rarityView struct {
	Rarity, Value, Median, Max, Share, TopHref, TopName string
	Cards, Priced                                       int
}

type setPageData struct {
	Set           *snapshots.Set
	Game          string
	Value, Median string
	Priced, Cards int
	Volume30d     string
	Breakdown     []rarityView
	Histogram     BarChart
	Buckets       []bucketView
	Trending      []moverView
	Volume        BarChart
	VolumeRows    []volumeRow
	Ranges        []option
	Days          int
	Granularity   string
}

type bucketView struct {
	Range string
	Cards int
	Pct   string
}

type volumeRow struct {
	Period, Volume string
	Sales          int
}

func (h *Handler) handleSet(w http.ResponseWriter, r *http.Request, si signedIn) {
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	set, err := m.Reader.Set(m.game, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	agg, err := m.Reader.SetAggregates(m.game, set.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	game := gameParamOf(m.game, m.View)
	t := agg.Totals
	d := setPageData{Set: set, Game: game, Value: money(t.ValueCents), Median: moneyOr(t.MedianPriceCents), Priced: t.PricedCards, Cards: t.Cards,
		Volume30d: money(t.Volume30dCents)}
	for _, b := range agg.Breakdown {
		rv := rarityView{Rarity: b.Rarity, Cards: b.Cards, Priced: b.PricedCards, Value: money(b.ValueCents), Median: moneyOr(b.MedianPriceCents),
			Max: moneyOr(b.MaxPriceCents), Share: strconv.FormatFloat(100*float64(b.ValueCents)/math.Max(1, float64(t.ValueCents)), 'f', 1, 64) + "%"}
		if rv.Rarity == "" {
			rv.Rarity = "No rarity"
		}
		if b.TopCardID != "" {
			rv.TopHref = cardHref(game, b.TopCardID, "", "")
			rv.TopName = b.TopCardID
			if c, err := m.Reader.Card(m.game, b.TopCardID); err == nil {
				rv.TopName = c.Name + " #" + c.Number
			}
		}
		d.Breakdown = append(d.Breakdown, rv)
	}

	// The price distribution as a histogram: cards per price bucket.
	var labels []string
	var counts []int64
	for _, b := range agg.Distribution {
		label := money(b.MinCents) + "+"
		if b.MaxCents > 0 {
			label = money(b.MinCents) + "–" + money(b.MaxCents)
		}
		labels = append(labels, label)
		counts = append(counts, int64(b.Cards))
		d.Buckets = append(d.Buckets, bucketView{Range: label, Cards: b.Cards,
			Pct: strconv.FormatFloat(100*float64(b.Cards)/math.Max(1, float64(t.PricedCards)), 'f', 1, 64) + "%"})
	}
	d.Histogram = newBars("dist", "Price distribution of "+set.Name+": priced cards per raw near-mint price range", labels,
		[]Series{{Name: "cards", Class: "bar-calls", Values: counts}}, formatInt)
	d.Histogram.Desc = formatInt(int64(t.PricedCards)) + " priced cards of " + formatInt(int64(t.Cards)) + "; median " + d.Median + "."
	if n := len(agg.Distribution); n > 0 { // the axis: the buckets' bounds, under the bars' edges
		d.Histogram.XLabels = nil
		for i, b := range agg.Distribution {
			x, anchor := pct(float64(i)*100/float64(n)), "middle"
			if i == 0 {
				anchor = "start"
			}
			d.Histogram.XLabels = append(d.Histogram.XLabels, chartLabel{X: x, Anchor: anchor, Label: shortMoney(b.MinCents), Minor: i%2 == 1})
		}
		if last := agg.Distribution[n-1]; last.MaxCents > 0 {
			d.Histogram.XLabels = append(d.Histogram.XLabels, chartLabel{X: "100%", Anchor: "end", Label: shortMoney(last.MaxCents), Minor: n%2 == 1})
		}
	}

	// Trending cards of the set: the game's composite leaderboard over 30
	// days, the set's rows.
	lb, err := pricing.Trending(m.Reader, m.game, "composite", "30d", "all", pricing.DefaultLiquidity())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	cards, err := m.Reader.Cards(m.game)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows := catalog.SetRows(lb.Rows, cards, set.ID)
	items, err := pricing.Ranked(m.Reader, m.game, "composite", pricing.Leaderboard{Rows: rows}, false, 0, 10)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, it := range items {
		d.Trending = append(d.Trending, newMoverView(game, it))
	}

	// Volume history: verified sales of the set's cards per week (per day
	// over 30 days), over the range asked.
	var formErrs []string
	days := pick("period in days", r.URL.Query().Get("days"), []string{"30", "90", "365"}, "90", &formErrs)
	d.Days, _ = strconv.Atoi(days)
	for _, n := range []int{30, 90, 365} {
		d.Ranges = append(d.Ranges, option{Value: strconv.Itoa(n), Label: "Last " + strconv.Itoa(n) + " days", Selected: n == d.Days})
	}
	d.Granularity = "weekly"
	if d.Days == 30 {
		d.Granularity = "daily"
	}
	daily, err := m.Reader.SetDaily(m.game, set.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	from := m.AsOf - snapshots.Day(d.Days) + 1
	if d.Granularity == "weekly" { // whole weeks: from the Monday of the first
		from -= snapshots.Day((int(from.Time().Weekday()) + 6) % 7)
	}
	var vlabels []string
	var vols []int64
	var total int64
	for _, p := range pricing.Periods(daily, from, m.AsOf, d.Granularity) { // the set's volume-history route's periods
		v := cents(p.VolumeUSD)
		vlabels, vols = append(vlabels, p.PeriodStart), append(vols, v)
		d.VolumeRows = append(d.VolumeRows, volumeRow{Period: p.PeriodStart, Sales: p.Sales, Volume: money(v)})
		total += v
	}
	unit := "week"
	if d.Granularity == "daily" {
		unit = "day"
	}
	d.Volume = newBars("volume", "Verified sales volume of "+set.Name+" per "+unit+", last "+strconv.Itoa(d.Days)+" days", vlabels,
		[]Series{{Name: "volume", Class: "bar-calls", Values: vols}}, money)
	d.Volume.Desc = money(total) + " of verified sales from " + from.String() + " to " + m.AsOf.String() + "."
	p := si.page(set.Name, "cards", d)
	status := http.StatusOK
	if len(formErrs) > 0 {
		p.Error, status = strings.Join(formErrs, " "), http.StatusUnprocessableEntity
	}
	h.render(w, r, status, "set", p)
}

func moneyOr(cents int64) string {
	if cents == 0 {
		return "—"
	}
	return money(cents)
}
