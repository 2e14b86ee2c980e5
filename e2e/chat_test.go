package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/snapshots"
)

// End-to-end tests of the agent chat (POST /api/v3/agent/chat): the embedded
// agent on the shared edge, and an edge pointed at a fake OpenAI-compatible
// model on loopback.

type sseEvent struct {
	id, event string
	Data      map[string]any
}

// readSSE posts a chat and reads its server-sent events until end.
func readSSE(t *testing.T, base, key, body string) ([]sseEvent, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/v3/agent/chat", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := keyedClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("chat: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				events = append(events, cur)
				if cur.event == "end" {
					return events, resp.Header
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &cur.Data); err != nil {
				t.Fatalf("event %s data is not JSON: %s", cur.event, line)
			}
		}
	}
	t.Fatalf("stream ended without an end event (%v) after %d events", sc.Err(), len(events))
	return nil, nil
}

// checkStream checks the shape every chat stream has and returns the
// concatenated tokens and the tool calls by name.
func checkStream(t *testing.T, events []sseEvent) (string, map[string]map[string]any) {
	t.Helper()
	if events[0].event != "start" || events[len(events)-1].event != "end" {
		t.Fatalf("stream is not start ... end: %s ... %s", events[0].event, events[len(events)-1].event)
	}
	var text strings.Builder
	calls := map[string]map[string]any{}
	callIDs := map[string]string{}
	for i, e := range events {
		if e.id != fmt.Sprint(i+1) {
			t.Errorf("event %d has id %q", i+1, e.id)
		}
		switch e.event {
		case "token":
			text.WriteString(e.Data["text"].(string))
		case "tool_call":
			calls[e.Data["name"].(string)] = e.Data
			callIDs[e.Data["call_id"].(string)] = e.Data["name"].(string)
		case "tool_result":
			if callIDs[e.Data["call_id"].(string)] != e.Data["name"] {
				t.Errorf("tool_result %v answers no tool_call", e.Data)
			}
		case "start", "end", "error":
		default:
			t.Errorf("undocumented event %q", e.event)
		}
	}
	end := events[len(events)-1].Data
	if end["text"] != text.String() || int(end["tokens"].(float64)) == 0 {
		t.Errorf("end %v does not sum the tokens %q", end, text.String())
	}
	return text.String(), calls
}

func TestAgentChat_Embedded(t *testing.T) {
	setupFeatureKeys(t)
	key := env.keys["chat"]
	events, hdr := readSSE(t, env.base, key, `{"message": "what is a slab 10 Charizard base set worth?"}`)
	if hdr.Get("Cache-Control") == "" {
		t.Errorf("no Cache-Control on the stream")
	}
	text, calls := checkStream(t, events)
	if calls["search"] == nil || calls["quote"] == nil {
		t.Fatalf("tool calls %v", calls)
	}
	if args := calls["quote"]["arguments"].(map[string]any); args["grade"] != "slab:10" || fmt.Sprint(args["ids"]) != "[en:base1-4]" {
		t.Errorf("quote arguments %v", args)
	}
	if events[len(events)-1].Data["finish_reason"] != "stop" {
		t.Errorf("finish %v", events[len(events)-1].Data)
	}
	// The answer quotes the same number as the quote tool's result.
	var price float64
	for _, e := range events {
		if e.event == "tool_result" && e.Data["name"] == "quote" {
			q := e.Data["result"].(map[string]any)["quotes"].([]any)[0].(map[string]any)
			price = q["price_usd"].(float64)
		}
	}
	if !strings.Contains(text, "Charizard") || !strings.Contains(text, "PSA 10") || strings.Contains(text, "slab:10") || price == 0 || !strings.Contains(strings.ReplaceAll(text, ",", ""), fmt.Sprintf("$%.2f", price)) {
		t.Errorf("answer %q, quoted price %v", text, price)
	}

	events, _ = readSSE(t, env.base, key, `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Ask me about cards."}, {"role": "user", "content": "top movers this week"}]}`)
	text, calls = checkStream(t, events)
	if args, _ := calls["trending"]["arguments"].(map[string]any); args["window"] != "7d" {
		t.Errorf("movers: tool calls %v", calls)
	}
	if !strings.Contains(text, "1. ") || !strings.Contains(text, "7 days") {
		t.Errorf("movers answer %q", text)
	}

	// Errors before the stream are plain JSON.
	if r := do(t, freshClient(), "POST", "/api/v3/agent/chat", "", []byte(`{"message": "hi"}`)); r.Status != 401 {
		t.Errorf("chat without a key: %d", r.Status)
	}
	if r := do(t, keyedClient, "POST", "/api/v3/agent/chat", key, []byte(`{"messages": []}`)); r.Status != 422 {
		t.Errorf("empty chat: %d", r.Status)
	}
	if r := do(t, keyedClient, "POST", "/api/v3/agent/chat", key, []byte(`{"messages": [{"role": "assistant", "content": "x"}]}`)); r.Status != 422 {
		t.Errorf("chat ending with the assistant: %d", r.Status)
	}
}

