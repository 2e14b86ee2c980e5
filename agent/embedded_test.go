package agent

import (
	"testing"

	"github.com/cardedge/cardedge/pricing"
)

func TestParseIntent(t *testing.T) {
	cases := []struct {
		q, kind, query, grade, window, direction, language string
	}{
		{"what is a slab 10 Charizard base set worth?", "quote", "charizard base set", "slab:10", "7d", "desc", ""},
		{"what is a PSA 10 Charizard base set worth?", "quote", "charizard base set", "slab:10", "7d", "desc", ""},
		{"How much is a BGS 9.5 Zapdos?", "quote", "zapdos", "bgs:9.5", "7d", "desc", ""},
		{"value of a raw lightly played Blastoise base", "quote", "blastoise base", "raw:lightly_played", "7d", "desc", ""},
		{"price of a raw Pikachu", "quote", "pikachu", "raw:near_mint", "7d", "desc", ""},
		{"top movers this week", "movers", "top movers week", "", "7d", "desc", ""},
		{"biggest losers this month in japanese", "movers", "biggest losers month", "", "30d", "asc", "ja"},
		{"what's trending today", "movers", "trending", "", "1d", "desc", ""},
		{"recent sales of charizard ex 151", "sales", "charizard ex 151", "", "7d", "desc", ""},
		{"price history of en:base1-4", "history", "en:base1-4", "", "7d", "desc", ""},
	}
	for _, tc := range cases {
		it := parseIntent(tc.q)
		grade := ""
		if it.grade != nil {
			grade = it.grade.String()
		}
		if it.kind != tc.kind || it.query != tc.query || grade != tc.grade || it.window != tc.window || it.direction != tc.direction || it.language != tc.language {
			t.Errorf("%q: %+v (grade %s)", tc.q, it, grade)
		}
	}
}

// TestParseIntent_MoversMetric: "top movers" ranks by the movers' default
// (the page's and REST's), by price change or volume when asked.
func TestParseIntent_MoversMetric(t *testing.T) {
	for q, want := range map[string]string{
		"top movers this week": pricing.MoversMetric, "biggest gainers by price change": "price_pct", "top movers by volume": "volume_pct",
	} {
		if got := parseIntent(q).metric; got != want {
			t.Errorf("%q: metric %s, want %s", q, got, want)
		}
	}
}

func TestMoney(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 5.5: "$5.50", 999.99: "$999.99", 1000: "$1,000.00", 8612.03: "$8,612.03", 1234567.8: "$1,234,567.80", -1200: "-$1,200.00"} {
		if got := money(&v); got != want {
			t.Errorf("%v: %s, want %s", v, got, want)
		}
	}
}
