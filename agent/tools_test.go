package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/agent"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// TestTools_Run calls every tool once, and a few bad calls.
func TestTools_Run(t *testing.T) {
	tools := agent.NewTools(src, "pokemon", access.Pro)
	for _, tc := range []struct{ name, args, want string }{
		{"search", `{"q": "charizard base"}`, `"cards"`},
		{"search", `{"ids": ["en:base1-4"]}`, `"resolutions"`},
		{"quote", `{"ids": ["en:base1-4"], "grade": "slab 10"}`, `"quotes"`},
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
		{"nope", `{}`}, {"search", `{}`}, {"get_prices", `{}`}, {"trending", `{"window": "2d"}`}, {"quote", `{"ids": ["en:base1-4"], "grade": "psa:10"}`},
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
