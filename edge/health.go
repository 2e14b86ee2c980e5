package edge

import (
	"bytes"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

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
	snap := s.acquire()
	defer snap.release()
	m := snap.Manifest()
	st := s.cacheStats()
	writeJSON(ctx, fasthttp.StatusOK, healthBody{
		Status: "ok", Version: s.opts.Version, MCPVersion: MCPVersion, APIVersion: APIVersion,
		SnapshotID: m.SnapshotID, AsOf: m.AsOf, Games: m.Games, Counts: m.Counts,
		SnapshotAgeS: snapshots.Round2(time.Since(snap.Opened).Seconds()), UptimeSeconds: snapshots.Round2(time.Since(s.started).Seconds()),
		Cache: cacheHealth{Enabled: s.opts.CacheBytes > 0, Hits: st.Hits, MemoHits: st.MemoHits, Misses: st.Misses, Evictions: st.Evictions, CostBytes: st.CostBytes, HitRatio: snapshots.Round2(st.HitRatio)},
	})
	ctx.Response.Header.Set("Cache-Control", "no-store")
}

func (s *Server) handleMetrics(ctx *fasthttp.RequestCtx) {
	snap := s.acquire()
	defer snap.release()
	var buf bytes.Buffer
	s.metrics.write(&buf, s.cacheStats(), snap.Manifest().SnapshotID, time.Since(snap.Opened), liveCounts{s.live.Swaps(), s.live.Rejections()})
	if s.opts.Source != nil {
		writeSourceMetrics(&buf, s.opts.Source.Status(), time.Now())
	}
	ctx.SetContentType("text/plain; version=0.0.4")
	ctx.SetBody(buf.Bytes())
}
