package mcp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/sweep"
)

// TestMCP_AlertTools: an agent with a Pro account's chat-user token
// watches the market for it: it makes an alert (the card named, not only
// an id) and a want-list entry, lists them, deletes one, reads the alerts
// that fired, the collection's recorded history and set completion. Every
// result validates against its tool's outputSchema (mcptest). API keys see
// none of these tools.
func TestMCP_AlertTools(t *testing.T) {
	srv := mustServer(t, nil)
	const account = "a_alertsalertsalerts"
	s := srv.open(t, srv.token(t, account, access.Pro))
	defer s.Close()
	a := s.OK("create_alert", map[string]any{"card": "en:base1-4", "kind": "at_or_above", "price_usd": 1}).Data
	if a["card_id"] != "en:base1-4" || a["kind"] != "at_or_above" || a["price_usd"] != 1.0 || a["want"] != false {
		t.Fatalf("create_alert: %s", truncate(a))
	}
	w := s.OK("add_to_want_list", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 2, "price_usd": 2000, "note": "graded"}).Data
	if w["want"] != true || w["quantity"] != 2.0 || w["kind"] != "at_or_below" || w["grade"] != "slab:10" {
		t.Fatalf("add_to_want_list: %s", truncate(w))
	}
	s.Fails("create_alert", map[string]any{"card": "en:base1-4", "kind": "move", "pct": 5, "days": 3}, "days: 1, 7 or 30")
	s.Fails("create_alert", map[string]any{"card": "pikachu", "kind": "first_sale"}, "candidates")
	s.Fails("create_alert", map[string]any{"kind": "first_sale"}, "give card")
	l := s.OK("list_alerts", nil).Data
	if rules := items(t, l["rules"]); len(rules) != 2 || l["limit"] != 200.0 || l["set_limit"] != 10.0 {
		t.Fatalf("list_alerts: %s", truncate(l))
	}
	if l := s.OK("list_alerts", map[string]any{"which": "want_list"}).Data; len(items(t, l["rules"])) != 1 {
		t.Errorf("list_alerts want_list: %s", truncate(l))
	}

	// The snapshot goes live: the alert fires (what serve runs at a swap).
	run, err := sweep.New(sweep.Options{State: srv.State})
	if err != nil {
		t.Fatal(err)
	}
	v := tinyView(t).Acquire()
	if _, err := srv.Alerts.Evaluate(context.Background(), alert.NewReaderMarket(v.Reader, v.AsOf), run); err != nil {
		t.Fatal(err)
	}
	r := s.OK("recent_alerts", map[string]any{"limit": 5}).Data
	if evs := items(t, r["alerts"]); len(evs) != 1 || evs[0]["rule_id"] != a["id"] || evs[0]["summary"] == "" {
		t.Fatalf("recent_alerts: %s", truncate(r))
	}
	s.OK("delete_alert", map[string]any{"rule_id": a["id"]})
	s.Fails("delete_alert", map[string]any{"rule_id": a["id"]}, "no rule")

	s.OK("add_to_collection", map[string]any{"card": "en:base1-4", "quantity": 1})
	if h := s.OK("collection_history", nil).Data; h["from"] == "" || len(items(t, h["points"])) != 0 {
		t.Errorf("collection_history before any recording: %s", truncate(h))
	}
	c := s.OK("set_completion", nil).Data
	if sets := items(t, c["sets"]); len(sets) != 1 || sets[0]["set_id"] != "en:base1" || sets[0]["owned"] != 1.0 {
		t.Errorf("set_completion: %s", truncate(c))
	}
	s.Fails("set_completion", map[string]any{"grade": "grade nine"}, "grade")

	ks := srv.open(t, srv.key(t, access.Pro, false))
	defer ks.Close()
	if got := ks.ToolNames(); slices.Contains(got, "create_alert") || slices.Contains(got, "recent_alerts") {
		t.Errorf("an API key lists the alert tools: %v", got)
	}
}
