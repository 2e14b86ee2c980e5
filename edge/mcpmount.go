package edge

import (
	"context"
	"net/http"

	"github.com/cardedge/cardedge/edge/access"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// MountMCP mounts h at /api/v3/mcp/ (call before Serve). h receives the
// authenticated caller in its request context (access.CallerFromContext).
func (s *Server) MountMCP(h http.Handler) { s.mcp = s.mcpHandler(h) }

// mcpHandler authenticates MCP requests (a key is always required) and hands
// them to the MCP http.Handler. Headers are copied out of fasthttp's reused
// buffers first: mcp-go keeps header strings (the session id) beyond the
// request.
func (s *Server) mcpHandler(h http.Handler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		caller, err := s.access.Authenticate(ctx.Request.Header.Peek("Authorization"), clientAddr(ctx))
		if err == nil {
			err = access.RequireKey(caller)
		}
		if err != nil {
			s.writeAccessHeaders(ctx, access.Caller{}, nil)
			s.writeError(ctx, err)
			return
		}
		var req http.Request
		if err := fasthttpadaptor.ConvertRequest(ctx, &req, true); err != nil {
			writeJSON(ctx, fasthttp.StatusBadRequest, errorBody{Contract: "error.v1", Error: errorDetail{Code: "bad_request", Message: "cannot read request"}})
			return
		}
		hdr := make(http.Header, len(req.Header))
		for k, v := range req.Header {
			vv := make([]string, len(v))
			for i, x := range v {
				vv[i] = string([]byte(x))
			}
			hdr[string([]byte(k))] = vv
		}
		req.Header = hdr
		r := req.WithContext(access.WithCaller(context.Background(), caller))
		w := &responseWriter{ctx: ctx, header: http.Header{}}
		h.ServeHTTP(w, r)
		w.finish()
	}
}

// responseWriter writes a net/http response into a fasthttp response.
type responseWriter struct {
	ctx         *fasthttp.RequestCtx
	header      http.Header
	status      int
	wroteHeader bool
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(status int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	w.status = status
	for k, vv := range w.header {
		for _, v := range vv {
			w.ctx.Response.Header.Add(k, v)
		}
	}
	w.ctx.SetStatusCode(status)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	w.ctx.Response.AppendBody(b)
	return len(b), nil
}

func (w *responseWriter) Flush() {}

func (w *responseWriter) finish() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
}
