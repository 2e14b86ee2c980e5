package e2e_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/builder/source/sourcetest"
	"github.com/cardedge/cardedge/bulk/bulktest"
	"github.com/cardedge/cardedge/mcp/mcptest"
)

// Real prices end to end (issue 30): a snapshot built from the builder's
// hand-written fixtures in Cardmarket's and TCGplayer's formats (two days,
// builder/testdata/sources) is served by the cardedge binary, and every
// front door gives back exactly the files' numbers with their provenance:
// card detail, prices per source, the quote, price and partner history,
// the leaderboard, MCP get_prices and the bulk files. Every REST response
// is checked against the OpenAPI document the server serves.
//
// The numbers, from the fixtures (en:base1-4, Charizard of Base Set):
//
//   - TCGplayer (tcgplayer/day1, day2: group 604, product 42382, Holofoil):
//     market 350.00 on 2026-11-19, then market 365.25, low 310.00, mid
//     370.00, high 520.00 on 2026-11-20; the shadowless printing (product
//     106999) 1,200.00 on 2026-11-19 only.
//   - Cardmarket (price_guide_6-2026-11-19.json, -20.json: idProduct
//     273699): trend 310.25 EUR, then avg 320, low 260, trend 320.50, avg1
//     330, avg7 318, avg30 305 EUR; the ECB rates (ecb/eurofxref-hist.csv)
//     1.04 and 1.05 USD per EUR on those days: 322.66 and 336.53 USD.

// at reads a path of a decoded JSON value: keys and indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no element %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

