package edge

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// mcpHandler is the HTTP layer in front of the MCP server:
//
//  1. DNS-rebinding guard of the MCP 2025-11-25 revision, answered 403
//     error.v1 (code forbidden): on a loopback listener the Host header must
//     name a loopback host; an Origin header, when present, must name the
//     Host's own host, or a loopback host when Host is one ("null" and
//     other origins are refused). mcp-go's own guard cannot see the local
//     address behind the adaptor, so it runs here.
//  2. A valid Bearer key, chat-user token or connected app's access token
//     is required (401 error.v1, no anonymous access;
//     access.AuthenticateMCP). With connected apps (Options.Apps), every
//     401 names the authorization server in WWW-Authenticate (RFC 9728),
//     which is how an MCP host finds where to sign in.
//  3. Headers are copied out of fasthttp's reused buffers: mcp-go keeps
//     header strings (the session id) beyond the request.
//
// Charging (429 with Retry-After) is the MCP handler's: it knows which
// JSON-RPC messages are tool calls. The response writer cannot flush, so
// mcp-go answers every POST with one application/json body.
func (s *Server) mcpHandler(h http.Handler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if msg := checkHostOrigin(ctx); msg != "" {
			writeCode(ctx, apperr.EFORBIDDEN, msg)
			return
		}
		authorization := ctx.Request.Header.Peek("Authorization")
		caller, err := s.access.AuthenticateMCP(authorization, clientAddr(ctx))
		if err == nil {
			err = access.RequireKey(caller)
		}
		if err != nil {
			s.writeAccessHeaders(ctx, access.Caller{}, nil)
			if s.opts.Apps != nil && apperr.ErrorCode(err) == apperr.EUNAUTHORIZED {
				if len(authorization) == 0 {
					err = nil // no credential: the challenge carries no error
				}
				ctx.Response.Header.Set("WWW-Authenticate", s.opts.Apps.Challenge(err))
				if err == nil {
					err = apperr.Errorf(apperr.EUNAUTHORIZED, "MCP requires an API key or a connected app's access token (see WWW-Authenticate)")
				}
			}
			s.writeError(ctx, err)
			return
		}
		var req http.Request
		if err := fasthttpadaptor.ConvertRequest(ctx, &req, true); err != nil {
			writeCode(ctx, apperr.EBADREQUEST, "cannot read request")
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
		r := req.WithContext(access.WithCaller(ctx, caller))
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

func (w *responseWriter) finish() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
}

// checkHostOrigin returns why a request fails the DNS-rebinding guard, or "".
func checkHostOrigin(ctx *fasthttp.RequestCtx) string {
	host := string(ctx.Host())
	hostName := hostOnly(host)
	if a, ok := ctx.LocalAddr().(*net.TCPAddr); ok && a.IP.IsLoopback() && !loopbackName(hostName) {
		return "invalid Host header " + quoteTrunc(host) + ": this server listens on a loopback address and accepts only a loopback Host (localhost, 127.0.0.1, [::1])"
	}
	origin := string(ctx.Request.Header.Peek("Origin"))
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "invalid Origin header " + quoteTrunc(origin) + ": cross-origin MCP requests are refused"
	}
	oh := u.Hostname()
	if strings.EqualFold(oh, hostName) || (loopbackName(oh) && loopbackName(hostName)) {
		return ""
	}
	return "Origin " + quoteTrunc(origin) + " is not allowed: MCP accepts requests from the server's own origin only"
}

// hostOnly strips the port from a Host header value.
func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.Trim(h, "[]")
}

func loopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && ip.IsLoopback()
}

func quoteTrunc(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return "\"" + s + "\""
}
