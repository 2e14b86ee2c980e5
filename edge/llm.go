package edge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// An OpenAI-compatible chat completions client for the agent chat
// (Options.LLMURL): it streams the model's tokens and runs the tool calls the
// model makes with the chat tools, until the model answers without tools.
// Any server speaking POST {base}/chat/completions with "tools" and
// "stream": true works (OpenAI, vLLM, llama.cpp server, Ollama's /v1); a
// server that ignores "stream" and answers one JSON completion works too.

// llmError is a failure of the model endpoint (not of the tools).
type llmError struct{ msg string }

func (e *llmError) Error() string { return e.msg }

func isLLMError(err error) bool {
	var e *llmError
	return errors.As(err, &e)
}

// llmMessage is one message of the chat completions API.
type llmMessage struct {
	Role       string        `json:"role"`
	Content    *string       `json:"content"`
	ToolCalls  []llmToolCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type llmToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type llmTool struct {
	Type     string         `json:"type"`
	Function map[string]any `json:"function"`
}

// llmClient calls one endpoint.
type llmClient struct {
	url, model, key string
	http            *http.Client
}

func newLLMClient(base, model, key string) *llmClient {
	u := strings.TrimRight(base, "/")
	if !strings.HasSuffix(u, "/chat/completions") {
		u += "/chat/completions"
	}
	if model == "" {
		model = "default"
	}
	return &llmClient{url: u, model: model, key: key, http: &http.Client{Transport: &http.Transport{
		ResponseHeaderTimeout: 60 * time.Second, IdleConnTimeout: 30 * time.Second, MaxIdleConnsPerHost: 4}}}
}

func llmTools() []llmTool {
	out := make([]llmTool, len(chatToolList))
	for i, t := range chatToolList {
		out[i] = llmTool{Type: "function", Function: map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}}
	}
	return out
}

func strPtr(s string) *string { return &s }

// complete runs one model turn: it streams content through onToken and
// returns the assistant message (with its tool calls, if any).
func (c *llmClient) complete(ctx context.Context, msgs []llmMessage, onToken func(string) error) (llmMessage, error) {
	body, err := json.Marshal(map[string]any{"model": c.model, "messages": msgs, "tools": llmTools(), "tool_choice": "auto", "stream": true})
	if err != nil {
		return llmMessage{}, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.url, bytes.NewReader(body))
	if err != nil {
		return llmMessage{}, &llmError{"LLM endpoint: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream, application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return llmMessage{}, ctx.Err()
		}
		return llmMessage{}, &llmError{"LLM endpoint unreachable: " + err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return llmMessage{}, &llmError{fmt.Sprintf("LLM endpoint answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/json" {
		return c.whole(resp.Body, onToken)
	}
	return c.stream(resp.Body, onToken)
}

// whole reads a non-streamed completion and replays its content as tokens.
func (c *llmClient) whole(r io.Reader, onToken func(string) error) (llmMessage, error) {
	var res struct {
		Choices []struct {
			Message llmMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 8<<20)).Decode(&res); err != nil || len(res.Choices) == 0 {
		return llmMessage{}, &llmError{"LLM endpoint: unreadable completion"}
	}
	m := res.Choices[0].Message
	m.Role = "assistant"
	if m.Content != nil {
		for _, tok := range tokenRE.FindAllString(*m.Content, -1) {
			if err := onToken(tok); err != nil {
				return m, err
			}
		}
	}
	for i := range m.ToolCalls {
		m.ToolCalls[i].Index = nil
		m.ToolCalls[i].Type = "function"
	}
	return m, nil
}

// stream reads a streamed completion: content deltas go to onToken as they
// arrive, tool call deltas are assembled by index.
func (c *llmClient) stream(r io.Reader, onToken func(string) error) (llmMessage, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var content strings.Builder
	var calls []llmToolCall
	done := false
	for !done && sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // comments, event names, blank separators
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			break
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   *string       `json:"content"`
					ToolCalls []llmToolCall `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return llmMessage{}, &llmError{"LLM endpoint: unreadable stream chunk: " + err.Error()}
		}
		if chunk.Error != nil {
			return llmMessage{}, &llmError{"LLM endpoint: " + chunk.Error.Message}
		}
		for _, ch := range chunk.Choices {
			if d := ch.Delta.Content; d != nil && *d != "" {
				content.WriteString(*d)
				if err := onToken(*d); err != nil {
					return llmMessage{}, err
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := len(calls)
				if tc.Index != nil {
					i = *tc.Index
				}
				for len(calls) <= i {
					calls = append(calls, llmToolCall{Type: "function"})
				}
				if tc.ID != "" {
					calls[i].ID = tc.ID
				}
				if tc.Function.Name != "" {
					calls[i].Function.Name += tc.Function.Name
				}
				calls[i].Function.Arguments += tc.Function.Arguments
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				done = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return llmMessage{}, &llmError{"LLM endpoint: reading the stream: " + err.Error()}
	}
	m := llmMessage{Role: "assistant", ToolCalls: calls}
	if content.Len() > 0 || len(calls) == 0 {
		m.Content = strPtr(content.String())
	}
	return m, nil
}

const llmSystemPrompt = `You are the market assistant of cardedge, a market-intelligence service for trading cards (games: %s; default %s; data as of %s).
Answer with the tools, never from memory: resolve cards with search (or quote with q), price them with quote, read history with get_prices, sales with get_sales, movers with trending.
Say which price you give and its basis: Midprice (our fmv), Last (last verified sale) or Ask (a listing), with its date. Never blend sources into one number.
Grades are raw:<condition> or <grader>:<number> (graders slab, bgs, cgc). Be brief; use USD with two decimals.`

// llmChat answers with the model, running its tool calls, for at most
// chatMaxRounds model turns.
func (s *Server) llmChat(run *chatRun, msgs []chatMessage) error {
	client := s.llm
	m := run.tools.snap.Manifest()
	sys := fmt.Sprintf(llmSystemPrompt, strings.Join(m.Games, ", "), run.tools.game, m.AsOf)
	conv := []llmMessage{{Role: "system", Content: strPtr(sys)}}
	for _, x := range msgs {
		conv = append(conv, llmMessage{Role: x.Role, Content: strPtr(x.Content)})
	}
	for round := 0; round < chatMaxRounds; round++ {
		msg, err := client.complete(run.ctx, conv, run.token)
		if err != nil {
			return err
		}
		if len(msg.ToolCalls) == 0 {
			return nil
		}
		for i := range msg.ToolCalls {
			msg.ToolCalls[i].Index = nil
		}
		conv = append(conv, msg)
		for i, tc := range msg.ToolCalls {
			if tc.ID == "" {
				msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", round, i)
				tc.ID = msg.ToolCalls[i].ID
			}
			res, terr, err := run.call(tc.ID, tc.Function.Name, json.RawMessage(tc.Function.Arguments))
			if err != nil {
				return err
			}
			out := trimJSON(res, 16<<10)
			if terr != nil {
				out = trimJSON(map[string]string{"error": terr.Error()}, 16<<10)
			}
			conv = append(conv, llmMessage{Role: "tool", ToolCallID: tc.ID, Content: strPtr(out)})
		}
	}
	return run.say(fmt.Sprintf("\n(stopped after %d tool rounds)", chatMaxRounds))
}
