package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// The agent's tools: the data of the REST routes and of the MCP tools of the
// same names (search, quote, get_prices, get_sales) plus trending, as typed
// calls over one snapshot, within the caller's history window. The embedded
// agent and a model call the same tools. search and quote are resolve
// and pricing, the one resolution and quote rule of the REST quote route and
// the MCP tools; get_prices and get_sales read history with pricing's reader.

// Tools runs the tools for one chat: over one snapshot (held open by the
// caller for the chat's duration), one game, within one tier's history
// window.
type Tools struct {
	src  *live.View
	game string
	tier access.Tier
}

// NewTools returns the tools over src for game and a caller of tier.
func NewTools(src *live.View, game string, tier access.Tier) *Tools {
	return &Tools{src: src, game: game, tier: tier}
}

// Tool is one tool: its name, description and JSON schema (what a model is
// told), and its function.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
	run         func(t *Tools, args json.RawMessage) (any, error)
}

func obj(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var (
	strProp = func(doc string) map[string]any { return map[string]any{"type": "string", "description": doc} }
	intProp = func(doc string) map[string]any { return map[string]any{"type": "integer", "description": doc} }
	numProp = func(doc string) map[string]any { return map[string]any{"type": "number", "description": doc} }
	idsProp = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 20, "description": "Card ids (e.g. en:base1-4) or partner product ids."}
)

// ToolList is every tool, in the order a model is told about them.
var ToolList = []Tool{
	{Name: "search", Description: "Find cards by name, set, number or id. Returns the best matches with their raw near-mint price.",
		Parameters: obj(map[string]any{"q": strProp("Free text: card name, set name or code, number, or a card id."), "ids": idsProp,
			"language": strProp("en, ja, zh-cn or zh-tw (optional)."), "limit": intProp("Matches to return, 1..10 (default 5).")}),
		run: (*Tools).search},
	{Name: "quote", Description: "Quote cards: per grade the Midprice (our fmv) when recent verified sales back it, else the Last verified sale, else the cheapest Ask. Without a grade it tries PSA 10 (slab:10), then Raw, near mint (grade_basis says why). Check price_basis before treating a number as a live market price.",
		Parameters: obj(map[string]any{"ids": idsProp, "q": strProp("Free text of one card, resolved like search (instead of ids)."),
			"grade":  strProp("A grade as people write it (PSA 10, psa10, BGS 9.5, NM, raw) or its code (raw:near_mint, slab:10, bgs:9.5) (optional)."),
			"finish": strProp("The printing (variant or parts of one, e.g. 1st-edition, shadowless); default each card's base printing (optional).")}),
		run: (*Tools).quote},
	{Name: "get_prices", Description: "Price history (fmv change points) of cards for one grade and printing, newest last. Always bound it with since or limit.",
		Parameters: obj(map[string]any{"ids": idsProp, "grade": strProp("Grade (PSA 10, NM, slab:10 ...), default Raw, near mint."),
			"finish": strProp("Printing (variant or parts of one, e.g. 1st-edition); default the card's base printing."),
			"since":  strProp("First day, YYYY-MM-DD (clamped to the caller's history window)."), "limit": intProp("Most recent points, 1..90 (default 30).")}, "ids"),
		run: (*Tools).getPrices},
	{Name: "get_sales", Description: "Recent verified sales of cards, newest first (within the caller's history window).",
		Parameters: obj(map[string]any{"ids": idsProp, "grade": strProp("Only this grade (optional)."), "limit": intProp("Sales per card, 1..20 (default 5).")}, "ids"),
		run:        (*Tools).getSales},
	{Name: "trending", Description: "Top movers: cards ranked by a trending metric over a window, the ranking the dashboard's movers page and GET /api/v3/trending give by default " +
		"(composite: price change weighted with volume change and by the sales behind it; price_pct: fmv change; volume_pct: volume change; volume_usd; sales_count), priced at least the movers' floor.",
		Parameters: obj(map[string]any{"metric": strProp("composite (default), price_pct, volume_pct, volume_usd or sales_count."),
			"min_price_usd": numProp("Least price of a row in USD; default the movers' floor ($10). 0: any price."),
			"window":        strProp("1d, 7d (default), 30d, 90d or 180d."), "language": strProp("en, ja, zh-cn, zh-tw or all (default)."),
			"direction": strProp("desc (default: biggest gainers) or asc (biggest losers)."), "limit": intProp("Rows, 1..20 (default 5).")}),
		run: (*Tools).trending},
}

func findTool(name string) *Tool {
	for i := range ToolList {
		if ToolList[i].Name == name {
			return &ToolList[i]
		}
	}
	return nil
}

