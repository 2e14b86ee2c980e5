package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/agent"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// TestTools_Run calls every tool once, and a few bad calls.
func TestTools_Run(t *testing.T) {
	tools := agent.NewTools(src, "pokemon", access.Pro)
	for _, tc := range []struct{ name, args, want string }{
		{"search", `{"q": "charizard base"}`, `"cards"`},
		{"search", `{"ids": ["en:base1-4"]}`, `"resolutions"`},
		{"quote", `{"ids": ["en:base1-4"], "grade": "slab 10"}`, `"quotes"`},
		{"quote", `{"ids": ["en:base1-4"], "grade": "psa10"}`, `"grade_name":"PSA 10"`},
		{"get_prices", `{"ids": ["en:base1-4"]}`, `"window_start"`},
		{"get_sales", `{"ids": ["en:base1-4", "en:nope"], "grade": "raw"}`, `"not_found"`},
		{"trending", `{"direction": "asc", "limit": 3}`, `"items"`},
	} {
		res, err := tools.Run(tc.name, json.RawMessage(tc.args))
		if err != nil {
			t.Errorf("%s %s: %v", tc.name, tc.args, err)
			continue
		}
		b, _ := json.Marshal(res)
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s %s: %.300s has no %s", tc.name, tc.args, b, tc.want)
		}
	}
	for _, tc := range []struct{ name, args string }{
		{"nope", `{}`}, {"search", `{}`}, {"get_prices", `{}`}, {"trending", `{"window": "2d"}`}, {"quote", `{"ids": ["en:base1-4"], "grade": "psa:11"}`}, {"trending", `{"min_price_usd": -1}`},
	} {
		if _, err := tools.Run(tc.name, json.RawMessage(tc.args)); err == nil {
			t.Errorf("%s %s: no error", tc.name, tc.args)
		}
	}
}

// TestRun_Embedded answers a question with the embedded agent and checks the
// events it emits.
func TestRun_Embedded(t *testing.T) {
	var events []string
	run := agent.NewRun(context.Background(), agent.NewTools(src, "pokemon", access.Elite), func(ev string, _ any) error {
		events = append(events, ev)
		return nil
	})
	if err := run.Answer(nil, []agent.Message{{Role: "user", Content: "what is a slab 10 charizard base worth?"}}); err != nil {
		t.Fatal(err)
	}
	if run.ToolCalls() < 2 || run.Tokens() == 0 || !strings.Contains(run.Text(), "Charizard") {
		t.Errorf("%d tool calls, %d tokens: %q", run.ToolCalls(), run.Tokens(), run.Text())
	}
	if events[0] != "tool_call" || events[1] != "tool_result" || events[len(events)-1] != "token" {
		t.Errorf("events %v", events)
	}
}

var src *live.View

func TestMain(m *testing.M) { os.Exit(snapshotstest.RunView(m, &src, live.NewView)) }

// TestTools_TrendingDefault: the chat's trending tool ranks as REST's trending
// route and the dashboard's movers page do by default (pricing.MoversMetric,
// pricing.MoversLiquidity: composite, $10 and up), and takes a floor.
func TestTools_TrendingDefault(t *testing.T) {
	tools := agent.NewTools(src, "pokemon", access.Elite)
	res, err := tools.Run("trending", json.RawMessage(`{"limit": 20}`))
	if err != nil {
		t.Fatal(err)
	}
	m := res.(map[string]any)
	if m["metric"] != pricing.MoversMetric || pricing.MoversMetric != "composite" || m["min_price_usd"] != snapshots.USD(pricing.MoversLiquidity().MinPriceCents) {
		t.Errorf("defaults: metric %v, min_price_usd %v", m["metric"], m["min_price_usd"])
	}
	for _, it := range m["items"].([]pricing.TrendingItem) {
		if it.PriceUSD == nil || *it.PriceUSD < 10 {
			t.Errorf("%s at %v under the movers' floor", it.CardID, it.PriceUSD)
		}
	}
	res, err = tools.Run("trending", json.RawMessage(`{"min_price_usd": 0, "metric": "price_pct"}`))
	if err != nil || res.(map[string]any)["min_price_usd"] != 0.0 {
		t.Errorf("min_price_usd 0: %v %v", res, err)
	}
}

// TestRun_EmbeddedTexts: the chat's answers name grades as people read them
// and say how movers rank.
func TestRun_EmbeddedTexts(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"what is a psa 10 charizard base worth?", "A PSA 10 Charizard"},
		{"recent sales of charizard base", "Recent verified sales of Charizard"},
		{"top movers this week", "by composite score"},
		{"top movers this week", "priced $10.00 and up"},
		{"top movers by price change this week", "by fmv change"},
	} {
		run := agent.NewRun(context.Background(), agent.NewTools(src, "pokemon", access.Elite), func(string, any) error { return nil })
		if err := run.Answer(nil, []agent.Message{{Role: "user", Content: tc.q}}); err != nil {
			t.Fatal(err)
		}
		text := run.Text()
		if !strings.Contains(text, tc.want) {
			t.Errorf("%q: %q does not say %q", tc.q, text, tc.want)
		}
		if m := regexp.MustCompile(`\b(raw|slab|bgs|cgc):[a-z0-9_.]+`).FindString(text); m != "" {
			t.Errorf("%q: the answer says the grade code %s: %q", tc.q, m, text)
		}
	}
}
