package edge

import (
	"github.com/valyala/fasthttp"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge/cache"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// DefaultWarmEntries is how many of the response cache's hottest entries
// WarmCache makes again on a new snapshot when Options.WarmEntries is 0.
const DefaultWarmEntries = 2000

// warmRecipe is what makes a cached response again on another snapshot:
// the request that filled it (method, URI, body), the caller it was
// rendered for (the cache key carries what of the caller the response
// depends on: tier limits, row cap) and its route. It holds copies only.
type warmRecipe struct {
	method string
	uri    string
	body   []byte
	caller access.Caller
	route  *route
	vars   pathVars
}

// newWarmRecipe notes req's recipe (the cache's fill path).
func newWarmRecipe(req *request, rt *route) *warmRecipe {
	return &warmRecipe{method: methodString(req.ctx.Method()), uri: string(req.ctx.RequestURI()), body: req.body,
		caller: req.caller, route: rt, vars: req.vars}
}

// WarmCache makes the response cache's hottest entries (up to
// Options.WarmEntries, the most requested first) again on next, the
// snapshot about to replace prev: each entry's request is parsed and
// rendered anew against next, under next's cache key (its generation), so
// that the first requests after the swap find them cached. Nothing of
// prev's responses is reused: a warmed entry is next's bytes. Register it
// with live.Live.BeforeSwap: meter paces it (one Yield per response), and
// the swap waits for it.
func (s *Server) WarmCache(prev, next *live.View, meter *snapshots.Meter) {
	n := s.opts.WarmEntries
	if n == 0 {
		n = DefaultWarmEntries
	}
	snap, ok := next.Derived(derivationName).(*snapshot)
	if !s.cache.Enabled() || n < 0 || !ok {
		return
	}
	hot := s.cache.Hottest(n)
	out := make([]cache.Warmed, 0, len(hot))
	seen := make(map[string]bool, len(hot))
	var ctx fasthttp.RequestCtx
	ctx.Init(&fasthttp.Request{}, nil, nil) // a context whose Done never closes
	for _, h := range hot {
		rc, ok := h.Recipe.(*warmRecipe)
		if !ok {
			continue
		}
		if e, key, ok := s.rerender(&ctx, snap, rc); ok && !seen[key] {
			seen[key] = true
			out = append(out, cache.Warmed{Key: key, Entry: e, Recipe: rc, Hits: h.Hits})
		}
		meter.Yield()
	}
	s.cache.Preload(out)
	s.log.Info("response cache warmed", "snapshot", next.ID(), "entries", len(out), "hottest", len(hot))
}

// rerender renders rc's request on snap, as serveRoute would (parameters,
// game, row cap, cache key), without authenticating or charging: the
// caller is rc's. ok is false when the request no longer renders (a card
// the new snapshot lacks: its error is not cached either).
func (s *Server) rerender(ctx *fasthttp.RequestCtx, snap *snapshot, rc *warmRecipe) (e *cache.Entry, key string, ok bool) {
	ctx.Request.Reset()
	ctx.Request.Header.SetMethod(rc.method)
	ctx.Request.SetRequestURI(rc.uri)
	if len(rc.body) > 0 {
		ctx.Request.SetBody(rc.body)
	}
	req := s.requests.Get().(*request)
	defer s.putRequest(req)
	req.ctx, req.srv, req.snap, req.vars = ctx, s, snap, rc.vars
	req.caller, req.limits = rc.caller, access.LimitsOf(rc.caller.Tier)
	if verrs := req.validate(rc.route); len(verrs) > 0 {
		return nil, "", false
	}
	req.clampRows(rc.route)
	key = s.cacheKey(req, rc.route)
	e, err := s.render(req, rc.route)
	if err != nil || e.Status != fasthttp.StatusOK {
		return nil, "", false
	}
	return e, key, true
}
