package edge

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// latencyBuckets are the upper bounds (seconds) of the request histogram.
var latencyBuckets = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}

// metrics holds the server's counters, written in the Prometheus text format
// by GET /metrics. Per-route series are created once per (route, status).
// The series map is replaced, never changed, when a series is added (rare:
// routes times statuses), so observe reads it without a lock.
type metrics struct {
	mu      sync.Mutex // serializes adding a series
	series  atomic.Pointer[map[seriesKey]*routeSeries]
	limited labeledCounter
}

type seriesKey struct {
	route  string
	status int
}

type routeSeries struct {
	count   atomic.Int64
	sumNs   atomic.Int64
	buckets [len(latencyBuckets)]atomic.Int64
}

type labeledCounter struct {
	mu sync.Mutex
	m  map[string]int64
}

func (c *labeledCounter) Add(label string, n int64) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[label] += n
	c.mu.Unlock()
}

func (c *labeledCounter) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

func newMetrics() *metrics {
	m := &metrics{}
	m.series.Store(&map[seriesKey]*routeSeries{})
	return m
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	k := seriesKey{route, status}
	s := (*m.series.Load())[k]
	if s == nil {
		s = m.addSeries(k)
	}
	s.count.Add(1)
	s.sumNs.Add(int64(d))
	sec := d.Seconds()
	for i, b := range latencyBuckets {
		if sec <= b {
			s.buckets[i].Add(1)
			break
		}
	}
}

// addSeries returns the series of k, adding it to a copy of the map when it
// is new.
func (m *metrics) addSeries(k seriesKey) *routeSeries {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.series.Load()
	if s := old[k]; s != nil {
		return s
	}
	next := make(map[seriesKey]*routeSeries, len(old)+1)
	maps.Copy(next, old)
	s := &routeSeries{}
	next[k] = s
	m.series.Store(&next)
	return s
}

// cacheStats are the response cache's counters.
type cacheStats struct {
	Hits, MemoHits, Misses, Evictions, CostBytes int64
	HitRatio                                     float64
}

// liveCounts are the live snapshot's counts of swaps and refusals (by
// reason).
type liveCounts struct {
	swaps      int64
	rejections map[string]int64
}

func (m *metrics) write(w io.Writer, cache cacheStats, snapshotID string, snapshotAge time.Duration, live liveCounts) {
	series := *m.series.Load()
	keys := slices.Collect(maps.Keys(series))
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].route != keys[j].route {
			return keys[i].route < keys[j].route
		}
		return keys[i].status < keys[j].status
	})
	fmt.Fprintln(w, "# HELP cardedge_requests_total Requests answered, by route and status.")
	fmt.Fprintln(w, "# TYPE cardedge_requests_total counter")
	for _, k := range keys {
		s := series[k]
		fmt.Fprintf(w, "cardedge_requests_total{route=%q,status=\"%d\"} %d\n", k.route, k.status, s.count.Load())
	}
	fmt.Fprintln(w, "# HELP cardedge_request_duration_seconds Request latency, by route and status.")
	fmt.Fprintln(w, "# TYPE cardedge_request_duration_seconds histogram")
	for _, k := range keys {
		s := series[k]
		var cum int64
		for i, b := range latencyBuckets {
			cum += s.buckets[i].Load()
			fmt.Fprintf(w, "cardedge_request_duration_seconds_bucket{route=%q,status=\"%d\",le=\"%s\"} %d\n", k.route, k.status, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		n := s.count.Load()
		fmt.Fprintf(w, "cardedge_request_duration_seconds_bucket{route=%q,status=\"%d\",le=\"+Inf\"} %d\n", k.route, k.status, n)
		fmt.Fprintf(w, "cardedge_request_duration_seconds_sum{route=%q,status=\"%d\"} %g\n", k.route, k.status, float64(s.sumNs.Load())/1e9)
		fmt.Fprintf(w, "cardedge_request_duration_seconds_count{route=%q,status=\"%d\"} %d\n", k.route, k.status, n)
	}
	fmt.Fprintln(w, "# HELP cardedge_cache_hits_total Response cache hits (front-door memo hits included).\n# TYPE cardedge_cache_hits_total counter")
	fmt.Fprintf(w, "cardedge_cache_hits_total %d\n", cache.Hits)
	fmt.Fprintln(w, "# HELP cardedge_cache_memo_hits_total Response cache hits answered by the front-door memo (a raw keyed GET seen before).\n# TYPE cardedge_cache_memo_hits_total counter")
	fmt.Fprintf(w, "cardedge_cache_memo_hits_total %d\n", cache.MemoHits)
	fmt.Fprintln(w, "# HELP cardedge_cache_misses_total Response cache misses.\n# TYPE cardedge_cache_misses_total counter")
	fmt.Fprintf(w, "cardedge_cache_misses_total %d\n", cache.Misses)
	fmt.Fprintln(w, "# HELP cardedge_cache_evictions_total Response cache evictions.\n# TYPE cardedge_cache_evictions_total counter")
	fmt.Fprintf(w, "cardedge_cache_evictions_total %d\n", cache.Evictions)
	fmt.Fprintln(w, "# HELP cardedge_cache_cost_bytes Bytes held by the response cache.\n# TYPE cardedge_cache_cost_bytes gauge")
	fmt.Fprintf(w, "cardedge_cache_cost_bytes %d\n", cache.CostBytes)
	fmt.Fprintln(w, "# HELP cardedge_snapshot_info The snapshot being served.\n# TYPE cardedge_snapshot_info gauge")
	fmt.Fprintf(w, "cardedge_snapshot_info{id=%q} 1\n", snapshotID)
	fmt.Fprintln(w, "# HELP cardedge_snapshot_age_seconds Seconds since the served snapshot was opened.\n# TYPE cardedge_snapshot_age_seconds gauge")
	fmt.Fprintf(w, "cardedge_snapshot_age_seconds %g\n", snapshotAge.Seconds())
	fmt.Fprintln(w, "# HELP cardedge_snapshot_swaps_total Snapshot swaps.\n# TYPE cardedge_snapshot_swaps_total counter")
	fmt.Fprintf(w, "cardedge_snapshot_swaps_total %d\n", live.swaps)
	fmt.Fprintln(w, "# HELP cardedge_snapshot_rejections_total New snapshots refused, by reason.\n# TYPE cardedge_snapshot_rejections_total counter")
	for reason, n := range sortedCounts(live.rejections) {
		fmt.Fprintf(w, "cardedge_snapshot_rejections_total{reason=%q} %d\n", reason, n)
	}
	fmt.Fprintf(w, "# HELP go_goroutines Goroutines that currently exist.\n# TYPE go_goroutines gauge\ngo_goroutines %d\n", runtime.NumGoroutine())
	fmt.Fprintln(w, "# HELP cardedge_rejections_total Requests refused by the access layer, by reason.\n# TYPE cardedge_rejections_total counter")
	for reason, n := range sortedCounts(m.limited.snapshot()) {
		fmt.Fprintf(w, "cardedge_rejections_total{reason=%q} %d\n", reason, n)
	}
}

// sortedCounts iterates a map in key order.
func sortedCounts(m map[string]int64) func(yield func(string, int64) bool) {
	return func(yield func(string, int64) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}
