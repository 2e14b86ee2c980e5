package edge

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"

	"github.com/cardedge/cardedge/access"
	"github.com/valyala/fasthttp"
)

// DashboardPath is where the dashboard (Options.Dashboard) is served.
const DashboardPath = "/dashboard"

func isDashboardPath(p []byte) bool {
	return bytes.HasPrefix(p, []byte(DashboardPath)) && (len(p) == len(DashboardPath) || p[len(DashboardPath)] == '/')
}

// netHTTP serves a net/http handler: the dashboard (package web) at
// /dashboard and below, and the authorization server of connected apps
// (package oauth). Their requests go through none of the API's access
// layer: they are not authenticated by key nor charged to a quota (h limits
// them per client address itself). As for MCP, the request's headers and body are copied out
// of fasthttp's reused buffers before h sees them, and on a loopback
// listener the Host header must name a loopback host (DNS rebinding).
func (s *Server) netHTTP(h http.Handler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if msg := checkLoopbackHost(ctx); msg != "" {
			ctx.Error(msg, fasthttp.StatusForbidden)
			return
		}
		// Every string is a copy: fasthttp reuses its buffers after the
		// handler returns, and the handler may keep what it read.
		uri := string(ctx.RequestURI())
		u, err := url.ParseRequestURI(uri)
		if err != nil {
			ctx.Error("cannot read the request", fasthttp.StatusBadRequest)
			return
		}
		hdr := http.Header{}
		for k, v := range ctx.Request.Header.All() {
			hdr.Add(string(k), string(v))
		}
		body := bytes.Clone(ctx.PostBody())
		r := (&http.Request{
			Method: string(ctx.Method()), URL: u, RequestURI: uri, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: hdr, Host: string(ctx.Host()), RemoteAddr: ctx.RemoteAddr().String(), TLS: ctx.TLSConnectionState(),
			ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body)),
		}).WithContext(ctx)
		w := &responseWriter{ctx: ctx, header: http.Header{}}
		h.ServeHTTP(w, r)
		w.finish()
	}
}

// checkLoopbackHost is the Host half of checkHostOrigin: a page that a
// rebound DNS name loads from a loopback server is refused. Origins are the
// dashboard's own check (its forms refuse other sites with 403).
func checkLoopbackHost(ctx *fasthttp.RequestCtx) string {
	if a, ok := ctx.LocalAddr().(*net.TCPAddr); ok && a.IP.IsLoopback() && !loopbackName(hostOnly(string(ctx.Host()))) {
		return "invalid Host header: this server listens on a loopback address and accepts only a loopback Host (localhost, 127.0.0.1, [::1])"
	}
	return ""
}

// countRefused counts a keyed call the route refused with 403 or 422 (401s
// and 429s are counted by the access layer itself).
func (s *Server) countRefused(ctx *fasthttp.RequestCtx, c *access.Caller) {
	if st := ctx.Response.StatusCode(); (st == fasthttp.StatusForbidden || st == fasthttp.StatusUnprocessableEntity) && c.KeyID != "" {
		s.access.CountRefused(*c, st)
	}
}
