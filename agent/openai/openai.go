package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/cardedge/cardedge/agent"
)

// Client is an agent.Model over one OpenAI-compatible chat completions
// endpoint.
type Client struct {
	url, model, key string
	http            *http.Client
}

var _ agent.Model = (*Client)(nil)

// New returns a client of the endpoint at base (POST {base}/chat/completions;
// a base that already ends so is used as it is) for model ("" = "default"),
// sending key as a bearer token ("" = none).
func New(base, model, key string) *Client {
	u := strings.TrimRight(base, "/")
	if !strings.HasSuffix(u, "/chat/completions") {
		u += "/chat/completions"
	}
	if model == "" {
		model = "default"
	}
	return &Client{url: u, model: model, key: key, http: &http.Client{Transport: &http.Transport{
		ResponseHeaderTimeout: 60 * time.Second, IdleConnTimeout: 30 * time.Second, MaxIdleConnsPerHost: 4}}}
}

// Name is the model name sent to the endpoint.
func (c *Client) Name() string { return c.model }

func llmErrorf(format string, args ...any) error {
	return &agent.ModelError{Message: fmt.Sprintf(format, args...)}
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

func wireTools(tools []agent.Tool) []llmTool {
	out := make([]llmTool, len(tools))
	for i, t := range tools {
		out[i] = llmTool{Type: "function", Function: map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}}
	}
	return out
}

func strPtr(s string) *string { return &s }

// wireMessages are msgs as the API has them: content null for an assistant
// message that only calls tools.
func wireMessages(msgs []agent.Message) []llmMessage {
	out := make([]llmMessage, len(msgs))
	for i, m := range msgs {
		w := llmMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			w.Content = strPtr(m.Content)
		}
		for _, tc := range m.ToolCalls {
			x := llmToolCall{ID: tc.ID, Type: "function"}
			x.Function.Name, x.Function.Arguments = tc.Name, tc.Arguments
			w.ToolCalls = append(w.ToolCalls, x)
		}
		out[i] = w
	}
	return out
}

// message is an assistant message of the API as an agent.Message.
func (m llmMessage) message() agent.Message {
	out := agent.Message{Role: "assistant"}
	if m.Content != nil {
		out.Content = *m.Content
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}

// Complete runs one model turn: it streams content through onToken and
// returns the assistant message (with its tool calls, if any).
func (c *Client) Complete(ctx context.Context, msgs []agent.Message, tools []agent.Tool, onToken func(string) error) (agent.Message, error) {
	m, err := c.complete(ctx, wireMessages(msgs), tools, onToken)
	if err != nil {
		return agent.Message{}, err
	}
	return m.message(), nil
}

func (c *Client) complete(ctx context.Context, msgs []llmMessage, tools []agent.Tool, onToken func(string) error) (llmMessage, error) {
	body, err := json.Marshal(map[string]any{"model": c.model, "messages": msgs, "tools": wireTools(tools), "tool_choice": "auto", "stream": true})
	if err != nil {
		return llmMessage{}, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.url, bytes.NewReader(body))
	if err != nil {
		return llmMessage{}, llmErrorf("LLM endpoint: %v", err)
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
		return llmMessage{}, llmErrorf("LLM endpoint unreachable: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return llmMessage{}, llmErrorf("LLM endpoint answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/json" {
		return c.whole(resp.Body, onToken)
	}
	return c.stream(resp.Body, onToken)
}

// whole reads a non-streamed completion and replays its content as tokens.
func (c *Client) whole(r io.Reader, onToken func(string) error) (llmMessage, error) {
	var res struct {
		Choices []struct {
			Message llmMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 8<<20)).Decode(&res); err != nil || len(res.Choices) == 0 {
		return llmMessage{}, llmErrorf("LLM endpoint: unreadable completion")
	}
	m := res.Choices[0].Message
	m.Role = "assistant"
	if m.Content != nil {
		for _, tok := range agent.Tokens(*m.Content) {
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
func (c *Client) stream(r io.Reader, onToken func(string) error) (llmMessage, error) {
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
			return llmMessage{}, llmErrorf("LLM endpoint: unreadable stream chunk: %v", err)
		}
		if chunk.Error != nil {
			return llmMessage{}, llmErrorf("LLM endpoint: %s", chunk.Error.Message)
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
		return llmMessage{}, llmErrorf("LLM endpoint: reading the stream: %v", err)
	}
	m := llmMessage{Role: "assistant", ToolCalls: calls}
	if content.Len() > 0 || len(calls) == 0 {
		m.Content = strPtr(content.String())
	}
	return m, nil
}