// want compares the fields of an object with want's, as JSON values
// (numbers as float64).
func wantFields(t *testing.T, what string, got any, want map[string]any) {
	t.Helper()
	m, ok := got.(map[string]any)
	if !ok {
		t.Errorf("%s: not an object: %v", what, got)
		return
	}
	sub := map[string]any{}
	for k := range want {
		sub[k] = m[k]
	}
	var norm map[string]any
	b, _ := json.Marshal(want)
	json.Unmarshal(b, &norm)
	if diff := cmp.Diff(norm, sub); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func TestRealData_Served(t *testing.T) {
	root, err := sourcetest.BuildDays(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := serveRoot(t, root)
	key := p.key(t, access.Elite, false, false)
	c := keyedClient
	get := func(path string) map[string]any {
		t.Helper()
		r := doAt(t, c, p.Base, "GET", path, key, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.Status, truncate(r.Body))
		}
		return data(t, r)
	}

	t.Run("card detail", func(t *testing.T) {
		d := get("/api/v3/cards/en:base1-4")
		if d["partner_product_id"] != float64(42382) {
			t.Errorf("partner_product_id %v, want TCGplayer's 42382", d["partner_product_id"])
		}
		wantFields(t, "market", d["market"], map[string]any{"price_usd": 365.25, "price_date": "2026-11-20", "source": "tcgplayer", "synthetic": false,
			"finish": "holo/unlimited", "confidence": "medium", "flags": []string{}})
		wantFields(t, "by_finish[0]", at(t, d, "market", "by_finish", 0), map[string]any{"finish": "holo/unlimited", "price_usd": 365.25, "source": "tcgplayer"})
		wantFields(t, "by_finish[2]", at(t, d, "market", "by_finish", 2), map[string]any{"finish": "holo/shadowless", "price_usd": 1200, "source": "tcgplayer"})
		wantFields(t, "market_ids[0]", at(t, d, "market_ids", 0), map[string]any{"variant": "holo/unlimited", "cardmarket": 273699, "tcgplayer": 42382,
			"tcgplayer_url":  "https://www.tcgplayer.com/product/42382",
			"cardmarket_url": "https://www.cardmarket.com/en/Pokemon/Products/Search?searchString=Charizard"})
		// A printing's own TCGplayer id and a prefixed Cardmarket id
		// resolve the card.
		for _, id := range []string{"106999", "tcgplayer:42382", "cardmarket:273699"} {
			if got := get("/api/v3/cards/" + id)["card_id"]; got != "en:base1-4" {
				t.Errorf("%s resolves to %v", id, got)
			}
		}
	})

	t.Run("prices per source", func(t *testing.T) {
		d := get("/prices?ids=en:base1-4&source=cardmarket")
		wantFields(t, "cardmarket", at(t, d, "items", 0, "prices", "cardmarket"), map[string]any{
			"price_usd": 336.53, "date": "2026-11-20", "age_days": 0, "source": "cardmarket", "synthetic": false, "stale": false,
			"field": "trend", "amount": 320.5, "currency": "EUR", "rate": 1.05, "rate_date": "2026-11-20", "product_id": "273699", "match": "id",
			"fields": map[string]any{
				"avg": map[string]any{"price_usd": 336, "amount": 320}, "low": map[string]any{"price_usd": 273, "amount": 260},
				"trend": map[string]any{"price_usd": 336.53, "amount": 320.5}, "avg1": map[string]any{"price_usd": 346.5, "amount": 330},
				"avg7": map[string]any{"price_usd": 333.9, "amount": 318}, "avg30": map[string]any{"price_usd": 320.25, "amount": 305},
			}})
		d = get("/prices?ids=42382&source=tcgplayer")
		wantFields(t, "tcgplayer", at(t, d, "items", 0, "prices", "tcgplayer"), map[string]any{
			"price_usd": 365.25, "date": "2026-11-20", "source": "tcgplayer", "stale": false, "field": "market", "amount": 365.25, "currency": "USD",
			"product_id": "42382",
			"fields": map[string]any{"market": map[string]any{"price_usd": 365.25, "amount": 365.25}, "low": map[string]any{"price_usd": 310, "amount": 310},
				"mid": map[string]any{"price_usd": 370, "amount": 370}, "high": map[string]any{"price_usd": 520, "amount": 520}},
		})
		if _, ok := at(t, d, "items", 0, "prices", "tcgplayer").(map[string]any)["rate"]; ok {
			t.Error("a USD number has a rate")
		}
		// own is the headline (TCGplayer's series), partner TCGplayer's file.
		d = get("/prices?ids=cardmarket:273699&source=all")
		wantFields(t, "own", at(t, d, "items", 0, "prices", "own"), map[string]any{"price_usd": 365.25, "source": "tcgplayer", "confidence": "medium", "stale": false})
		wantFields(t, "partner", at(t, d, "items", 0, "prices", "partner"), map[string]any{"price_usd": 365.25, "source": "tcgplayer", "field": "market"})
		// The shadowless printing: Cardmarket's day 2 guide left it out,
		// its day 1 (a day old: still fresh) serves, converted at that
		// day's rate (900 EUR x 1.04).
		d = get("/prices?ids=en:base1-4&source=cardmarket&finish=holo/shadowless")
		wantFields(t, "shadowless cardmarket", at(t, d, "items", 0, "prices", "cardmarket"), map[string]any{
			"price_usd": 936, "amount": 900, "currency": "EUR", "rate_date": "2026-11-19", "date": "2026-11-19", "age_days": 1, "stale": false,
			"fields": map[string]any{"trend": map[string]any{"price_usd": 936, "amount": 900}}})
	})

	t.Run("quote", func(t *testing.T) {
		d := get("/api/v3/quote?q=en:base1-4&grade=raw:near_mint")
		wantFields(t, "quote", d["quote"], map[string]any{"label": "Midprice", "price_usd": 365.25, "price_date": "2026-11-20", "source": "tcgplayer", "synthetic": false})
		wantFields(t, "midprice", at(t, d, "quote", "midprice"), map[string]any{"status": "ok", "source": "tcgplayer", "confidence": "medium"})
	})

	t.Run("history", func(t *testing.T) {
		d := get("/api/v3/cards/en:base1-4/price-history?interval=day")
		if d["source"] != "tcgplayer" || d["synthetic"] != false {
			t.Errorf("price history source %v synthetic %v", d["source"], d["synthetic"])
		}
		var pts []any
		for _, it := range d["items"].([]any) {
			pts = append(pts, []any{at(t, it, "date"), at(t, it, "price_usd")})
		}
		if diff := cmp.Diff([]any{[]any{"2026-11-19", 350.0}, []any{"2026-11-20", 365.25}}, pts); diff != "" {
			t.Errorf("price history (-want +got):\n%s", diff)
		}
		d = get("/api/v3/cards/en:base1-4/partner-history")
		wantFields(t, "partner history", d, map[string]any{"source": "tcgplayer", "synthetic": false, "finish": "holo/unlimited", "items": []any{
			map[string]any{"date": "2026-11-19", "market_price_usd": 350, "sales": 0, "volume_usd": 0},
			map[string]any{"date": "2026-11-20", "market_price_usd": 365.25, "sales": 0, "volume_usd": 0}}})
		srcs := d["sources"].([]any)
		if len(srcs) != 2 {
			t.Fatalf("%d sources, want tcgplayer and cardmarket: %v", len(srcs), srcs)
		}
		wantFields(t, "tcgplayer days", srcs[0], map[string]any{"source": "tcgplayer", "field": "market", "currency": "USD", "stale": false, "items": []any{
			map[string]any{"date": "2026-11-19", "price_usd": 350, "amount": 350, "rate_date": nil},
			map[string]any{"date": "2026-11-20", "price_usd": 365.25, "amount": 365.25, "rate_date": nil}}})
		wantFields(t, "cardmarket days", srcs[1], map[string]any{"source": "cardmarket", "field": "trend", "currency": "EUR", "grade": "raw:near_mint", "items": []any{
			map[string]any{"date": "2026-11-19", "price_usd": 322.66, "amount": 310.25, "rate_date": "2026-11-19"},
			map[string]any{"date": "2026-11-20", "price_usd": 336.53, "amount": 320.5, "rate_date": "2026-11-20"}}})
	})

	t.Run("leaderboard", func(t *testing.T) {
		// The methodology's $1 liquidity price: the movers' $10 floor would leave en:xy1-1 out.
		d := get("/api/v3/trending?metric=price_pct&window=1d&min_price_usd=1")
		var rows []any
		for _, it := range d["items"].([]any) {
			rows = append(rows, []any{at(t, it, "card_id"), at(t, it, "value"), at(t, it, "price_usd"), at(t, it, "source"), at(t, it, "sample_size")})
		}
		// 365.25 / 350 - 1 = +4.36 %; en:xy1-1 6.10 / 6.00 - 1 = +1.67 %.
		want := []any{[]any{"en:base1-4", 4.36, 365.25, "tcgplayer", 0.0}, []any{"en:xy1-1", 1.67, 6.1, "tcgplayer", 0.0}}
		if diff := cmp.Diff(want, rows); diff != "" {
			t.Errorf("1d price_pct movers (-want +got):\n%s", diff)
		}
		// min_sales above the methodology's asks for verified sales: none.
		if d := get("/api/v3/trending?metric=price_pct&window=1d&min_sales=6&min_price_usd=1"); len(d["items"].([]any)) != 0 {
			t.Errorf("min_sales=6: %v", d["items"])
		}
		m := get("/api/v3/methodology")
		if got := at(t, m, "sources", "priority"); !cmp.Equal(got, []any{"tcgplayer", "cardmarket", "pricecharting"}) || at(t, m, "sources", "stale_after_days") != 2.0 {
			t.Errorf("methodology sources: %v", m["sources"])
		}
	})

	t.Run("mcp get_prices", func(t *testing.T) {
		s := mcptest.Open(t, p.Base, key)
		defer s.Close()
		res := s.OK("get_prices", map[string]any{"ids": []string{"en:base1-4"}, "interval": "day", "since": "2026-11-01"})
		if res.Env["market_source"] != "sources" || res.Env["synthetic"] != false {
			t.Errorf("envelope market_source %v synthetic %v", res.Env["market_source"], res.Env["synthetic"])
		}
		it := at(t, res.Data, "items", 0)
		wantFields(t, "get_prices", it, map[string]any{"card_id": "en:base1-4", "finish": "holo/unlimited", "source": "tcgplayer", "synthetic": false, "points": []any{
			map[string]any{"date": "2026-11-19", "fmv_usd": 350, "sales": 0, "sample_size": 0, "confidence": "medium", "flags": []any{}},
			map[string]any{"date": "2026-11-20", "fmv_usd": 365.25, "sales": 0, "sample_size": 0, "confidence": "medium", "flags": []any{}}}})
		wantFields(t, "get_prices estimate", at(t, it, "estimate"), map[string]any{"fmv_usd": 365.25, "confidence": "medium"})
		q := s.OK("search", map[string]any{"ids": []string{"cardmarket:273699", "106997"}})
		got := []any{at(t, q.Data, "items", 0, "card", "card_id"), at(t, q.Data, "items", 0, "resolved_by"), at(t, q.Data, "items", 1, "card", "card_id")}
		if !cmp.Equal(got, []any{"en:base1-4", "cardmarket_product_id", "en:base1-2"}) {
			t.Errorf("search by marketplace ids: %v", got)
		}
	})

	t.Run("bulk", func(t *testing.T) {
		b := doAt(t, c, p.Base, "GET", "/api/v3/bulk", "", nil)
		if d := data(t, b); d["market_source"] != "sources" || d["synthetic"] != false {
			t.Errorf("bulk listing: market_source %v synthetic %v", d["market_source"], d["synthetic"])
		}
		rows := func(name string) []map[string]any {
			t.Helper()
			r := doAt(t, c, p.Base, "GET", "/api/v3/bulk/"+name, key, nil)
			s := doAt(t, c, p.Base, "GET", "/api/v3/bulk/"+name+"/schema", "", nil)
			if r.Status != 200 || s.Status != 200 {
				t.Fatalf("%s: %d, schema %d", name, r.Status, s.Status)
			}
			if _, err := bulktest.Check(s.Body, bytes.NewReader(r.Body)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(r.Body))
			if err != nil {
				t.Fatal(err)
			}
			var out []map[string]any
			sc := bufio.NewScanner(zr)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				if m["card_id"] == "en:base1-4" {
					out = append(out, m)
				}
			}
			return out
		}
		prices := rows("pokemon-prices")
		if len(prices) != 3 {
			t.Fatalf("%d price rows of en:base1-4, want one per priced printing: %v", len(prices), prices)
		}
		wantFields(t, "prices row", prices[0], map[string]any{"finish": "holo/unlimited", "grade": "raw:near_mint", "fmv_usd": 365.25, "tvwap_usd": 365.25,
			"median_usd": 365.25, "sample_size": 0, "confidence": "medium", "source": "tcgplayer", "synthetic": false})
		var hist []any
		for _, r := range rows("pokemon-price-history") {
			if r["finish"] == "holo/unlimited" {
				hist = append(hist, []any{r["date"], r["fmv_usd"], r["source"]})
			}
		}
		if diff := cmp.Diff([]any{[]any{"2026-11-19", 350.0, "tcgplayer"}, []any{"2026-11-20", 365.25, "tcgplayer"}}, hist); diff != "" {
			t.Errorf("price-history rows (-want +got):\n%s", diff)
		}
		cards := rows("pokemon-cards")
		wantFields(t, "cards row market", cards[0]["market"], map[string]any{"price_usd": 365.25, "price_date": "2026-11-20", "source": "tcgplayer", "synthetic": false})
		wantFields(t, "cards row market_ids[0]", at(t, cards[0], "market_ids", 0), map[string]any{"variant": "holo/unlimited", "cardmarket": 273699, "tcgplayer": 42382})
	})
}
