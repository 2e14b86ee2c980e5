package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
)

// Limits of a chat.
const (
	MaxMessages = 50   // messages of one request
	MaxChars    = 4000 // characters of one message
	MaxRounds   = 6    // model turns (tool rounds) per chat
)

// Message is one message of a conversation: a user's or assistant's turn,
// the system prompt, or a tool's result (Role "tool", with ToolCallID).
type Message struct {
	Role       string // system, user, assistant or tool
	Content    string
	ToolCalls  []ToolCall // an assistant's calls
	ToolCallID string     // a tool result's call
}

// ToolCall is a call of a tool a model asks for.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON
}

// Model is a chat model that can call tools. Package agent/openai
// implements it for OpenAI-compatible chat completions endpoints.
type Model interface {
	// Name is the model's name, as the chat's start event reports it.
	Name() string
	// Complete runs one model turn over msgs with tools available: it
	// streams the answer's text through onToken as it arrives and returns
	// the assistant message, with the tool calls the model wants run. An
	// error of the model's endpoint is a *ModelError; an error of onToken
	// is returned as it is.
	Complete(ctx context.Context, msgs []Message, tools []Tool, onToken func(string) error) (Message, error)
}

// ModelError is a failure of the model's endpoint (not of the tools): the
// chat reports it as llm_unavailable with this message.
type ModelError struct{ Message string }

func (e *ModelError) Error() string { return e.Message }

// IsModelError reports whether err is (or wraps) a *ModelError.
func IsModelError(err error) bool {
	var e *ModelError
	return errors.As(err, &e)
}

