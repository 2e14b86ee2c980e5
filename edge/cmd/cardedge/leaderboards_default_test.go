package main_test

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// TestLeaderboards_DefaultSnapshot checks #19's done-when figures through
// the REST API on a default snapshot, which make test does not build (about
// a minute, 2.8 GiB):
//
//	bin/cardbuild build --out /tmp/snapdef --preset default
//	CARDEDGE_DEFAULT_SNAPSHOTS=/tmp/snapdef go test ./edge/cmd/cardedge -run DefaultSnapshot -v
//
// Every trending leaderboard (every metric x window, limit 50) is full and
// every row has sample_size >= 5 and price_usd >= 1 (the methodology's
// liquidity rule); en:base1-4 answers per printing, its 1st-edition
// shadowless raw near-mint fmv at least 5x the unlimited one's.
func TestLeaderboards_DefaultSnapshot(t *testing.T) {
	root := os.Getenv("CARDEDGE_DEFAULT_SNAPSHOTS")
	if root == "" {
		t.Skip("CARDEDGE_DEFAULT_SNAPSHOTS names no snapshots root (a default build)")
	}
	e := mustTestEdge(t, root, edge.Options{CacheBytes: 64 << 20, WriteTimeout: time.Minute}, nil)
	base, key := "http://"+e.addr, e.key(t, access.Elite, false, true)
	m := &estimate.Default
	full, rows := 0, 0
	for _, metric := range snapshots.TrendingMetrics {
		for _, w := range snapshots.TrendingWindows {
			d := getJSON(t, base, key, "/api/v3/trending?limit=50&metric="+metric+"&window="+w.Name)
			items := items(t, d["items"])
			if len(items) == 50 {
				full++
			} else {
				t.Errorf("%s %s: %d rows of %v", metric, w.Name, len(items), d["total"])
			}
			for _, row := range items {
				rows++
				if num(row["sample_size"]) < float64(m.Liquidity.MinSales) || num(row["price_usd"]) < m.Liquidity.MinPriceUSD {
					t.Errorf("%s %s rank %v: %s %v sample %v price %v", metric, w.Name, row["rank"], row["card_id"], row["finish"], row["sample_size"], row["price_usd"])
				}
			}
		}
	}
	t.Logf("trending: %d of %d leaderboards full, %d rows, each with sample_size >= %d and price_usd >= %.2f",
		full, len(snapshots.TrendingMetrics)*len(snapshots.TrendingWindows), rows, m.Liquidity.MinSales, m.Liquidity.MinPriceUSD)

	card := getJSON(t, base, key, "/api/v3/cards/en:base1-4")
	price := map[string]float64{}
	var lines []string
	for _, f := range items(t, card["market"].(map[string]any)["by_finish"]) {
		price[f["finish"].(string)] = num(f["price_usd"])
		lines = append(lines, fmt.Sprintf("%s $%.2f (sample %v, %v, flags %v)", f["finish"], num(f["price_usd"]), f["sample_size"], f["confidence"], f["flags"]))
	}
	t.Logf("en:base1-4 raw near-mint by printing: %s", strings.Join(lines, "; "))
	if first, unl := price["holo/shadowless/1st-edition"], price["holo/unlimited"]; first < 5*unl {
		t.Errorf("1st edition shadowless $%.2f < 5 x unlimited $%.2f", first, unl)
	}
	for _, finish := range []string{"holo/unlimited", "holo/shadowless/1st-edition"} {
		q := "finish=" + url.QueryEscape(finish)
		ph := getJSON(t, base, key, "/api/v3/cards/en:base1-4/price-history?limit=1&"+q)
		an := getJSON(t, base, key, "/api/v3/cards/en:base1-4/analytics?window=1y&"+q)
		qt := getJSON(t, base, key, "/api/v3/quote?q=en:base1-4&grade=raw:near_mint&"+q)["quote"].(map[string]any)
		if ph["finish"] != finish || an["finish"] != finish || qt["finish"] != finish || num(qt["price_usd"]) != price[finish] ||
			ph["estimate"].(map[string]any)["fmv_usd"] != qt["price_usd"] {
			t.Errorf("%s: price history %v %v, analytics %v, quote %v %v", finish, ph["finish"], ph["estimate"], an["finish"], qt["finish"], qt["price_usd"])
		}
		t.Logf("%s: quote %v %v, 1y analytics %v sales, median $%v", finish, qt["label"], qt["price_usd"], an["sales"], an["median_usd"])
	}
	qt := getJSON(t, base, key, "/api/v3/quote?q="+url.QueryEscape("PSA 10 Umbreon VMAX alt art Evolving Skies"))["quote"].(map[string]any)
	if qt["card_id"] != "en:swsh7-215" || qt["grade"] != "slab:10" {
		t.Errorf("quote: %v", qt)
	}
	t.Logf("quote %q: %v %v %v $%v, understood %v", "PSA 10 Umbreon VMAX alt art Evolving Skies", qt["card_id"], qt["grade"], qt["label"], qt["price_usd"], qt["understood"].(map[string]any)["said"])
}
