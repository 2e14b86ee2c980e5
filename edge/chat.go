package edge

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/cardedge/cardedge/agent"
	"github.com/cardedge/cardedge/apperr"
)

// POST /api/v3/agent/chat streams an agent's answer as server-sent events
// for the web chat UI. The agent (package agent) reads the question, calls
// its tools and writes its answer: the embedded agent, or with
// Options.Model a model (agent/openai) with the same tools. The stream is:
//
//	event: start        {chat_id, agent, model, game, snapshot_id, as_of}
//	event: tool_call    {call_id, name, arguments}
//	event: tool_result  {call_id, name, ok, result | error}
//	event: token        {text}               the answer, token by token
//	event: error        {code, message}      then end
//	event: end          {finish_reason, text, tokens, tool_calls, elapsed_ms}
//
// Every event has an id (1, 2, ...) and one JSON data line; end is always
// the last event. Each event is flushed as it is written.
//
// Besides API keys, the route takes chat-user tokens (package chattoken:
// the dashboard's web chat), charged to the account's chat quota
// (access.AuthenticateChat).

func (s *Server) registerChatRoutes() {
	s.router.add(&route{method: "POST", pattern: "/api/v3/agent/chat", name: "agent_chat", contract: "agent-chat.v1", hasGame: true, internal: true, chatToken: true,
		summary: "Agent chat for the web chat UI: server-sent events (start, tool_call, tool_result, token, error, end)",
		params:  []paramSpec{gameParam()},
		cost:    chatCost, raw: s.handleChat})
}

// chatCost refuses bad bodies before anything is charged; a chat costs one
// unit whatever the tools it calls.
func chatCost(r *request) (int, error) {
	if _, err := agent.ParseChat(r.body); err != nil {
		return 0, err
	}
	return 1, nil
}

// sse writes server-sent events, one flush per event.
type sse struct {
	w   *bufio.Writer
	seq int
	err error // the first write error (the client left)
}

func (e *sse) send(event string, v any) error {
	if e.err != nil {
		return e.err
	}
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"code": "internal", "message": "cannot encode event"})
		event = "error"
	}
	e.seq++
	e.w.WriteString("id: ")
	e.w.WriteString(strconv.Itoa(e.seq))
	e.w.WriteString("\nevent: ")
	e.w.WriteString(event)
	e.w.WriteString("\ndata: ")
	e.w.Write(data)
	e.w.WriteString("\n\n")
	e.err = e.w.Flush()
	return e.err
}

func newChatID() string {
	b := make([]byte, 9)
	rand.Read(b)
	return "chat_" + base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) handleChat(r *request) {
	msgs, err := agent.ParseChat(r.body)
	if err != nil {
		s.writeError(r.ctx, err)
		return
	}
	// The stream outlives this handler: hold a snapshot reference of its own.
	snap := s.acquire()
	tools := agent.NewTools(snap.View, r.game, r.caller.Tier)
	kind, name := "embedded", "cardedge-embedded"
	if s.opts.Model != nil {
		kind, name = "llm", s.opts.Model.Name()
	}
	timeout := max(5*time.Second, s.opts.WriteTimeout-time.Second)
	start := map[string]any{"chat_id": newChatID(), "agent": kind, "model": name, "game": r.game,
		"snapshot_id": snap.Manifest().SnapshotID, "as_of": snap.AsOf.String()}
	h := &r.ctx.Response.Header
	h.SetContentType("text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-store")
	h.Set("X-Accel-Buffering", "no")
	r.ctx.SetStatusCode(200)
	log, model := s.log, s.opts.Model
	r.ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer snap.release()
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		out := &sse{w: w}
		run := agent.NewRun(ctx, tools, out.send)
		end := func(reason string) {
			out.send("end", map[string]any{"finish_reason": reason, "text": run.Text(), "tokens": run.Tokens(),
				"tool_calls": run.ToolCalls(), "elapsed_ms": time.Since(began).Milliseconds()})
		}
		// The stream runs on its own goroutine, outside the server's
		// recovery: a panic here would end the process.
		defer func() {
			if p := recover(); p != nil {
				log.Error("agent chat panicked", "panic", p, "stack", string(debug.Stack()))
				out.send("error", map[string]string{"code": "internal", "message": "the agent failed"})
				end("error")
			}
		}()
		if out.send("start", start) != nil {
			return
		}
		if err := run.Answer(model, msgs); err != nil {
			if out.err != nil {
				return // the client left
			}
			code, msg := "internal", "the agent failed"
			switch {
			case ctx.Err() != nil:
				code, msg = "timeout", fmt.Sprintf("the chat exceeded its %s time limit", timeout)
			case apperr.ErrorCode(err) != apperr.EINTERNAL:
				code, msg = apperr.ErrorCode(err), apperr.ErrorMessage(err)
			case agent.IsModelError(err):
				code, msg = "llm_unavailable", err.Error()
			}
			log.Error("agent chat failed", "err", err)
			out.send("error", map[string]string{"code": code, "message": msg})
			end("error")
			return
		}
		end("stop")
	})
}
