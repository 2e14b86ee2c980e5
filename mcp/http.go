package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// HeaderSessionID is the session header of the Streamable HTTP transport.
const HeaderSessionID = server.HeaderKeySessionID

// MaxBodyBytes bounds a request body (1000 ids of 256 bytes fit easily).
const MaxBodyBytes = 1 << 20

// call is what the HTTP layer knows about one request, for the tools.
type call struct {
	caller access.Caller
	// charged is the units the HTTP layer already spent for this tools/call
	// (1, or 0 for a dry run); the tool charges the rest of its cost.
	charged int
	// session is the Mcp-Session-Id ("" for sessionless protocol versions).
	session string
	// fault is the JSON-RPC error a resource or prompt handler refused the
	// request with (nil: none, or mcp-go's own); see answerFault.
	fault *rpcFault
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// httpContext is the StreamableHTTPServer's context function: it carries the
// caller (access.CallerFromContext) and what the HTTP layer charged into the
// tool handlers' context.
func httpContext(ctx context.Context, r *http.Request) context.Context {
	if c := callFrom(r.Context()); c != nil {
		return context.WithValue(ctx, callKey{}, c)
	}
	if caller, ok := access.CallerFromContext(r.Context()); ok {
		return context.WithValue(ctx, callKey{}, &call{caller: caller, session: r.Header.Get(HeaderSessionID)})
	}
	return ctx
}

// rpcPeek is the part of a JSON-RPC message the HTTP layer looks at.
type rpcPeek struct {
	Method string `json:"method"`
	Params struct {
		Name      string `json:"name"` // tools/call, prompts/get
		URI       string `json:"uri"`  // resources/read
		Arguments struct {
			DryRun any `json:"dry_run"`
		} `json:"arguments"`
	} `json:"params"`
}

// serveHTTP applies the HTTP rules, then hands the request to mcp-go:
//
//   - a caller with a key must be in the context (401 otherwise);
//   - POST tools/call is charged one unit (429 with Retry-After when the
//     key's quota or rate is exceeded), except a batch_grade_ladder dry run;
//     so are a resources/read of one of the resources and a prompts/get of
//     a prompt that reads data (charged);
//   - the answer to a resources/read or prompts/get is buffered, to put in
//     the JSON-RPC error its handler meant (answerFault);
//   - a request other than initialize without Mcp-Session-Id is 400, an
//     unknown, ended or foreign session 404 (mcp-go asks the session
//     manager); DELETE of a live session ends it;
//   - GET is 405 (no server-to-client stream).
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	caller, ok := access.CallerFromContext(r.Context())
	if !ok || caller.KeyID == "" {
		writeHTTPError(w, apperr.EUNAUTHORIZED, "MCP requires an API key: send Authorization: Bearer <API_KEY>")
		return
	}
	setTierHeaders(w.Header(), caller)
	sid := r.Header.Get(HeaderSessionID)
	modern := mcpproto.IsModernProtocol(r.Header.Get(mcpproto.HeaderProtocolVersion))
	c := &call{caller: caller, session: sid}
	var peek rpcPeek // of a POST

	switch r.Method {
	case http.MethodDelete:
		if sid == "" {
			writeHTTPError(w, apperr.EBADREQUEST, "DELETE needs the Mcp-Session-Id header of the session to end")
			return
		}
		if !s.sessions.valid(sid, caller.KeyID) {
			writeHTTPError(w, apperr.ENOTFOUND, "unknown or ended session; initialize a new one")
			return
		}
	case http.MethodPost:
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
		if err != nil {
			writeHTTPError(w, apperr.EBADREQUEST, "cannot read the request body")
			return
		}
		if len(body) > MaxBodyBytes {
			writeHTTPError(w, apperr.ETOOLARGE, "request body larger than 1 MiB")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		_ = json.Unmarshal(body, &peek) // mcp-go answers malformed messages
		if sid == "" && !modern && peek.Method != "" && peek.Method != string(mcpproto.MethodInitialize) {
			writeHTTPError(w, apperr.EBADREQUEST, "missing Mcp-Session-Id header: send the id the initialize response returned")
			return
		}
		if s.charged(peek, caller) {
			// Requests mcp-go refuses before any tool runs (unknown session,
			// unsupported protocol version, wrong content type) cost nothing.
			if sid != "" && !s.sessions.valid(sid, caller.KeyID) {
				break
			}
			if v := r.Header.Get(mcpproto.HeaderProtocolVersion); v != "" && !mcpproto.IsValidProtocolVersion(v) {
				break
			}
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
				break
			}
			d, err := s.acc.Charge(caller, 1)
			var buf [64]byte
			access.SetHeaders(httpHeader(w.Header()), d, buf[:0])
			if err != nil {
				writeHTTPError(w, apperr.ErrorCode(err), apperr.ErrorMessage(err))
				return
			}
			c.charged = 1
		}
	}
	r = r.WithContext(context.WithValue(r.Context(), callKey{}, c))
	if r.Method == http.MethodPost && (peek.Method == string(mcpproto.MethodResourcesRead) || peek.Method == string(mcpproto.MethodPromptsGet)) {
		buf := &responseBuffer{header: w.Header(), status: http.StatusOK}
		s.http.ServeHTTP(buf, r)
		answerFault(w, buf, c.fault)
		return
	}
	s.http.ServeHTTP(w, r)
}

