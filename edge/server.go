package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/agent"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/edge/cache"
	"github.com/cardedge/cardedge/edge/connguard"
	"github.com/cardedge/cardedge/live"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// MCPVersion is the MCP server's public version (serverInfo.version and
// mcp_version on /health): package mcp's Version, the one constant.
const MCPVersion = cardmcp.Version

// APIVersion is the version of the published OpenAPI description.
const APIVersion = "0.3.0"

// Options configure a Server. Zero values are documented per field.
type Options struct {
	// Snapshots is the live snapshot (required; package live's Live,
	// opened with Derivation registered).
	Snapshots Snapshots
	// Access is the access layer (required).
	Access *access.Service
	// Collections keeps the callers' collections and their imports
	// (required; package collection's Service).
	Collections Collections
	// CacheBytes is the response cache budget (0 disables the cache).
	CacheBytes int64
	// WarmEntries is how many of the cache's hottest entries WarmCache
	// makes again on a new snapshot before it serves (0:
	// DefaultWarmEntries; negative: none).
	WarmEntries int
	// CursorSecret signs sales cursors (required, at least 16 bytes).
	CursorSecret []byte
	// Logger (nil = slog.Default()).
	Logger *slog.Logger
	// Version is reported on /health.
	Version string
	// ReadTimeout, WriteTimeout and IdleTimeout guard against slow clients
	// (0 = 10 s, 30 s, 60 s): a request from its first byte to its response,
	// the response from its first write, and a keep-alive connection between
	// requests (see package connguard).
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxBodyBytes bounds request bodies (0 = 4 MiB).
	MaxBodyBytes int
	// Model answers the agent chat with the agent's tools (agent/openai for
	// an OpenAI-compatible endpoint); nil means the embedded agent.
	Model agent.Model
	// Source fills the snapshots root from elsewhere (fleet mode:
	// snapshots/s3's Puller mirrors a bucket into it); nil means a local
	// build does. /ready and /metrics report it.
	Source snapshots.Source
	// PublicURL is the URL clients reach the server at (the OpenAPI
	// document's server); "" means the address Serve listens on.
	PublicURL string
	// MCP is the MCP server (package mcp's Server) served at /api/v3/mcp/
	// behind the edge's guard and authentication (mcpmount.go); nil answers
	// 404 there.
	MCP http.Handler
	// Dashboard is the dashboard (package web's Handler) served at
	// /dashboard (dashboard.go); nil answers 404 there.
	Dashboard http.Handler
	// Alerts keeps want lists and alert rules (package alert's Service:
	// alerts.go, feed.go); Webhooks the webhook endpoints (package
	// webhook's: webhooks.go). nil answers their routes 404.
	Alerts   Alerts
	Webhooks Webhooks
	// Apps is the authorization server of connected apps (package oauth)
	// served at /.well-known/oauth-* and /oauth/ through the same adaptor
	// as the dashboard; nil answers 404 there and MCP's 401s name none.
	Apps Apps
}

// Server is the edge: the fasthttp front door over the live snapshot.
type Server struct {
	opts    Options
	log     *slog.Logger
	live    Snapshots
	access  *access.Service
	cache   *cache.Cache
	memo    *frontMemo // nil when the cache is disabled
	metrics *metrics
	router  *router
	http    *fasthttp.Server
	reqSeq  atomic.Uint64
	started time.Time
	mcp     fasthttp.RequestHandler
	// dashboard serves /dashboard (Options.Dashboard); nil: not mounted.
	dashboard fasthttp.RequestHandler
	// apps serves the authorization server (Options.Apps); nil: none.
	apps fasthttp.RequestHandler
	// draining is set by Drain: /ready answers 503 so that a load balancer
	// stops sending requests before Shutdown.
	draining atomic.Bool
	// renderBufs are the scratch buffers self-encoding payloads are
	// rendered into (*[]byte).
	renderBufs sync.Pool
	// requests are the request structs of routed requests (*request),
	// reused: see serveRoute.
	requests sync.Pool
	// collections previews and confirms collection imports.
	collections Collections
	// listenAddr is Serve's listening address (string); the OpenAPI
	// document is built once, on its first request.
	listenAddr  atomic.Value
	openapiOnce sync.Once
	openapiJSON []byte
	openapiErr  error
	// docs is the API reference page (docs.go).
	docs docs
	// downloads limits bulk file downloads (bulk.go).
	downloads *access.Downloads
}