// fakeLLM is an OpenAI-compatible chat completions server: the first turn
// streams a quote tool call (its arguments split across chunks), the second
// answers from the tool result, token by token.
type fakeLLM struct {
	mu       sync.Mutex
	requests []map[string]any
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-llm-key" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", 400)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	msgs := req["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if strings.Contains(fmt.Sprint(last["content"]), "fail please") {
		http.Error(w, `{"error": {"message": "model overloaded"}}`, http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"id": "c1", "object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	if last["role"] != "tool" {
		send(delta(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_abc", "type": "function",
			"function": map[string]any{"name": "quote", "arguments": `{"ids": ["en:base1-4"], `}}}}, nil))
		send(delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `"grade": "slab:10"}`}}}}, nil))
		send(delta(map[string]any{}, "tool_calls"))
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	var res struct {
		Quotes []struct {
			PriceUSD float64 `json:"price_usd"`
		} `json:"quotes"`
	}
	json.Unmarshal([]byte(last["content"].(string)), &res)
	answer := "Charizard in slab:10 is worth about $" + fmt.Sprintf("%.2f", res.Quotes[0].PriceUSD) + " (Midprice)."
	for _, tok := range strings.SplitAfter(answer, " ") {
		send(delta(map[string]any{"content": tok}, nil))
	}
	send(delta(map[string]any{}, "stop"))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// linkSnapshot makes a new snapshots root whose live snapshot is the one env
// serves, its files hard-linked (the edge refuses symlinks).
func linkSnapshot(t *testing.T, id string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(env.root, id)
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		dst := filepath.Join(root, id, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if os.Link(path, dst) == nil {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshots.Publish(root, id); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestAgentChat_LLM(t *testing.T) {
	setupFeatureKeys(t)
	fake := &fakeLLM{}
	llm := httptest.NewServer(fake)
	defer llm.Close()
	t.Setenv("CARDEDGE_LLM_API_KEY", "test-llm-key")

	live := do(t, keyedClient, "GET", "/health", "", nil).JSON["snapshot_id"].(string)
	root := linkSnapshot(t, live)
	// The second server runs the real command line, with the --llm-url flag
	// (the key comes from $CARDEDGE_LLM_API_KEY), on a free loopback port.
	base := e2etest.Serve(t, env.bin, "serve", "--snapshots", root, "--state", env.state, "--cache-mb", "0",
		"--log-level", "error", "--llm-url", llm.URL+"/v1", "--llm-model", "fake-model").Base

	events, _ := readSSE(t, base, env.keys["chat"], `{"message": "What is a slab 10 Charizard from Base worth?"}`)
	text, calls := checkStream(t, events)
	if s := events[0].Data; s["agent"] != "llm" || s["model"] != "fake-model" {
		t.Errorf("start %v", s)
	}
	q := calls["quote"]
	if q == nil || fmt.Sprint(q["arguments"]) != "map[grade:slab:10 ids:[en:base1-4]]" || q["call_id"] != "call_abc" {
		t.Fatalf("tool calls %v", calls)
	}
	var price float64
	for _, e := range events {
		if e.event == "tool_result" {
			if e.Data["ok"] != true {
				t.Fatalf("tool result %v", e.Data)
			}
			price = e.Data["result"].(map[string]any)["quotes"].([]any)[0].(map[string]any)["price_usd"].(float64)
		}
	}
	if want := fmt.Sprintf("Charizard in slab:10 is worth about $%.2f (Midprice).", price); text != want || price == 0 {
		t.Errorf("answer %q, want %q", text, want)
	}
	if n := len(events); n < 10 {
		t.Errorf("only %d events: not streamed token by token", n)
	}
	// What the model saw: the tools, then the tool result under its call id.
	fake.mu.Lock()
	reqs := fake.requests
	fake.mu.Unlock()
	if len(reqs) != 2 || reqs[0]["model"] != "fake-model" || reqs[0]["stream"] != true {
		t.Fatalf("%d model requests: %v", len(reqs), reqs)
	}
	var tools []string
	for _, x := range reqs[0]["tools"].([]any) {
		tools = append(tools, x.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if fmt.Sprint(tools) != "[search quote get_prices get_sales trending]" {
		t.Errorf("tools offered %v", tools)
	}
	msgs := reqs[1]["messages"].([]any)
	if m := msgs[len(msgs)-1].(map[string]any); m["role"] != "tool" || m["tool_call_id"] != "call_abc" {
		t.Errorf("last message of the second turn %v", m)
	}
	if m := msgs[len(msgs)-2].(map[string]any); fmt.Sprint(m["tool_calls"]) == "" || m["role"] != "assistant" {
		t.Errorf("assistant tool call message %v", m)
	}

	// A failing model: an error event, then end.
	events, _ = readSSE(t, base, env.keys["chat"], `{"message": "fail please"}`)
	if n := len(events); n != 3 || events[1].event != "error" || events[1].Data["code"] != "llm_unavailable" || events[2].Data["finish_reason"] != "error" {
		t.Errorf("failing model: %v", events)
	}
}