// charged reports whether the HTTP layer charges a request one unit: a
// tools/call (but a batch_grade_ladder dry run, and a chat tool the caller
// does not have: mcp-go's tool filter refuses it), a resources/read of one
// of the resources (chargedRead) and a prompts/get of a prompt that reads
// data (chargedPrompts).
func (s *Server) charged(peek rpcPeek, caller access.Caller) bool {
	switch peek.Method {
	case string(mcpproto.MethodToolsCall):
		if peek.Params.Name == "batch_grade_ladder" && peek.Params.Arguments.DryRun == true {
			return false
		}
		return !chatTools[peek.Params.Name] || caller.ChatTools()
	case string(mcpproto.MethodResourcesRead):
		return s.chargedRead(peek.Params.URI, caller)
	case string(mcpproto.MethodPromptsGet):
		return chargedPrompts[peek.Params.Name]
	}
	return false
}

// rpcFault is a JSON-RPC error a resource or prompt handler answers with.
// mcp-go (v1.2.1) answers every error of such a handler with -32603
// (internal error), where the MCP revisions want "resource not found"
// (-32002, or -32602 from 2026-07-28) for a resource that does not exist
// and -32602 (invalid params) for a prompt's bad argument: the handler
// records the error it means in the call, and answerFault puts its code,
// message and data into mcp-go's answer.
type rpcFault struct {
	code    int
	message string
	data    any
}

// responseBuffer holds mcp-go's answer to a resources/read or prompts/get
// (one application/json body: streaming is off), its header being the
// response's.
type responseBuffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *responseBuffer) Header() http.Header         { return b.header }
func (b *responseBuffer) WriteHeader(status int)      { b.status = status }
func (b *responseBuffer) Write(p []byte) (int, error) { return b.body.Write(p) }

// answerFault writes the buffered answer, its JSON-RPC error (mcp-go's
// -32603) replaced by f when the handler recorded one.
func answerFault(w http.ResponseWriter, b *responseBuffer, f *rpcFault) {
	body := b.body.Bytes()
	if f != nil && b.status == http.StatusOK {
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Error != nil && msg.Error.Code == mcpproto.INTERNAL_ERROR {
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			type rpcError struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Data    any    `json:"data,omitempty"`
			}
			err := enc.Encode(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   rpcError        `json:"error"`
			}{msg.JSONRPC, msg.ID, rpcError{f.code, f.message, f.data}})
			if err == nil {
				body = bytes.TrimSuffix(out.Bytes(), []byte("\n"))
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
		}
	}
	w.WriteHeader(b.status)
	w.Write(body)
}

// httpHeader lets access.SetHeaders write into a net/http header.
type httpHeader http.Header

func (h httpHeader) SetBytesKV(k, v []byte) { http.Header(h).Set(string(k), string(v)) }

func setTierHeaders(h http.Header, c access.Caller) {
	h.Set(access.HeaderTier, string(access.TierValue(c.Tier)))
	h.Set(access.HeaderHistoryDays, string(access.HistoryDaysValue(c.Tier)))
}

// writeHTTPError answers an error.v1 body with the code's status: the one
// table REST answers with too (apperr.HTTPStatus).
func writeHTTPError(w http.ResponseWriter, code, msg string) {
	b := errorJSON(code, msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(apperr.HTTPStatus(code))
	w.Write(b)
}

// errorJSON is the error.v1 body of code and msg, encoded as REST encodes it
// (no HTML escaping).
func errorJSON(code, msg string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(apperr.NewErrorBody(code, msg))
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