// New opens the live snapshot and prepares the server.
func New(opts Options) (*Server, error) {
	if opts.Access == nil {
		return nil, errors.New("edge: no access layer")
	}
	if opts.Snapshots == nil {
		return nil, errors.New("edge: no live snapshot")
	}
	if opts.Collections == nil {
		return nil, errors.New("edge: no collections")
	}
	if len(opts.CursorSecret) < 16 {
		return nil, errors.New("edge: cursor secret must be at least 16 bytes")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = 10 * time.Second
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = 30 * time.Second
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 60 * time.Second
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	s := &Server{opts: opts, log: opts.Logger, access: opts.Access, metrics: newMetrics(), started: time.Now(),
		renderBufs: sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }},
		requests:   sync.Pool{New: func() any { return new(request) }}}
	var err error
	if s.cache, err = cache.New(opts.CacheBytes); err != nil {
		return nil, err
	}
	if opts.CacheBytes > 0 {
		s.memo = newFrontMemo(opts.CacheBytes)
	}
	s.live, s.collections = opts.Snapshots, opts.Collections
	if v := s.live.Acquire(); v.Derived(derivationName) == nil {
		v.Release()
		s.cache.Close()
		return nil, errNoDerivation
	} else {
		v.Release()
	}
	if opts.MCP != nil {
		s.mcp = s.mcpHandler(opts.MCP)
	}
	if opts.Dashboard != nil {
		s.dashboard = s.netHTTP(opts.Dashboard)
	}
	if opts.Apps != nil {
		s.apps = s.netHTTP(opts.Apps.Handler())
	}
	s.router = newRouter()
	s.registerRoutes()
	s.http = &fasthttp.Server{
		Handler:                       s.handle,
		Name:                          "cardedge",
		MaxRequestBodySize:            opts.MaxBodyBytes,
		ReadBufferSize:                16 << 10,
		DisableHeaderNamesNormalizing: false,
		NoDefaultServerHeader:         false,
		NoDefaultDate:                 false,
		CloseOnShutdown:               true,
		StreamRequestBody:             false,
		Logger:                        fasthttpLogger{s.log},
		ErrorHandler:                  s.handleReadError,
		HeaderReceived:                closeAfterChunked,
		// No ReadTimeout, WriteTimeout or IdleTimeout: Serve's connguard
		// listener enforces them without a timer update per request.
	}
	return s, nil
}

// closeAfterChunked marks a request with a chunked body to close its
// connection after the response. fasthttp reads the chunks and ignores a
// Content-Length beside them, but a proxy in front may have framed the
// request by that Content-Length (CL.TE request smuggling): RFC 9112 section
// 6.1 says to close the connection, so nothing after the body is ever read as
// another request. Chunked request bodies are rare; the cost is one
// reconnect.
func closeAfterChunked(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if h.ContentLength() == -1 {
		h.SetConnectionClose()
	}
	return fasthttp.RequestConfig{}
}

// handleReadError answers a request fasthttp could not read, so the handler
// never ran: error.v1 with 431 (request line and headers over
// ReadBufferSize), 413 (body over MaxBodyBytes), 408 (not read within
// ReadTimeout: slow clients) or 400 (malformed, including the request
// smuggling shapes fasthttp refuses: duplicate or invalid Content-Length,
// Transfer-Encoding other than chunked). fasthttp closes the connection.
func (s *Server) handleReadError(ctx *fasthttp.RequestCtx, err error) {
	code, msg := apperr.EBADREQUEST, "malformed HTTP request"
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	switch {
	case errors.As(err, &small):
		code, msg = apperr.EHEADERTOOLARGE,
			"request line and headers exceed "+strconv.Itoa(s.http.ReadBufferSize>>10)+" KiB"
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		code, msg = apperr.ETOOLARGE, "request body exceeds "+strconv.Itoa(s.opts.MaxBodyBytes)+" bytes"
	case errors.As(err, &ne) && ne.Timeout():
		code, msg = apperr.ETIMEOUT, "request not received within "+s.opts.ReadTimeout.String()
	}
	s.metrics.observe("unreadable", apperr.HTTPStatus(code), 0)
	writeCode(ctx, code, msg)
}

type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Debug("fasthttp", "msg", fmt.Sprintf(format, args...))
}

// Serve answers on ln until Shutdown. The live snapshot is watched (and
// swapped) by its owner, not here.
func (s *Server) Serve(ln net.Listener) error {
	s.listenAddr.Store(ln.Addr().String())
	return s.http.Serve(connguard.Listen(ln, connguard.Timeouts{Read: s.opts.ReadTimeout, Write: s.opts.WriteTimeout, Idle: s.opts.IdleTimeout}))
}

