package e2e_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// defaultSnapshotsEnv names the snapshots root of a default build, which
// make test does not build (about two minutes, 1 GiB): make test-default
// builds it once into var/snapshots (or reuses the one make run built from
// the same builder and catalog) and runs the tests that read it, these of
// *_default_test.go:
//
//	make test-default
//	CARDEDGE_DEFAULT_SNAPSHOTS=$PWD/var/snapshots go test ./e2e -run DefaultSnapshot -v
const defaultSnapshotsEnv = "CARDEDGE_DEFAULT_SNAPSHOTS"

// defaultEdge starts an edge of the test's own over the default snapshot
// and creates an unmetered Elite key; it skips the test when
// CARDEDGE_DEFAULT_SNAPSHOTS is not set, and fails it when the root's live
// snapshot is not of the default preset (its figures would prove nothing).
func defaultEdge(t *testing.T) (e *edgeProc, root string, se searchEdge) {
	t.Helper()
	root = os.Getenv(defaultSnapshotsEnv)
	if root == "" {
		t.Skip(defaultSnapshotsEnv + " names no snapshots root (a default build: make test-default)")
	}
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		t.Fatalf("%s=%s: %v", defaultSnapshotsEnv, root, err)
	}
	m, err := snapshots.ReadManifest(filepath.Join(root, id))
	if err != nil {
		t.Fatal(err)
	}
	if m.Preset != "default" {
		t.Fatalf("%s=%s: snapshot %s is of the %q preset, want default", defaultSnapshotsEnv, root, id, m.Preset)
	}
	t.Logf("snapshot %s: preset %s, seed %d, as_of %s, %d cards, %d sales", id, m.Preset, m.Seed, m.AsOf, m.Counts["cards"], m.Counts["sales"])
	e = serveRoot(t, root)
	return e, root, searchEdge{e.Base, e.key(t, access.Elite, false, true)}
}

// TestLeaderboards_DefaultSnapshot checks #19's done-when figures through
// the REST API and the chat on the default snapshot (defaultEdge):
// every trending leaderboard of both games (every metric x window, limit
// 50) is full and
// every row has sample_size >= 5 and price_usd >= 10 (the methodology's
// liquidity rule and the movers' floor) and no thin flag beside it; en:base1-4 answers per printing, its 1st-edition
// shadowless raw near-mint fmv at least 5x the unlimited one's; the quote
// and the chat (the embedded agent) read "PSA 10 Umbreon VMAX alt art
// Evolving Skies" as slab:10 of en:swsh7-215 and say so.
func TestLeaderboards_DefaultSnapshot(t *testing.T) {
	e, _, se := defaultEdge(t)
	base, key := se.base, se.key
	m := &estimate.Default
	for _, game := range []string{"pokemon", "onepiece"} {
		full, rows := 0, 0
		for _, metric := range snapshots.TrendingMetrics {
			for _, w := range snapshots.TrendingWindows {
				d := getJSON(t, base, key, "/api/v3/trending?limit=50&game="+game+"&metric="+metric+"&window="+w.Name)
				items := items(t, d["items"])
				if len(items) == 50 {
					full++
				} else {
					t.Errorf("%s %s %s: %d rows of %v", game, metric, w.Name, len(items), d["total"])
				}
				for _, row := range items {
					rows++
					if num(row["sample_size"]) < float64(m.Liquidity.MinSales) || num(row["price_usd"]) < m.Liquidity.MoversMinPriceUSD || slices.Contains(strs(row["flags"]), "thin") {
						t.Errorf("%s %s %s rank %v: %s %v sample %v price %v", game, metric, w.Name, row["rank"], row["card_id"], row["finish"], row["sample_size"], row["price_usd"])
					}
				}
			}
		}
		t.Logf("%s trending: %d of %d leaderboards full, %d rows, each with sample_size >= %d, price_usd >= %.2f and no thin flag", game,
			full, len(snapshots.TrendingMetrics)*len(snapshots.TrendingWindows), rows, m.Liquidity.MinSales, m.Liquidity.MoversMinPriceUSD)
	}

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
	for _, w := range []string{"psa 10", "PSA 10", "alt art", "Evolving Skies"} {
		if said := fmt.Sprint(qt["understood"].(map[string]any)["said"]); !strings.Contains(said, w) {
			t.Errorf("quote: said %s does not name %q", said, w)
		}
	}

	events, _ := readSSE(t, base, e.key(t, access.Pro, false, false), `{"message": "what is a PSA 10 Umbreon VMAX alt art from Evolving Skies worth?"}`)
	text, calls := checkStream(t, events)
	if args, _ := calls["quote"]["arguments"].(map[string]any); args["grade"] != "slab:10" || fmt.Sprint(args["ids"]) != "[en:swsh7-215]" {
		t.Errorf("chat quote arguments %v", args)
	}
	for _, w := range []string{"PSA 10", "en:swsh7-215", `"psa 10"`, "alternate art", "Evolving Skies"} {
		if !strings.Contains(text, w) {
			t.Errorf("chat answer %q does not say %q", text, w)
		}
	}
	t.Logf("chat: %s", text)
}
