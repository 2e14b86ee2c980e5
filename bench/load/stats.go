package load

import (
	"math"
	"slices"
	"time"
)

// Figures are the results of one run. Latencies are in milliseconds.
type Figures struct {
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"rps"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	P999Ms   float64 `json:"p999_ms"`
	MaxMs    float64 `json:"max_ms"`
	MeanMs   float64 `json:"mean_ms"`
	// BytesPerResponse is the mean size of a response, headers included
	// (wrk) or body only (open loop).
	BytesPerResponse float64 `json:"bytes_per_response"`
	// ErrorKinds splits Errors (connect, read, write, timeout, status, ...).
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	// GenCPUPct is the load generator's CPU use over the run (100 = one
	// core: the generator, not the server, was the limit).
	GenCPUPct float64 `json:"gen_cpu_pct,omitempty"`
	// ServerCPUUsPerReq is the server process's CPU time per request, a
	// figure that the other work on a shared machine disturbs much less
	// than requests/s.
	ServerCPUUsPerReq float64 `json:"server_cpu_us_per_req,omitempty"`
	// ServerUserUsPerReq is the user-mode part of ServerCPUUsPerReq: the
	// server's own code (the rest is the kernel: syscalls, TCP, loopback),
	// where one server's work differs from another's.
	ServerUserUsPerReq float64 `json:"server_user_us_per_req,omitempty"`
	// ServerCPUPct is the server's CPU use over the run (100 = the whole
	// core it is pinned to: the run was server-bound).
	ServerCPUPct float64 `json:"server_cpu_pct,omitempty"`
}

// Latencies collects latencies and computes percentiles.
type Latencies struct {
	d []time.Duration
}

// Add records one latency.
func (l *Latencies) Add(d time.Duration) { l.d = append(l.d, d) }

// Len is the number of recorded latencies.
func (l *Latencies) Len() int { return len(l.d) }

// Merge appends the latencies of o.
func (l *Latencies) Merge(o *Latencies) { l.d = append(l.d, o.d...) }

// Percentile returns the p-th percentile (0 < p <= 100, nearest rank) in
// milliseconds; 0 when empty. It sorts the samples once.
func (l *Latencies) Percentile(p float64) float64 {
	if len(l.d) == 0 {
		return 0
	}
	if !slices.IsSorted(l.d) {
		slices.Sort(l.d)
	}
	rank := int(math.Ceil(p / 100 * float64(len(l.d))))
	rank = min(max(rank, 1), len(l.d))
	return ms(l.d[rank-1])
}

// Mean returns the mean latency in milliseconds.
func (l *Latencies) Mean() float64 {
	if len(l.d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range l.d {
		sum += d
	}
	return ms(sum / time.Duration(len(l.d)))
}

// Fill sets the latency fields of f.
func (l *Latencies) Fill(f *Figures) {
	f.P50Ms = l.Percentile(50)
	f.P99Ms = l.Percentile(99)
	f.P999Ms = l.Percentile(99.9)
	f.MaxMs = l.Percentile(100)
	f.MeanMs = l.Mean()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Ratio returns a/b, or 0 when either is not positive (no figure).
func Ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}
