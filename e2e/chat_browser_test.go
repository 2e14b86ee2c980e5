package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cardedge/cardedge/state"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// The web chat in a real browser (headless Chromium, browser_test.go): the
// cardedge binary twice, once with the embedded agent (the figures: time to
// the first token and to the end of an answer, as the page measures them)
// and once pointed at a model that
// streams at a person's reading pace (pacedLLM), where tokens visibly arrive
// before the end and Stop has something to stop. Screenshots at 1280x800 and
// 390x844 go to var/screenshots/chat/ (git-ignored).

// pacedLLM is an OpenAI-compatible model that answers "top movers" with a
// trending tool call, then the movers token by token (every pace); a
// question with "story" gets an endless answer until the client leaves.
type pacedLLM struct {
	pace      time.Duration
	mu        sync.Mutex
	requests  []map[string]any
	cancelled atomic.Int32 // endless answers ended by the client leaving
}

func (f *pacedLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", 400)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	msgs := req["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	send := func(d map[string]any, finish any) bool {
		b, _ := json.Marshal(map[string]any{"id": "p1", "object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}})
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	say := func(text string) bool {
		for _, tok := range strings.SplitAfter(text, " ") {
			select {
			case <-r.Context().Done():
				return false
			case <-time.After(f.pace):
			}
			if !send(map[string]any{"content": tok}, nil) {
				return false
			}
		}
		return true
	}
	done := func() {
		send(map[string]any{}, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	content := fmt.Sprint(last["content"])
	switch {
	case last["role"] == "user" && strings.Contains(content, "story"):
		for i := 0; ; i++ {
			if !say(fmt.Sprintf("word%d ", i)) {
				f.cancelled.Add(1)
				return
			}
		}
	case last["role"] == "user":
		send(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_t", "type": "function",
			"function": map[string]any{"name": "trending", "arguments": `{"window": "7d", "limit": 3}`}}}}, nil)
		send(map[string]any{}, "tool_calls")
		fmt.Fprint(w, "data: [DONE]\n\n")
	default: // the tool's result: say it
		var res struct {
			Items []struct {
				CardID string  `json:"card_id"`
				Value  float64 `json:"value"`
			} `json:"items"`
		}
		json.Unmarshal([]byte(content), &res)
		var b strings.Builder
		b.WriteString("The top movers this week by fmv change:")
		for i, it := range res.Items {
			fmt.Fprintf(&b, "\n%d. %s: %+.1f%%", i+1, it.CardID, it.Value)
		}
		b.WriteString("\nAsk me about any of them.")
		if say(b.String()) {
			done()
		}
	}
}

// answer is what the page shows of its last answer.
type answer struct {
	Busy    string   `json:"busy"`
	Text    string   `json:"text"`
	Tools   int      `json:"tools"`
	Errors  []string `json:"errors"`
	Note    string   `json:"note"`
	Links   []string `json:"links"`
	FirstMS string   `json:"first"`
	TotalMS string   `json:"total"`
	Status  string   `json:"status"`
}

const lastAnswerJS = `(() => {
  const a = [...document.querySelectorAll("article.msg-bot")].pop();
  const st = document.querySelector("[data-status]").textContent;
  if (!a) return {status: st};
  const t = a.querySelector(".msg-text");
  return {busy: a.getAttribute("aria-busy"), text: t ? t.textContent : "", tools: a.querySelectorAll("section.tool").length,
    errors: [...a.querySelectorAll(".error")].map(e => e.textContent), note: (a.querySelector(".msg-note") || {}).textContent || "", links: [...a.querySelectorAll(".msg-text a")].map(x => x.getAttribute("href")),
    first: a.getAttribute("data-first-token-ms") || "", total: a.getAttribute("data-total-ms") || "", status: st};
})()`

func (b *browser) lastAnswer() answer {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[answer](lastAnswerJS))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// waitAnswer polls the last answer until it is done (aria-busy false) and
// reports whether text was seen while it was still streaming.
func (b *browser) waitAnswer(limit time.Duration) (a answer, streamed bool) {
	b.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		a = b.lastAnswer()
		if a.Busy == "true" && a.Text != "" {
			streamed = true
		}
		if a.Busy == "false" {
			return a, streamed
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the answer did not finish within %v: %+v", limit, a)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ask types a question and sends it with the Send button.
func (b *browser) ask(q string) {
	b.t.Helper()
	// The page empties the box after each question.
	if v := b.eval(`document.getElementById("chat-message").value`); v != "" {
		b.t.Fatalf("the question box holds %q", v)
	}
	sel := "textbox Your question"
	b.run("type the question", chromedp.SendKeys(sel, q, byRole("textbox", "Your question")))
	b.click("button", "Send")
}

// signUpPro signs up in the browser and makes the account Pro with the
// accounts command (the operator's way).
func (b *browser) signUpPro(state, email string) {
	b.t.Helper()
	b.open("/dashboard/signup")
	b.fill("Email", email)
	b.fill("Password", "a long and unusual passphrase")
	b.click("button", "Sign up")
	b.see("heading", "API keys")
	if out, err := runBin(b.t, "accounts", "set-tier", "--state", state, email, "pro"); err != nil {
		b.t.Fatalf("set-tier: %v %s", err, out)
	}
}

func TestChat_Browser(t *testing.T) {
	b := startBrowser(t, "chat", "")
	ctx := b.ctx
	// Screenshots show the newest message (or the form, before the first).
	b.prepare = func() {
		b.eval(`(() => { const m = [...document.querySelectorAll(".msg")].pop(); if (m) m.scrollIntoView({block: "end"}); return 0; })()`)
	}

	t.Run("Embedded", func(t *testing.T) {
		b.t = t
		state := filepath.Join(t.TempDir(), "state.bolt")
		edge := startEdgeProcess(t, state, "")
		b.base = edge.Base
		b.signUpPro(state, "chat-embedded@example.com")
		b.click("link", "Chat")
		b.see("heading", "Chat")
		b.see("button", "Top movers this week")
		b.shoot("chat-empty")

		// The figures: the page's own clock, from Send to the first token
		// and to the end event (the token fetched beforehand, as the page
		// does on load).
		var firsts, totals []int
		for i := 0; i < 5; i++ {
			b.ask("top movers this week")
			a, _ := b.waitAnswer(20 * time.Second)
			if a.Tools != 1 || !strings.Contains(a.Text, "Top movers over the last 7 days") || len(a.Errors) != 0 {
				t.Fatalf("answer %d: %+v", i, a)
			}
			if len(a.Links) == 0 || !strings.HasPrefix(a.Links[0], "/dashboard/cards/") {
				t.Fatalf("no card links in the answer: %+v", a)
			}
			var f, tot int
			fmt.Sscan(a.FirstMS, &f)
			fmt.Sscan(a.TotalMS, &tot)
			firsts, totals = append(firsts, f), append(totals, tot)
		}
		b.see("region", "Tool call: trending")
		b.shoot("chat-movers-embedded")
		sort.Ints(firsts)
		sort.Ints(totals)
		t.Logf("embedded agent, \"top movers this week\" in Chromium (5 asks): first token %v ms (median %d), end %v ms (median %d)",
			firsts, firsts[2], totals, totals[2])

		// A real 429: the account's chat quota spent (its usage counter
		// raised in the state file, which the server reads within a
		// second).
		raiseUsage(t, state, "chat-embedded@example.com", 2000)
		deadline := time.Now().Add(5 * time.Second)
		for {
			b.ask("top movers this week")
			a, _ := b.waitAnswer(20 * time.Second)
			if len(a.Errors) > 0 {
				if !strings.Contains(a.Errors[0], "Too many requests") || !strings.Contains(a.Errors[0], "daily quota of 2000") || !strings.Contains(a.Errors[0], "Try again in") {
					t.Fatalf("429 shown as %q", a.Errors[0])
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no 429 after the quota was spent")
			}
			time.Sleep(300 * time.Millisecond)
		}
		b.shoot("chat-429")
	})

	t.Run("Streaming", func(t *testing.T) {
		b.t = t
		llm := &pacedLLM{pace: 40 * time.Millisecond}
		srv := httptest.NewServer(llm)
		defer srv.Close()
		t.Setenv("CARDEDGE_LLM_API_KEY", "paced-key")
		state := filepath.Join(t.TempDir(), "state.bolt")
		edge := startEdgeProcess(t, state, "", "--llm-url", srv.URL+"/v1", "--llm-model", "paced")
		b.base = edge.Base
		b.signUpPro(state, "chat-stream@example.com")
		b.open("/dashboard/chat")
		b.see("heading", "Chat")

		// Tokens arrive before the end; the tool call is a card; the
		// finished answer links its cards.
		b.click("button", "Top movers this week")
		b.see("region", "Tool call: trending")
		a, streamed := b.waitAnswer(30 * time.Second)
		if !streamed {
			t.Fatal("no text was seen before the answer ended: not streamed")
		}
		if a.Tools != 1 || !strings.Contains(a.Text, "The top movers this week") || !strings.HasSuffix(a.Text, "Ask me about any of them.") || len(a.Links) != 3 || a.Status != "Answered." {
			t.Fatalf("finished answer %+v", a)
		}
		var first, total int
		fmt.Sscan(a.FirstMS, &first)
		fmt.Sscan(a.TotalMS, &total)
		t.Logf("paced model (%v a token): first token after %d ms, end after %d ms", llm.pace, first, total)
		b.run("open the tool card", chromedp.Click(chromedp.CSS("section.tool summary")))
		b.shoot("chat-movers-streamed")

		// The conversation is sent back: the second question carries the
		// first and its answer.
		llm.mu.Lock()
		before := len(llm.requests)
		llm.mu.Unlock()
		b.ask("tell me a story")
		// Stop ends the stream: the text stops growing, the page says so,
		// and the model sees its client leave (the edge ended the run).
		deadline := time.Now().Add(10 * time.Second)
		for len(b.lastAnswer().Text) < 20 {
			if time.Now().After(deadline) {
				t.Fatal("the story did not start")
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.shoot("chat-streaming")
		b.click("button", "Stop")
		a, _ = b.waitAnswer(5 * time.Second)
		if a.Status != "Stopped." || len(a.Errors) != 0 || !strings.Contains(a.Note, "Stopped: you ended the answer") {
			t.Fatalf("after Stop: %+v", a)
		}
		n := len(a.Text)
		time.Sleep(500 * time.Millisecond)
		if m := len(b.lastAnswer().Text); m != n {
			t.Fatalf("the text grew from %d to %d characters after Stop", n, m)
		}
		for deadline := time.Now().Add(5 * time.Second); llm.cancelled.Load() == 0; {
			if time.Now().After(deadline) {
				t.Fatal("the model never saw the stream end: Stop did not reach the server")
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.shoot("chat-stopped")
		llm.mu.Lock()
		story := llm.requests[before]
		llm.mu.Unlock()
		var roles []string
		for _, m := range story["messages"].([]any) {
			roles = append(roles, m.(map[string]any)["role"].(string))
		}
		if got := strings.Join(roles, ","); got != "system,user,assistant,user" {
			t.Errorf("the second question sent messages %s, want system,user,assistant,user", got)
		}
		if p := b.problems(false); len(p) != 0 {
			t.Errorf("dialogs, CSP violations or script errors: %v", p)
		}
	})

	t.Run("TimeoutShown", func(t *testing.T) {
		// The server's time limit ends a chat with an error event of code
		// timeout: the page says so (the stream is played from a recording,
		// the limit being 29 seconds).
		b.t = t
		state := filepath.Join(t.TempDir(), "state.bolt")
		edge := startEdgeProcess(t, state, "")
		b.base = edge.Base
		b.signUpPro(state, "chat-timeout@example.com")
		b.open("/dashboard/chat")
		b.see("heading", "Chat")
		body := "id: 1\nevent: start\ndata: {}\n\nid: 2\nevent: token\ndata: {\"text\":\"Looking \"}\n\n" +
			"id: 3\nevent: error\ndata: {\"code\":\"timeout\",\"message\":\"the chat exceeded its 29s time limit\"}\n\n" +
			"id: 4\nevent: end\ndata: {\"finish_reason\":\"error\",\"text\":\"Looking \",\"tokens\":1,\"tool_calls\":0,\"elapsed_ms\":29000}\n\n"
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		chromedp.Listen(lctx, func(ev any) {
			if p, ok := ev.(*fetch.EventRequestPaused); ok {
				go chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: p.RequestID, ResponseCode: 200,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/event-stream"}}, Body: []byte(body)})
			}
		})
		if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/v3/agent/chat"}}}); err != nil {
			t.Fatal(err)
		}
		defer chromedp.Call(ctx, fetch.Disable, cdp.Empty{})
		b.ask("top movers this week")
		a, _ := b.waitAnswer(10 * time.Second)
		if len(a.Errors) != 1 || !strings.Contains(a.Errors[0], "took too long") || a.Status != "The answer ended early." {
			t.Fatalf("timeout shown as %+v", a)
		}
		b.shoot("chat-timeout")
	})
}

// raiseUsage adds n units to the chat usage of today of the account of
// email in the state file at path.
func raiseUsage(t *testing.T, path, email string, n int64) {
	t.Helper()
	out, err := runBin(t, "accounts", "list", "--state", path)
	if err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, email) {
			id = strings.Fields(line)[0]
		}
	}
	if id == "" {
		t.Fatalf("no account %s", email)
	}
	addUsage(t, path, id, n)
}

// addUsage adds n units to the usage counter of id (a key or an account)
// of today in the state file at path.
func addUsage(t *testing.T, path, id string, n int64) {
	t.Helper()
	err := stateAt(t, path).Update(context.Background(), func(tx state.Tx) error {
		return tx.Add(state.Usage, id+"/"+time.Now().UTC().Format("2006-01-02"), n, 48*time.Hour)
	})
	if err != nil {
		t.Fatal(err)
	}
}
