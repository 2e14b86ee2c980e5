package edge

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// registerRoutes builds the route table: one register function per resource.
func (s *Server) registerRoutes() {
	s.registerCardRoutes()
	s.registerSetRoutes()
	s.registerMarketRoutes()
	s.registerSQLRoutes()
	s.registerPriceRoutes()
	s.registerImportRoutes()
	s.registerChatRoutes()
	s.registerSearchRoutes()
	s.registerQuoteRoutes()
	s.router.add(&route{method: "POST", pattern: "/api/v3/cards/batch", name: "cards_batch", contract: "card-gold.v3", cacheable: true, hasGame: false,
		summary: "Batch card lookup (Pro: 50 ids, Elite: 100; Free: 403); costs one unit per unique id that names a card (at least one)", schema: "CardBatch",
		cost: batchCost, handle: handleBatch})
	s.router.add(&route{method: "GET", pattern: "/keys/usage", name: "keys_usage", contract: "key-usage.v1",
		summary: "Daily usage of the calling key", schema: "KeyUsage", handle: s.handleKeyUsage})
	s.router.add(&route{method: "GET", pattern: "/api/v3/openapi.json", name: "openapi", keyless: true, raw: s.handleOpenAPI})
	for _, r := range removedRoutes {
		s.router.add(&route{method: r.method, pattern: r.pattern, name: "removed", removed: true, replacement: r.replacement})
	}
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
	bp := s.renderBufs.Get().(*[]byte)
	s.putRenderBuf(bp, access.SetHeaders(h, *d, (*bp)[:0]))
}

// canonicalHeader sets response headers whose names are already in their
// canonical form (the access layer's names: X-Service-Tier, RateLimit, ...),
// skipping fasthttp's per-call name normalization.
type canonicalHeader struct{ *fasthttp.ResponseHeader }

func (h canonicalHeader) SetBytesKV(key, value []byte) { h.SetCanonical(key, value) }

func (s *Server) handleKeyUsage(r *request) (any, error) {
	u, err := s.access.Usage(r.caller.KeyID)
	if err != nil {
		return nil, err
	}
	return u, nil
}

type healthBody struct {
	Status        string      `json:"status"`
	Version       string      `json:"version"`
	MCPVersion    string      `json:"mcp_version"`
	APIVersion    string      `json:"api_version"`
	SnapshotID    string      `json:"snapshot_id"`
	AsOf          string      `json:"as_of"`
	Games         []string    `json:"games"`
	SnapshotAgeS  float64     `json:"snapshot_age_seconds"`
	UptimeSeconds float64     `json:"uptime_seconds"`
	Counts        any         `json:"counts"`
	Cache         cacheHealth `json:"cache"`
}

type cacheHealth struct {
	Enabled bool `json:"enabled"`
	// Hits counts requests answered from the cache, MemoHits those of them
	// the front-door memo answered (frontMemo); HitRatio is Hits over Hits
	// plus Misses.
	Hits      int64   `json:"hits"`
	MemoHits  int64   `json:"memo_hits"`
	Misses    int64   `json:"misses"`
	Evictions int64   `json:"evictions"`
	CostBytes int64   `json:"cost_bytes"`
	HitRatio  float64 `json:"hit_ratio"`
}

// cacheStats are the response cache's counters with the front-door memo's
// hits counted as hits.
func (s *Server) cacheStats() cacheStats {
	st := s.cache.Stats() // the edge's ratio counts the memo's hits too
	c := cacheStats{Hits: st.Hits, Misses: st.Misses, Evictions: st.Evictions, CostBytes: st.CostBytes}
	if s.memo != nil {
		c.MemoHits = s.memo.hits.Load()
		c.Hits += c.MemoHits
	}
	if c.Hits+c.Misses > 0 {
		c.HitRatio = float64(c.Hits) / float64(c.Hits+c.Misses)
	}
	return c
}

func (s *Server) handleHealth(ctx *fasthttp.RequestCtx) {
	snap := s.live.acquire()
	defer snap.release()
	m := snap.Manifest()
	st := s.cacheStats()
	writeJSON(ctx, fasthttp.StatusOK, healthBody{
		Status: "ok", Version: s.opts.Version, MCPVersion: MCPVersion, APIVersion: APIVersion,
		SnapshotID: m.SnapshotID, AsOf: m.AsOf, Games: m.Games, Counts: m.Counts,
		SnapshotAgeS: snapshots.Round2(time.Since(snap.opened).Seconds()), UptimeSeconds: snapshots.Round2(time.Since(s.started).Seconds()),
		Cache: cacheHealth{Enabled: s.opts.CacheBytes > 0, Hits: st.Hits, MemoHits: st.MemoHits, Misses: st.Misses, Evictions: st.Evictions, CostBytes: st.CostBytes, HitRatio: snapshots.Round2(st.HitRatio)},
	})
	ctx.Response.Header.Set("Cache-Control", "no-store")
}

func (s *Server) handleMetrics(ctx *fasthttp.RequestCtx) {
	snap := s.live.acquire()
	defer snap.release()
	var buf bytes.Buffer
	s.metrics.write(&buf, s.cacheStats(), snap.Manifest().SnapshotID, time.Since(snap.opened))
	ctx.SetContentType("text/plain; version=0.0.4")
	ctx.SetBody(buf.Bytes())
}

func (s *Server) handleOpenAPI(r *request) {
	b, err := json.Marshal(s.openAPI())
	if err != nil {
		s.writeError(r.ctx, err)
		return
	}
	r.ctx.SetContentType("application/json")
	r.ctx.SetBody(b)
}
