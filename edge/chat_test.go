package edge

import (
	"strings"
	"testing"
)

func TestParseIntent(t *testing.T) {
	cases := []struct {
		q, kind, query, grade, window, direction, language string
	}{
		{"what is a slab 10 Charizard base set worth?", "quote", "charizard base set", "slab:10", "7d", "desc", ""},
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

func TestMoney(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 5.5: "$5.50", 999.99: "$999.99", 1000: "$1,000.00", 8612.03: "$8,612.03", 1234567.8: "$1,234,567.80", -1200: "-$1,200.00"} {
		if got := money(&v); got != want {
			t.Errorf("%v: %s, want %s", v, got, want)
		}
	}
}

func TestLLMStream(t *testing.T) {
	stream := `: keep-alive

data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"quote","arguments":"{\"ids\":"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"trending","arguments":"{}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"[\"en:base1-4\"]}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
`
	c := newLLMClient("http://x/v1", "", "")
	if c.url != "http://x/v1/chat/completions" || c.model != "default" {
		t.Errorf("client %s %s", c.url, c.model)
	}
	var toks []string
	m, err := c.stream(strings.NewReader(stream), func(s string) error { toks = append(toks, s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].Function.Arguments != `{"ids":["en:base1-4"]}` || m.ToolCalls[1].Function.Name != "trending" || m.ToolCalls[0].ID != "a" {
		t.Errorf("tool calls %+v", m.ToolCalls)
	}
	if len(toks) != 0 || m.Content != nil {
		t.Errorf("content %v %v", toks, m.Content)
	}
	m, err = c.stream(strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"Hi \"}}]}\ndata: {\"choices\":[{\"delta\":{\"content\":\"there\"},\"finish_reason\":\"stop\"}]}\n"), func(s string) error { toks = append(toks, s); return nil })
	if err != nil || *m.Content != "Hi there" || strings.Join(toks, "|") != "Hi |there" {
		t.Errorf("content %v %v %v", m.Content, toks, err)
	}
	if _, err := c.stream(strings.NewReader(`data: {"error": {"message": "overloaded"}}`+"\n"), func(string) error { return nil }); !isLLMError(err) {
		t.Errorf("error chunk: %v", err)
	}
	m, err = c.whole(strings.NewReader(`{"choices":[{"message":{"role":"assistant","content":"One two","tool_calls":[]}}]}`), func(s string) error { toks = append(toks, s); return nil })
	if err != nil || *m.Content != "One two" {
		t.Errorf("whole: %v %v", m, err)
	}
}

func TestParseChat(t *testing.T) {
	if msgs, err := parseChat([]byte(`{"message": "hi"}`)); err != nil || len(msgs) != 1 || msgs[0].Role != "user" {
		t.Errorf("message: %v %v", msgs, err)
	}
	for _, bad := range []string{`{}`, `[]`, `{"messages": [{"role": "system", "content": "x"}]}`, `{"message": "` + strings.Repeat("x", 4001) + `"}`,
		`{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}`} {
		if _, err := parseChat([]byte(bad)); err == nil {
			t.Errorf("%.60s: accepted", bad)
		}
	}
}