// Shutdown stops accepting, lets in-flight requests finish (until ctx ends),
// and closes the cache. The live snapshot is its owner's to close, after.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.ShutdownWithContext(ctx)
	s.cache.Close()
	return err
}

// acquire returns the live snapshot with the edge's data of it, pinned: call
// release.
func (s *Server) acquire() *snapshot {
	return s.live.Acquire().Derived(derivationName).(*snapshot)
}

// requestHeaders are the request headers the front door reads, found in one
// pass over the header (one Peek each would copy and normalize its name).
type requestHeaders struct {
	authorization, ifNoneMatch, acceptEncoding, requestID, apiKey []byte
	// idSeq is the server's sequence number that is the response's
	// X-Request-Id when the request's own is missing or unusable (0: the
	// request's own is used). handle picks it; dispatch sets the header
	// (after the memo's precomputed header block, which replaces the
	// response header whole) with setRequestID.
	idSeq uint64
}

// setRequestID sets the response's X-Request-Id.
func (h *requestHeaders) setRequestID(rh *fasthttp.ResponseHeader) {
	if h.idSeq == 0 {
		rh.SetCanonical(hdrRequestID, h.requestID)
		return
	}
	var buf [16]byte // SetCanonical copies: buf stays on the stack
	rh.SetCanonical(hdrRequestID, strconv.AppendUint(buf[:0], h.idSeq, 36))
}

// credential is the request's key: Authorization, else X-Api-Key (read by /v2 only).
func (h *requestHeaders) credential() (cred []byte, apiKey bool) {
	if len(h.authorization) == 0 && len(h.apiKey) > 0 {
		return h.apiKey, true
	}
	return h.authorization, false
}

// readRequestHeaders finds the front door's headers; the first of repeated
// ones counts, as with Peek. fasthttp has normalized the names already.
func readRequestHeaders(h *fasthttp.RequestHeader) requestHeaders {
	var rh requestHeaders
	for k, v := range h.All() {
		switch string(k) {
		case "Authorization":
			if rh.authorization == nil {
				rh.authorization = v
			}
		case "If-None-Match":
			if rh.ifNoneMatch == nil {
				rh.ifNoneMatch = v
			}
		case "Accept-Encoding":
			if rh.acceptEncoding == nil {
				rh.acceptEncoding = v
			}
		case "X-Request-Id":
			if rh.requestID == nil {
				rh.requestID = v
			}
		case "X-Api-Key":
			if rh.apiKey == nil {
				rh.apiKey = v
			}
		}
	}
	return rh
}

func requestID(ctx *fasthttp.RequestCtx) string {
	return string(ctx.Response.Header.Peek("X-Request-Id"))
}

// handle is the front door: route -> validate -> authenticate -> tier, quota,
// rate -> clamp -> cache -> data plane.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	start := ctx.Time() // fasthttp's clock reading when the request was read
	if start.IsZero() { // a RequestCtx made by hand (Init), not by the server
		start = time.Now()
	}
	hdr := readRequestHeaders(&ctx.Request.Header)
	if id := hdr.requestID; len(id) == 0 || len(id) > 64 || !printableASCII(id) {
		hdr.idSeq = s.reqSeq.Add(1)
	}
	routeName := s.dispatchSafe(ctx, hdr)
	status := ctx.Response.StatusCode()
	took := time.Since(start)
	s.metrics.observe(routeName, status, took)
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("request", "method", string(ctx.Method()), "path", string(ctx.Path()), "route", routeName,
			"status", status, "duration_us", took.Microseconds(), "request_id", requestID(ctx))
	}
}

