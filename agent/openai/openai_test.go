package openai

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/agent"
)

func TestClient_Stream(t *testing.T) {
	stream := `: keep-alive

data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"quote","arguments":"{\"ids\":"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"trending","arguments":"{}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"[\"en:base1-4\"]}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
`
	c := New("http://x/v1", "", "")
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
	if _, err := c.stream(strings.NewReader(`data: {"error": {"message": "overloaded"}}`+"\n"), func(string) error { return nil }); !agent.IsModelError(err) {
		t.Errorf("error chunk: %v", err)
	}
	m, err = c.whole(strings.NewReader(`{"choices":[{"message":{"role":"assistant","content":"One two","tool_calls":[]}}]}`), func(s string) error { toks = append(toks, s); return nil })
	if err != nil || *m.Content != "One two" {
		t.Errorf("whole: %v %v", m, err)
	}
}