// Run calls a tool by name; errors are the tool's (shown to the model or
// the user), never a failure of the chat.
func (t *Tools) Run(name string, args json.RawMessage) (any, error) {
	tool := findTool(name)
	if tool == nil {
		return nil, fmt.Errorf("unknown tool %q", name)
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	return tool.run(t, args)
}

type toolArgs struct {
	Q         string   `json:"q"`
	IDs       []string `json:"ids"`
	Language  string   `json:"language"`
	Limit     int      `json:"limit"`
	Grade     string   `json:"grade"`
	Since     string   `json:"since"`
	Metric    string   `json:"metric"`
	Window    string   `json:"window"`
	Direction string   `json:"direction"`
	Finish    string   `json:"finish"`
	// MinPriceUSD is trending's price floor (nil: the movers' default).
	MinPriceUSD *float64 `json:"min_price_usd"`
}

func decodeArgs(args json.RawMessage) (toolArgs, error) {
	var a toolArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return a, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	if len(a.IDs) > 20 {
		return a, fmt.Errorf("at most 20 ids per call")
	}
	return a, nil
}

func clampInt(n, lo, hi, def int) int {
	if n == 0 {
		return def
	}
	return max(lo, min(hi, n))
}

// search: ids resolve one by one (resolve.ResolveAll), free text ranks the
// cards (resolve.Search), as the MCP search tool does.
func (t *Tools) search(args json.RawMessage) (any, error) {
	a, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if len(a.IDs) > 0 {
		rs, err := resolve.ResolveAll(ctx, t.src, t.game, true, a.IDs)
		if err != nil {
			return nil, err
		}
		return map[string]any{"game": t.game, "resolutions": rs, "cards": candidatesOf(t, resolve.UniqueCards(rs))}, nil
	}
	if strings.TrimSpace(a.Q) == "" {
		return nil, fmt.Errorf("give q or ids")
	}
	if a.Language != "" && !snapshots.IsLanguage(a.Language) {
		a.Language = ""
	}
	res, err := resolve.Search(ctx, t.src, resolve.SearchRequest{Game: t.game, Q: a.Q, Language: a.Language, Limit: clampInt(a.Limit, 1, 10, 5)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"game": t.game, "q": a.Q, "total": res.Total, "cards": res.Items, "understood": res.Understood}, nil
}

func candidatesOf(t *Tools, cards []*snapshots.Card) []resolve.Candidate {
	out := []resolve.Candidate{}
	for _, c := range cards {
		out = append(out, resolve.NewCandidate(t.src.Reader, c))
	}
	return out
}

// quote is the MCP quote: pricing.Quote over ids or one free-text q.
func (t *Tools) quote(args json.RawMessage) (any, error) {
	a, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	refs := a.IDs
	if len(refs) == 0 && strings.TrimSpace(a.Q) != "" {
		refs = []string{a.Q}
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("give ids or q")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	qs, err := pricing.Quote(ctx, t.src, pricing.QuoteRequest{Game: t.game, Refs: refs, Grade: a.Grade, Finish: a.Finish})
	if err != nil {
		return nil, err
	}
	return map[string]any{"as_of": t.src.AsOf.String(), "quotes": qs}, nil
}

// windowStart is the first day the caller may see (false: unlimited).
func (t *Tools) windowStart() (snapshots.Day, bool) {
	return access.WindowStart(t.src.AsOf, t.tier)
}

// perCard runs row for the card each id names (resolve.ByID), in order: its
// row, or {id, status: not_found}. A storage error stops it.
func (t *Tools) perCard(ids []string, row func(id string, c *snapshots.Card) (map[string]any, error)) ([]map[string]any, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("ids is required")
	}
	var out []map[string]any
	for _, id := range ids {
		c, _, err := resolve.ByID(t.src.Reader, t.game, id)
		if err != nil {
			out = append(out, map[string]any{"id": id, "status": "not_found"})
			continue
		}
		r, err := row(id, c)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (t *Tools) getPrices(args json.RawMessage) (any, error) {
	a, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	g, err := snapshots.ReadGradeOr(a.Grade, snapshots.RawNearMint)
	if err != nil {
		return nil, err
	}
	limit := clampInt(a.Limit, 1, 90, 30)
	var since snapshots.Day
	if a.Since != "" {
		if since, err = snapshots.ParseDay(a.Since); err != nil {
			return nil, err
		}
	}
	since = access.ClampSince(t.src.AsOf, t.tier, since, a.Since != "")
	out, err := t.perCard(a.IDs, func(id string, c *snapshots.Card) (map[string]any, error) {
		finish, err := pricing.PrintingOf(c, a.Finish)
		if err != nil {
			return map[string]any{"id": id, "status": "finish_not_found", "card_id": c.ID, "message": apperr.ErrorMessage(err)}, nil
		}
		series, err := t.src.Reader.PrintingSeries(c.Game, c.ID, finish)
		if err != nil {
			return nil, err
		}
		pts := pricing.PointRows(pricing.Points(snapshots.SeriesOf(series, g), since, t.src.AsOf, true, pricing.IntervalChange), pricing.MethodFMV)
		if len(pts) > limit {
			pts = pts[len(pts)-limit:]
		}
		prov, err := pricing.ReadProvenance(t.src.Reader, c)
		if err != nil {
			return nil, err
		}
		o := prov.SeriesOrigin(finish, g)
		row := map[string]any{"id": id, "status": "ok", "card_id": c.ID, "name": c.Name, "grade": g.String(), "finish": pricing.PrintingName(c, finish), "points": pts,
			"source": o.Source, "synthetic": o.Synthetic}
		if len(pts) > 1 && pts[0].PriceUSD > 0 {
			row["change_pct"] = snapshots.Round2(100 * (pts[len(pts)-1].PriceUSD - pts[0].PriceUSD) / pts[0].PriceUSD)
			row["from"], row["to"] = pts[0].Date, pts[len(pts)-1].Date
		}
		return row, nil
	})
	if err != nil {
		return nil, err
	}
	res := map[string]any{"basis": "fmv change points, oldest first, of the series each row's source made (a marketplace's file, verified sales, or synthetic)",
		"as_of": t.src.AsOf.String(), "prices": out}
	if start, ok := t.windowStart(); ok {
		res["window_start"] = start.String()
	}
	return res, nil
}

func (t *Tools) getSales(args json.RawMessage) (any, error) {
	a, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	keep, err := snapshots.ParseGradeFilter(a.Grade)
	if err != nil {
		return nil, err
	}
	limit := clampInt(a.Limit, 1, 20, 5)
	start, limited := t.windowStart()
	filter := pricing.SaleFilter{From: start, FromSet: limited, To: t.src.AsOf, Grade: keep}
	out, err := t.perCard(a.IDs, func(id string, c *snapshots.Card) (map[string]any, error) {
		sales, err := t.src.Reader.Sales(c.Game, c.ID)
		if err != nil {
			return nil, err
		}
		rows := []pricing.SaleRow{}
		for s := range filter.Sales(sales) {
			if len(rows) == limit {
				break
			}
			rows = append(rows, pricing.NewSaleRow(c, *s))
		}
		return map[string]any{"id": id, "status": "ok", "card_id": c.ID, "name": c.Name, "sales": rows}, nil
	})
	if err != nil {
		return nil, err
	}
	res := map[string]any{"basis": "verified sales only, newest first", "as_of": t.src.AsOf.String(), "cards": out}
	if limited {
		res["window_start"] = start.String()
	}
	return res, nil
}

func (t *Tools) trending(args json.RawMessage) (any, error) {
	a, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	metric, window, lang := a.Metric, a.Window, a.Language
	if metric == "" {
		metric = pricing.MoversMetric
	}
	if window == "" {
		window = "7d"
	}
	if lang == "" {
		lang = "all"
	}
	if !slices.Contains(snapshots.TrendingMetrics, metric) {
		return nil, fmt.Errorf("metric must be one of %s", strings.Join(snapshots.TrendingMetrics, ", "))
	}
	if windows := pricing.TrendingWindowNames(); !slices.Contains(windows, window) {
		return nil, fmt.Errorf("window must be one of %s", strings.Join(windows, ", "))
	}
	if lang != "all" && !snapshots.IsLanguage(lang) {
		return nil, fmt.Errorf("language must be en, ja, zh-cn, zh-tw or all")
	}
	liq := pricing.MoversLiquidity()
	if a.MinPriceUSD != nil {
		if *a.MinPriceUSD < 0 || math.IsNaN(*a.MinPriceUSD) || *a.MinPriceUSD > 1e9 {
			return nil, fmt.Errorf("min_price_usd must be 0 to 1e9")
		}
		liq.MinPriceCents = int64(math.Round(*a.MinPriceUSD * 100))
	}
	pg, err := pricing.RankTrending(t.src.Reader, t.src.AsOf, pricing.TrendingRequest{Game: t.game, Metric: metric, Window: window, Language: lang,
		Liquidity: liq, Asc: a.Direction == "asc", Limit: clampInt(a.Limit, 1, 20, 5)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"metric": metric, "window": window, "language": lang, "as_of": t.src.AsOf.String(), "total": pg.Total, "items": pg.Items,
		"min_sales": liq.MinSales, "min_price_usd": snapshots.USD(liq.MinPriceCents), "basis": liq.Basis()}, nil
}