type chatBody struct {
	Message  string `json:"message"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// ParseChat reads a chat request body: {"message": "..."} or {"messages":
// [{role, content}, ...]} (user and assistant turns; the last must be the
// user's). Every invalid field is reported (apperr.FieldErrors, loc
// "body").
func ParseChat(body []byte) ([]Message, error) {
	var b chatBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, apperr.FieldErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"message\": \"...\"} or {\"messages\": [{\"role\": \"user\", \"content\": \"...\"}]}: " + err.Error(), Type: "json_invalid"}}
	}
	var msgs []Message
	for _, m := range b.Messages {
		msgs = append(msgs, Message{Role: m.Role, Content: m.Content})
	}
	if b.Message != "" {
		msgs = append(msgs, Message{Role: "user", Content: b.Message})
	}
	var verrs apperr.FieldErrors
	if len(msgs) == 0 {
		verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "message"}, Msg: "Field required: send message (or messages)", Type: "missing"})
	}
	if len(msgs) > MaxMessages {
		verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "messages"}, Msg: fmt.Sprintf("at most %d messages", MaxMessages), Type: "too_long"})
	}
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "messages", i, "role"}, Msg: "Input should be 'user' or 'assistant'", Type: "enum", Input: m.Role})
		}
		if n := utf8.RuneCountInString(m.Content); n == 0 || n > MaxChars {
			verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "messages", i, "content"}, Msg: fmt.Sprintf("content must be 1 to %d characters", MaxChars), Type: "string_too_long"})
		}
	}
	if len(verrs) == 0 && msgs[len(msgs)-1].Role != "user" {
		verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "messages"}, Msg: "the last message must be the user's", Type: "value_error"})
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	return msgs, nil
}

// Run is one chat being answered: it calls the tools and says the answer
// through emit, one event at a time:
//
//	tool_call    {call_id, name, arguments}
//	tool_result  {call_id, name, ok, result | error}
//	token        {text}               the answer, token by token
//
// The caller sends the start, error and end events around it.
type Run struct {
	ctx       context.Context
	emit      func(event string, data any) error
	tools     *Tools
	text      strings.Builder
	tokens    int
	toolCalls int
}

// NewRun starts a chat over tools; emit writes one event (its error, such as
// the client leaving, stops the run). ctx bounds the chat.
func NewRun(ctx context.Context, tools *Tools, emit func(event string, data any) error) *Run {
	return &Run{ctx: ctx, emit: emit, tools: tools}
}

// Text is the answer said so far; Tokens and ToolCalls count its tokens and
// the tools called.
func (c *Run) Text() string   { return c.text.String() }
func (c *Run) Tokens() int    { return c.tokens }
func (c *Run) ToolCalls() int { return c.toolCalls }

// Answer answers the conversation: with model when it is not nil, else with
// the embedded agent (which reads only the last message).
func (c *Run) Answer(model Model, msgs []Message) error {
	if model == nil {
		return c.embedded(msgs[len(msgs)-1].Content)
	}
	return c.withModel(model, msgs)
}

var tokenRE = regexp.MustCompile(`\s*\S+\s*`)

// Tokens splits text as the answer is streamed: a word with its surrounding
// space.
func Tokens(text string) []string { return tokenRE.FindAllString(text, -1) }

// say streams text token by token.
func (c *Run) say(text string) error {
	for _, tok := range Tokens(text) {
		if err := c.token(tok); err != nil {
			return err
		}
	}
	return nil
}

func (c *Run) token(tok string) error {
	if tok == "" {
		return nil
	}
	if err := c.ctx.Err(); err != nil {
		return err
	}
	c.text.WriteString(tok)
	c.tokens++
	return c.emit("token", map[string]string{"text": tok})
}

// call runs a tool with tool_call and tool_result events. A tool's failure
// is its result (terr, ok false), not the chat's; err is a failure of the
// chat (the events could not be sent).
func (c *Run) call(id, name string, args json.RawMessage) (res any, terr, err error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	c.toolCalls++
	if id == "" {
		id = "call_" + strconv.Itoa(c.toolCalls)
	}
	var shown any = args
	if !json.Valid(args) {
		shown = string(args)
	}
	if err := c.emit("tool_call", map[string]any{"call_id": id, "name": name, "arguments": shown}); err != nil {
		return nil, nil, err
	}
	res, terr = c.tools.Run(name, args)
	ev := map[string]any{"call_id": id, "name": name, "ok": terr == nil}
	if terr != nil {
		ev["error"] = terr.Error()
	} else {
		ev["result"] = res
	}
	if err := c.emit("tool_result", ev); err != nil {
		return nil, nil, err
	}
	return res, terr, nil
}

const systemPrompt = `You are the market assistant of cardedge, a market-intelligence service for trading cards (games: %s; default %s; data as of %s).
Answer with the tools, never from memory: resolve cards with search (or quote with q), price them with quote, read history with get_prices, sales with get_sales, movers with trending.
Say which price you give and its basis: Midprice (our fmv), Last (last verified sale) or Ask (a listing), with its date. Never blend sources into one number.
Tools take grades as people write them (PSA 10, BGS 9.5, NM) or as codes (raw:<condition>, <grader>:<number>; slab is PSA); name grades to the user as grade_name does (PSA 10, Raw, near mint), never by code.
Movers are the trending tool's defaults (composite, priced $10 and up) unless the user asks otherwise. Be brief; use USD with two decimals.
%s`

// marketNote tells the model where the snapshot's market data comes from.
func marketNote(m *snapshots.Manifest) string {
	switch m.MarketSource {
	case snapshots.MarketSynthetic:
		return "This snapshot's market data is synthetic (generated for development, not real prices): say so whenever you give a price."
	case snapshots.MarketSources:
		return "Prices come from the marketplaces' files and verified sales: each says its source (tcgplayer, cardmarket, pricecharting, observed); name it, and say when it is stale."
	}
	return "Prices come from verified sales."
}

// withModel answers with the model, running its tool calls, for at most
// MaxRounds model turns.
func (c *Run) withModel(model Model, msgs []Message) error {
	m := c.tools.src.Reader.Manifest()
	conv := []Message{{Role: "system", Content: fmt.Sprintf(systemPrompt, strings.Join(m.Games, ", "), c.tools.game, m.AsOf, marketNote(m))}}
	conv = append(conv, msgs...)
	for round := 0; round < MaxRounds; round++ {
		msg, err := model.Complete(c.ctx, conv, ToolList, c.token)
		if err != nil {
			return err
		}
		if len(msg.ToolCalls) == 0 {
			return nil
		}
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", round, i)
			}
		}
		conv = append(conv, msg)
		for _, tc := range msg.ToolCalls {
			res, terr, err := c.call(tc.ID, tc.Name, json.RawMessage(tc.Arguments))
			if err != nil {
				return err
			}
			out := trimJSON(res, 16<<10)
			if terr != nil {
				out = trimJSON(map[string]string{"error": terr.Error()}, 16<<10)
			}
			conv = append(conv, Message{Role: "tool", ToolCallID: tc.ID, Content: out})
		}
	}
	return c.say(fmt.Sprintf("\n(stopped after %d tool rounds)", MaxRounds))
}

// trimJSON bounds a tool result handed to a model.
func trimJSON(v any, limit int) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `{"error":"cannot encode the result"}`
	}
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) > limit {
		return string(b[:limit]) + "... (truncated)"
	}
	return string(b)
}