// dispatchSafe runs dispatch and turns a panic (a bug) into a logged 500
// error.v1 for this request instead of a crash of the process with every
// other request in flight.
func (s *Server) dispatchSafe(ctx *fasthttp.RequestCtx, hdr requestHeaders) (route string) {
	defer func() {
		if v := recover(); v != nil {
			hdr.setRequestID(&ctx.Response.Header) // a panic in serveMemo may come before it
			s.log.Error("panic serving request", "method", string(ctx.Method()), "path", string(ctx.Path()),
				"request_id", requestID(ctx), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			ctx.Response.ResetBody()
			ctx.Response.Header.Del("Content-Encoding")
			writeCode(ctx, apperr.EINTERNAL, "internal error")
			route = "panic"
		}
	}()
	return s.dispatch(ctx, hdr)
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// dispatch routes the request and returns the route name for metrics.
func (s *Server) dispatch(ctx *fasthttp.RequestCtx, hdr requestHeaders) string {
	if route := s.serveMemo(ctx, hdr); route != "" {
		return route
	}
	hdr.setRequestID(&ctx.Response.Header)
	path := ctx.Path()
	method := methodString(ctx.Method())
	switch {
	case bytes.Equal(path, []byte("/health")):
		s.handleHealth(ctx)
		return "health"
	case bytes.Equal(path, []byte("/metrics")):
		s.handleMetrics(ctx)
		return "metrics"
	case bytes.Equal(path, []byte("/ready")):
		s.handleReady(ctx)
		return "ready"
	case bytes.Equal(path, []byte("/api/v3/mcp")):
		ctx.Redirect("/api/v3/mcp/", fasthttp.StatusTemporaryRedirect)
		return "mcp_redirect"
	case s.dashboard != nil && isDashboardPath(path):
		s.dashboard(ctx)
		return "dashboard"
	case s.apps != nil && isAppsPath(path):
		s.apps(ctx)
		return "oauth"
	case isDocsPath(path):
		s.handleDocs(ctx)
		return "docs"
	case bytes.HasPrefix(path, []byte("/api/v3/mcp/")):
		if s.mcp == nil {
			writeCode(ctx, apperr.ENOTFOUND, "MCP is not enabled on this server")
			return "mcp"
		}
		s.mcp(ctx)
		return "mcp"
	}
	rt, vars, allowed := s.router.match(method, string(path))
	if rt != nil && rt.removed {
		writeRemoved(ctx, rt.method, rt.pattern, rt.replacement)
		return "removed"
	}
	if rt == nil {
		if len(allowed) > 0 {
			ctx.Response.Header.Set("Allow", strings.Join(allowed, ", "))
			writeCode(ctx, apperr.EMETHOD, method+" is not allowed here; use "+strings.Join(allowed, " or "))
			return "method_not_allowed"
		}
		writeCode(ctx, apperr.ENOTFOUND, "no route "+method+" "+string(path))
		return "not_found"
	}
	s.serveRoute(ctx, hdr, rt, vars)
	return rt.name
}

// methodString returns the request method as a string without allocating
// for the common methods.
func methodString(m []byte) string {
	for _, known := range [...]string{"GET", "POST", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		if string(m) == known {
			return known
		}
	}
	return string(m)
}

// request is one call of a route, parsed into plain values.
type request struct {
	// ctx is the request, and its context.Context for everything the
	// handler calls (fasthttp's RequestCtx is one: Done when the server
	// shuts down, values the request's). Like every byte of it, it is valid
	// until the handler returns: work that outlives the handler (the chat's
	// stream) takes a context of its own.
	ctx    *fasthttp.RequestCtx
	hdr    requestHeaders
	srv    *Server
	snap   *snapshot
	caller access.Caller
	limits access.Limits
	p      *params
	vars   pathVars // path variables in pattern order
	params params   // p points here: one allocation for the request
	game   string
	body   []byte // POST body (copied)

	// Card detail's payload, here so that a pooled request carries its
	// storage (the payload is encoded before the request is reused).
	detail   pricing.CardDetail
	includes pricing.CardIncludes
}

// putRequest clears req (a pooled request keeps no snapshot or body alive)
// and returns it to the pool.
func (s *Server) putRequest(req *request) {
	*req = request{}
	s.requests.Put(req)
}

// view is the request's snapshot as the domain packages read it.
func (r *request) view() *live.View { return r.snap.View }

// validate parses the request's query parameters and game, and copies its
// body (POST, PUT, PATCH), into r (the snapshot, context and route vars set).
func (r *request) validate(rt *route) validationErrors {
	ctx, snap := r.ctx, r.snap
	verrs := r.params.parse(ctx.QueryArgs(), rt.params)
	r.p = &r.params
	if rt.hasGame {
		g := ctx.QueryArgs().Peek("game")
		r.game = snap.Manifest().Games[0]
		if g != nil {
			if !snap.Manifest().HasGame(string(g)) {
				verrs = append(verrs, queryError("game", "Input should be "+enumList(snap.Manifest().Games), "enum", string(g), map[string]any{"expected": enumList(snap.Manifest().Games)}))
			} else {
				r.game = string(g)
			}
		}
	}
	if ctx.IsPost() || ctx.IsPut() || ctx.IsPatch() {
		r.body = append([]byte(nil), ctx.PostBody()...)
	}
	return verrs
}

// clampRows lowers limit to the caller's row cap (before the cache key is
// made).
func (r *request) clampRows(rt *route) {
	if rt.hasLimit {
		if c := r.limits.RowCap; c > 0 && r.p.int("limit") > c {
			r.p.setInt("limit", c)
		}
	}
}

// windowStart returns the first day the caller's tier may see (and false when
// the tier is unlimited).
func (r *request) windowStart() (snapshots.Day, bool) {
	return access.WindowStart(r.snap.AsOf, r.caller.Tier)
}

// clampSince applies the history window to a since/date_from value.
func (r *request) clampSince(since snapshots.Day, set bool) (snapshots.Day, bool) {
	d := access.ClampSince(r.snap.AsOf, r.caller.Tier, since, set)
	_, limited := r.windowStart()
	return d, set || limited
}

func (s *Server) serveRoute(ctx *fasthttp.RequestCtx, hdr requestHeaders, rt *route, vars pathVars) {
	snap := s.acquire()
	defer snap.release()
	// The request struct is reused once the response is written: handlers
	// and payloads use it only until serveRoute returns, except a raw
	// handler's (the chat streams its response after).
	// A pooled request is zero (New, putRequest): only its fields are set,
	// the struct (2 KB with card detail's storage) is cleared once, in
	// putRequest.
	req := s.requests.Get().(*request)
	req.ctx, req.srv, req.snap, req.hdr, req.vars = ctx, s, snap, hdr, vars
	if rt.raw == nil {
		defer s.putRequest(req)
	}

	// Validate.
	if verrs := req.validate(rt); len(verrs) > 0 {
		// Refused before authenticating (nothing is charged), with the
		// headers of the key's tier: a valid key's 422 says its tier.
		s.writeError(ctx, verrs)
		tier := s.access.CountRefusedBearer(hdr.authorization, ctx.Response.StatusCode())
		s.writeAccessHeaders(ctx, access.Caller{Tier: tier}, nil)
		return
	}

	// Authenticate.
	authorization := hdr.authorization
	addr := "" // the Playground's rate-limit key, only needed without a key
	if len(authorization) == 0 {
		addr = clientAddr(ctx)
	}
	keyGen := s.access.KeyTableGen() // before Authenticate: a reload in between only drops the memo entry
	var caller access.Caller
	var err error
	if rt.chatToken {
		caller, err = s.access.AuthenticateChat(authorization, addr)
	} else if cred, apiKey := hdr.credential(); apiKey && rt.bare {
		caller, err = s.access.AuthenticateKey(cred, addr)
	} else {
		caller, err = s.access.Authenticate(authorization, addr)
	}
	if err == nil && !rt.keyless {
		err = access.RequireKey(caller)
	}
	if err != nil {
		s.metrics.limited.Add("unauthorized", 1)
		s.writeAccessHeaders(ctx, access.Caller{}, nil)
		s.writeError(ctx, err)
		return
	}
	req.caller, req.limits = caller, access.LimitsOf(caller.Tier)
	defer s.countRefused(ctx, &req.caller) // before putRequest clears it (defers run last first)
	if rt.uncharged && rt.raw != nil {
		rt.raw(req)
		return
	}

	// Route-specific checks that need the body before charging (batch sizes).
	units := 1
	if rt.cost != nil {
		if units, err = rt.cost(req); err != nil {
			s.writeAccessHeaders(ctx, caller, nil)
			s.writeError(ctx, err)
			return
		}
	}

	// Tier, quota, rate.
	if rt.uncharged {
		s.writeAccessHeaders(ctx, caller, nil)
	} else {
		dec, ok := s.charge(ctx, caller, units)
		if !ok {
			return
		}
		s.writeAccessHeaders(ctx, caller, &dec)
	}

	req.clampRows(rt)

	if rt.raw != nil {
		rt.raw(req)
		return
	}
	if !rt.cacheable || !s.cache.Enabled() {
		s.serveRendered(req, rt)
		return
	}
	key := s.cacheKey(req, rt)
	entry, ok := s.cache.Lookup(key)
	if !ok {
		if entry, err = s.cache.Fill(key, func() (*cache.Entry, error) {
			e, err := s.render(req, rt)
			if err == nil {
				s.cache.Remember(key, e, newWarmRecipe(req, rt)) // for WarmCache
			}
			return e, err
		}); err != nil {
			s.writeError(ctx, err)
			return
		}
	}
	if s.memo != nil && ctx.IsGet() && caller.KeyID != "" && rt.cost == nil && !rt.uncharged && entry.Status == fasthttp.StatusOK {
		cred, apiKey := hdr.credential()
		s.memo.remember(ctx.RequestURI(), cred,
			memoEntry{snapGen: snap.Gen, keyGen: keyGen, route: rt, caller: caller, entry: entry, apiKey: apiKey})
	}
	writeEntry(ctx, &req.hdr, entry)
}

// serveMemo answers a keyed GET the front-door memo remembers (see
// frontMemo): charge, then the entry's precomputed header block (status,
// Content-Type, ETag, Vary, Cache-Control and the caller's tier headers, the
// same for every request of the entry) copied whole, the request id, the
// rate limit's remainder when the key is metered, and the cached body with
// its 304 and content negotiation. It returns the route name, or "" when the
// memo does not know the request.
func (s *Server) serveMemo(ctx *fasthttp.RequestCtx, hdr requestHeaders) string {
	cred, apiKey := hdr.credential()
	if s.memo == nil || len(cred) == 0 || !ctx.IsGet() {
		return ""
	}
	m := s.memo.lookup(ctx.RequestURI(), cred, apiKey, s.live.Gen(), s.access.KeyTableGen())
	if m == nil {
		return ""
	}
	h := &ctx.Response.Header
	dec, err := s.access.Charge(m.caller, 1)
	if err != nil {
		hdr.setRequestID(h)
		s.refuse(ctx, m.caller, dec, err)
		return m.route.name
	}
	m.entry.Hit() // for WarmCache's ranking
	m.header.CopyTo(h)
	hdr.setRequestID(h)
	if !dec.Unmetered { // RateLimit's remainder; the block has its policy
		bp := s.renderBufs.Get().(*[]byte)
		b := access.AppendRateLimit((*bp)[:0], dec)
		h.SetCanonical(hdrRateLimit, b)
		s.putRenderBuf(bp, b)
	}
	writeBody(ctx, &hdr, fasthttp.StatusOK, m.etag[:], m.body, m.entry)
	return m.route.name
}

// entryHeader is the header block of a memo entry for caller c: what
// writeAccessHeaders and writeResponse set for every request of it (the
// status, the tier's headers and RateLimit-Policy, Content-Type, ETag, Vary,
// Cache-Control), with a RateLimit placeholder for a metered key that
// serveMemo overwrites in place.
func entryHeader(e *cache.Entry, c access.Caller) *fasthttp.ResponseHeader {
	h := new(fasthttp.ResponseHeader)
	h.SetStatusCode(e.Status)
	access.SetHeaders(canonicalHeader{h}, access.Decision{Tier: c.Tier, Allowed: true, Unmetered: c.Unmetered}, nil)
	writeEntryHeader(h, e.ETagBytes())
	return h
}

// charge spends units of the caller's quota and one token of its rate. When
// the access layer refuses, it answers the request (the 429 or 401 with the
// access headers and Retry-After) and returns false.
func (s *Server) charge(ctx *fasthttp.RequestCtx, caller access.Caller, units int) (access.Decision, bool) {
	dec, err := s.access.Charge(caller, units)
	if err != nil {
		s.refuse(ctx, caller, dec, err)
		return dec, false
	}
	return dec, true
}

// refuse answers a request the access layer refused to charge: the 429 or
// 401 with the access headers and Retry-After.
func (s *Server) refuse(ctx *fasthttp.RequestCtx, caller access.Caller, dec access.Decision, err error) {
	s.metrics.limited.Add(apperr.ErrorCode(err), 1)
	s.writeAccessHeaders(ctx, caller, &dec) // with Retry-After (access.SetHeaders)
	s.writeError(ctx, err)
}

// cacheKey: snapshot generation, route, game, path variables, normalized
// parameters, the caller's effective history window and row cap.
func (s *Server) cacheKey(req *request, rt *route) string {
	var buf [256]byte
	b := strconv.AppendUint(buf[:0], req.snap.Gen, 10)
	b = append(b, '|')
	b = append(b, rt.name...)
	b = append(b, '|')
	b = append(b, req.game...)
	for _, v := range req.vars.list() {
		b = append(b, '|')
		b = appendLowerASCII(b, v)
	}
	b = append(b, '|')
	b = req.p.canonical(b)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(req.limits.HistoryDays), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(req.limits.RowCap), 10)
	if req.caller.Tier == access.Playground {
		b = append(b, "|pg"...)
	}
	if len(req.body) > 0 {
		b = append(b, '|')
		b = append(b, req.body...)
	}
	return string(b)
}

// appendLowerASCII appends s with ASCII letters lowered (path variables are
// ids: ASCII, matched case-insensitively), without strings.ToLower's copy.
func appendLowerASCII(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// jsonAppender is a payload that encodes itself as JSON: the hot payloads
// (card detail) skip encoding/json's reflection. The bytes must be exactly
// what encoding/json would produce for the payload (SetEscapeHTML(false)),
// so the OpenAPI schemas and clients see no difference.
type jsonAppender interface {
	AppendJSON(b []byte) []byte
}

// render runs the route's data plane and encodes the envelope.
func (s *Server) render(req *request, rt *route) (*cache.Entry, error) {
	bp := s.renderBufs.Get().(*[]byte)
	b, err := encode(req, rt, (*bp)[:0])
	if err != nil {
		s.putRenderBuf(bp, b)
		return nil, err
	}
	// The entry keeps an exact copy (a cached body holds no spare capacity
	// the cache budget does not count), the buffer is reused.
	e := cache.NewEntry(fasthttp.StatusOK, bytes.Clone(b))
	s.putRenderBuf(bp, b)
	return e, nil
}

// serveRendered answers a response that is not cached (the route is not
// cacheable, or the cache is off): it is rendered into a pooled buffer that
// becomes the response's own body buffer, with no copy, and concurrent
// equal requests are each rendered (without a cache nothing is shared).
func (s *Server) serveRendered(req *request, rt *route) {
	bp := s.renderBufs.Get().(*[]byte)
	b, err := encode(req, rt, (*bp)[:0])
	if err != nil {
		s.putRenderBuf(bp, b)
		s.writeError(req.ctx, err)
		return
	}
	if !writeEntry(req.ctx, &req.hdr, cache.NewEntry(fasthttp.StatusOK, b)) {
		s.putRenderBuf(bp, b) // 304 or a compressed body: b is not sent
		return
	}
	// fasthttp's body buffer takes b; its previous bytes join the pool.
	s.putRenderBuf(bp, req.ctx.Response.SwapBody(b))
}

// putRenderBuf returns b to the render buffers through bp, unless it grew
// past 64 KiB (a rare large response should not stay pinned in the pool) or
// is under 1 KiB (an empty buffer fasthttp swapped out would grow by
// reallocations; the pool makes a 4 KiB one instead).
func (s *Server) putRenderBuf(bp *[]byte, b []byte) {
	if cap(b) > 64<<10 || cap(b) < 1<<10 {
		return
	}
	*bp = b[:0]
	s.renderBufs.Put(bp)
}

// encode appends the route's envelope and payload to b.
func encode(req *request, rt *route, b []byte) ([]byte, error) {
	data, err := rt.handle(req)
	if err != nil {
		return b, err
	}
	if rt.bare {
		return data.(jsonAppender).AppendJSON(b), nil
	}
	b = append(b, rt.envelopeHead...)
	if a, ok := data.(jsonAppender); ok {
		b = a.AppendJSON(b)
		return append(b, '}'), nil
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		return b, fmt.Errorf("encode %s: %w", rt.name, err)
	}
	b = buf.Bytes()
	b[len(b)-1] = '}' // over Encode's newline
	return b, nil
}

// Response header names and values of writeEntry, in canonical form.
var (
	mimeJSON          = []byte("application/json")
	hdrETag           = []byte("ETag")
	hdrVary           = []byte("Vary")
	hdrCacheControl   = []byte("Cache-Control")
	hdrRequestID      = []byte("X-Request-Id")
	hdrRateLimit      = []byte(access.HeaderRateLimit)
	hdrContentEnc     = []byte("Content-Encoding")
	varyValue         = []byte("Accept-Encoding, Authorization")
	cacheControlValue = []byte("private, max-age=60")
	encBrotli         = []byte("br")
	encGzip           = []byte("gzip")
)

// writeEntry sends a cached or fresh response with ETag/304 and the
// negotiated content encoding. Entries are immutable, so their bodies are
// handed to fasthttp without a copy (SetBodyRaw). It reports whether the
// response body is e.Body (not a 304, not a compressed form).
func writeEntry(ctx *fasthttp.RequestCtx, hdr *requestHeaders, e *cache.Entry) (identity bool) {
	return writeResponse(ctx, hdr, e.Status, e.ETagBytes(), e.Body, e)
}

// writeResponse is writeEntry with e's status, ETag and identity body given
// apart (the memo keeps copies beside its key); e is read only for a
// compressed form.
func writeResponse(ctx *fasthttp.RequestCtx, hdr *requestHeaders, status int, etag, body []byte, e *cache.Entry) (identity bool) {
	writeEntryHeader(&ctx.Response.Header, etag)
	return writeBody(ctx, hdr, status, etag, body, e)
}

// writeEntryHeader sets the headers of a cached or fresh response that do
// not depend on the request: Content-Type, ETag, Vary, Cache-Control.
func writeEntryHeader(h *fasthttp.ResponseHeader, etag []byte) {
	h.SetContentTypeBytes(mimeJSON)
	h.SetCanonical(hdrETag, etag)
	h.SetCanonical(hdrVary, varyValue)
	h.SetCanonical(hdrCacheControl, cacheControlValue)
}

// writeBody is writeResponse after writeEntryHeader: the status, 304 for a
// matching If-None-Match, else the body in the negotiated encoding.
func writeBody(ctx *fasthttp.RequestCtx, hdr *requestHeaders, status int, etag, body []byte, e *cache.Entry) (identity bool) {
	h := &ctx.Response.Header
	if inm := hdr.ifNoneMatch; len(inm) > 0 && etagMatch(inm, etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		ctx.Response.SkipBody = true
		return
	}
	ctx.SetStatusCode(status)
	ae := hdr.acceptEncoding
	if len(ae) > 0 {
		if acceptsEncoding(ae, "br") {
			if b := e.Brotli(); b != nil {
				h.SetCanonical(hdrContentEnc, encBrotli)
				ctx.Response.SetBodyRaw(b)
				return
			}
		}
		if acceptsEncoding(ae, "gzip") {
			if b := e.Gzip(); b != nil {
				h.SetCanonical(hdrContentEnc, encGzip)
				ctx.Response.SetBodyRaw(b)
				return
			}
		}
	}
	ctx.Response.SetBodyRaw(body)
	return true
}

// etagMatch reports whether an If-None-Match list names etag (or is *).
func etagMatch(inm, etag []byte) bool {
	for len(inm) > 0 {
		var part []byte
		part, inm, _ = bytes.Cut(inm, []byte(","))
		part = bytes.TrimSpace(part)
		part = bytes.TrimPrefix(part, []byte("W/"))
		if string(part) == "*" || bytes.Equal(part, etag) {
			return true
		}
	}
	return false
}

// acceptsEncoding reports whether an Accept-Encoding header accepts enc with
// a non-zero quality.
func acceptsEncoding(ae []byte, enc string) bool {
	for len(ae) > 0 {
		var part []byte
		part, ae, _ = bytes.Cut(ae, []byte(","))
		name, q, _ := bytes.Cut(bytes.TrimSpace(part), []byte(";"))
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte(enc)) {
			continue
		}
		return !zeroQuality(q)
	}
	return false
}

// zeroQuality reports whether an Accept-Encoding parameter list says q=0
// (spaces allowed, up to three decimals of zeros).
func zeroQuality(q []byte) bool {
	var b [16]byte
	n := 0
	for _, c := range q {
		if c == ' ' || c == '\t' {
			continue
		}
		if n == len(b) {
			return false
		}
		if c == 'Q' {
			c = 'q'
		}
		b[n] = c
		n++
	}
	switch string(b[:n]) {
	case "q=0", "q=0.", "q=0.0", "q=0.00", "q=0.000":
		return true
	}
	return false
}

func clientAddr(ctx *fasthttp.RequestCtx) string {
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return ctx.RemoteAddr().String()
}

// writeAccessHeaders sets X-Service-Tier, X-Service-History-Days and, after
// a charge (d not nil), the rate-limit headers and Retry-After, all through
// access.SetHeaders. The rate-limit value is formatted in a pooled render
// buffer: a local one would escape through the header interface, one
// allocation per request.
func (s *Server) writeAccessHeaders(ctx *fasthttp.RequestCtx, c access.Caller, d *access.Decision) {
	h := canonicalHeader{&ctx.Response.Header}
	if d == nil { // before a charge: the tier's own headers, no buffer needed
		access.SetHeaders(h, access.Decision{Tier: c.Tier, Allowed: true, Unmetered: true}, nil)
		return
	}
	if d.Unmetered && d.Allowed { // no RateLimit value to format
		access.SetHeaders(h, *d, nil)
		return
	}
	bp := s.renderBufs.Get().(*[]byte)
	s.putRenderBuf(bp, access.SetHeaders(h, *d, (*bp)[:0]))
}

// canonicalHeader sets response headers whose names are already in their
// canonical form (the access layer's names: X-Service-Tier, RateLimit, ...),
// skipping fasthttp's per-call name normalization.
type canonicalHeader struct{ *fasthttp.ResponseHeader }

func (h canonicalHeader) SetBytesKV(key, value []byte) { h.SetCanonical(key, value) }
