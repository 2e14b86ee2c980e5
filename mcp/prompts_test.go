package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	cardmcp "github.com/cardedge/cardedge/mcp"
)

// The prompts (prompts/list, prompts/get) over real JSON-RPC (hostEnv,
// resources_test.go).

// promptResult is a prompts/get result.
type promptResult struct {
	Description string `json:"description"`
	Messages    []struct {
		Role    string `json:"role"`
		Content struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Resource struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
			} `json:"resource"`
		} `json:"content"`
	} `json:"messages"`
}

func TestServer_Prompts(t *testing.T) {
	e := mustHostEnv(t)
	key := e.session(t, e.keys[access.Elite], "2025-11-25")
	app := e.session(t, appPro, "2025-11-25")

	t.Run("List", func(t *testing.T) {
		type prompt struct {
			Name, Title, Description string
			Arguments                []struct {
				Name, Title, Description string
				Required                 bool
			}
		}
		for _, tc := range []struct {
			name string
			s    *hostSession
			want []string
		}{
			{"APIKey", key, []string{cardmcp.PromptComparePrintings, cardmcp.PromptWhatMoved}},
			{"ChatTools", app, []string{cardmcp.PromptComparePrintings, cardmcp.PromptValueCollection, cardmcp.PromptWhatMoved}},
		} {
			var res struct{ Prompts []prompt }
			tc.s.call("prompts/list", nil, &res)
			var names []string
			for _, p := range res.Prompts {
				names = append(names, p.Name)
				if p.Title == "" || p.Description == "" {
					t.Errorf("%s: prompt %s without title or description: %+v", tc.name, p.Name, p)
				}
				for _, a := range p.Arguments {
					if a.Title == "" || a.Description == "" {
						t.Errorf("%s: argument %s of %s: %+v", tc.name, a.Name, p.Name, a)
					}
				}
				switch p.Name {
				case cardmcp.PromptComparePrintings:
					if len(p.Arguments) != 1 || p.Arguments[0].Name != "card" || !p.Arguments[0].Required {
						t.Errorf("compare_printings arguments: %+v", p.Arguments)
					}
				case cardmcp.PromptWhatMoved:
					if len(p.Arguments) != 1 || p.Arguments[0].Name != "game" || p.Arguments[0].Required {
						t.Errorf("what_moved_this_week arguments: %+v", p.Arguments)
					}
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("%s: prompts %v, want %v", tc.name, names, tc.want)
			}
		}
	})

	// compare_printings names the tools to call, in order; a caller with
	// the chat tools is told of show_cards too. It costs nothing.
	t.Run("ComparePrintings", func(t *testing.T) {
		before := e.used(t, access.Elite)
		var res promptResult
		key.call("prompts/get", map[string]any{"name": cardmcp.PromptComparePrintings, "arguments": map[string]string{"card": "charizard base"}}, &res)
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" || res.Messages[0].Content.Type != "text" {
			t.Fatalf("messages: %+v", res.Messages)
		}
		text := res.Messages[0].Content.Text
		for _, want := range []string{`"charizard base"`, "search", "quote", "get_listings", `mode "book"`, "get_sales", "raw:near_mint", "slab:10"} {
			if !strings.Contains(text, want) {
				t.Errorf("the prompt does not say %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "show_cards") {
			t.Errorf("an API key's prompt names show_cards, a tool it does not have:\n%s", text)
		}
		if got := e.used(t, access.Elite) - before; got != 0 {
			t.Errorf("prompts/get cost %d units", got)
		}
		app.call("prompts/get", map[string]any{"name": cardmcp.PromptComparePrintings, "arguments": map[string]string{"card": "en:base1-4"}}, &res)
		if text := res.Messages[0].Content.Text; !strings.Contains(text, "show_cards") || !strings.Contains(text, "price_card") {
			t.Errorf("the chat tools' caller's prompt does not name show_cards and price_card:\n%s", text)
		}
	})

	// what_moved_this_week embeds the movers resource (the bytes a read
	// returns) and costs 1 unit.
	t.Run("WhatMoved", func(t *testing.T) {
		before := e.used(t, access.Elite)
		var res promptResult
		key.call("prompts/get", map[string]any{"name": cardmcp.PromptWhatMoved}, &res)
		if got := e.used(t, access.Elite) - before; got != 1 {
			t.Errorf("what_moved_this_week cost %d units, want 1", got)
		}
		if len(res.Messages) != 2 || res.Messages[1].Content.Type != "resource" {
			t.Fatalf("messages: %+v", res.Messages)
		}
		text, emb := res.Messages[0].Content.Text, res.Messages[1].Content.Resource
		for _, want := range []string{"cardedge://movers/pokemon", "get_sales", "get_prices", "2026-11-14", "2026-11-20"} {
			if !strings.Contains(text, want) {
				t.Errorf("the prompt does not say %q:\n%s", want, text)
			}
		}
		read := key.read("cardedge://movers/pokemon")
		var got resourceEnvelope
		if err := json.Unmarshal([]byte(emb.Text), &got); err != nil || emb.URI != "cardedge://movers/pokemon" || emb.MIMEType != "application/json" ||
			got.Contract != "mcp.resource.movers.v1" || got.Cost != 1 || !jsonEqual(got.Data, read.Data) {
			t.Errorf("embedded resource %s %s: %.300s (%v)", emb.URI, emb.MIMEType, emb.Text, err)
		}
		key.call("prompts/get", map[string]any{"name": cardmcp.PromptWhatMoved, "arguments": map[string]string{"game": "onepiece"}}, &res)
		if uri := res.Messages[1].Content.Resource.URI; uri != "cardedge://movers/onepiece" {
			t.Errorf("game onepiece: resource %s", uri)
		}
	})

	// value_my_collection is for callers with the chat tools: listed, and
	// served, to them only.
	t.Run("ValueCollection", func(t *testing.T) {
		var res promptResult
		app.call("prompts/get", map[string]any{"name": cardmcp.PromptValueCollection}, &res)
		if text := res.Messages[0].Content.Text; len(res.Messages) != 1 || !strings.Contains(text, "list_collection") || !strings.Contains(text, "price_card") {
			t.Errorf("value_my_collection: %+v", res.Messages)
		}
		r := key.refused("prompts/get", map[string]any{"name": cardmcp.PromptValueCollection})
		if r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "not found") {
			t.Errorf("an API key's value_my_collection: %d %s", r.Error.Code, r.Error.Message)
		}
	})

	// A bad argument is -32602 (invalid params) with a message that names it.
	t.Run("ErrArguments", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args map[string]string
			msg  string
		}{
			{cardmcp.PromptComparePrintings, nil, "needs the argument card"},
			{cardmcp.PromptComparePrintings, map[string]string{"card": "   "}, "needs the argument card"},
			{cardmcp.PromptComparePrintings, map[string]string{"card": "x", "grade": "slab:10"}, "has no argument grade; its arguments are card"},
			{cardmcp.PromptComparePrintings, map[string]string{"card": strings.Repeat("x", 300)}, "longer than 256 bytes"},
			{cardmcp.PromptComparePrintings, map[string]string{"card": "char\nizard"}, "control characters"},
			{cardmcp.PromptWhatMoved, map[string]string{"game": "chess"}, "game must be one of pokemon, onepiece"},
		} {
			r := key.refused("prompts/get", map[string]any{"name": tc.name, "arguments": tc.args})
			if r.Error.Code != -32602 || !strings.Contains(r.Error.Message, tc.msg) || r.Error.Data["code"] != apperr.EINVALID || r.Error.Data["prompt"] != tc.name {
				t.Errorf("%s %v: %d %q %v, want -32602 %q", tc.name, tc.args, r.Error.Code, r.Error.Message, r.Error.Data, tc.msg)
			}
		}
	})
}
