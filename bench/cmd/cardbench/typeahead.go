package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

// TypeaheadFigs are the keystroke figures: the same open-loop schedule of
// users typing card names against each target, one after the other.
type TypeaheadFigs struct {
	Users       int           `json:"users"`
	Keystrokes  int           `json:"keystrokes"`
	UsersPerSec float64       `json:"users_per_sec"`
	IntervalMs  float64       `json:"keystroke_interval_ms"`
	Seconds     float64       `json:"seconds"`
	Edge        *load.Figures `json:"edge_cached,omitempty"`
	Uncached    *load.Figures `json:"edge_uncached,omitempty"`
	Ceiling     *load.Figures `json:"ceiling,omitempty"`
	Nginx       *load.Figures `json:"nginx,omitempty"`
	// FirstKeys are the cached edge's figures of the first three keystrokes
	// of each user (the widest prefixes).
	FirstKeys    *load.Figures `json:"edge_cached_first_3_keys,omitempty"`
	RefBodyBytes int           `json:"ref_body_bytes"`
}

// runTypeahead: users typing real card names against GET /api/v3/lookup,
// open loop (p50/p99 per keystroke), then the keystroke list under wrk
// (throughput), each against the ceiling and nginx serving a lookup body.
func (h *harness) runTypeahead(ctx context.Context) error {
	if !h.lookupOK {
		h.logf("typeahead: not run (GET /api/v3/lookup did not answer its probe, see below)")
		return nil
	}
	p := h.plan
	keys := h.cat.typing(p.typeUsersPerSec, p.typeSpan, p.typeInterval, p.typeMaxChars, 1)
	h.logf("typeahead: %d users typing card names (%d keystrokes over %s), open loop", int(p.typeUsersPerSec*p.typeSpan.Seconds()), len(keys), p.typeSpan)
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	paths := make([]string, len(keys))
	for i, k := range keys {
		paths[i] = k.path
	}
	// Warm-up fetches each distinct prefix once (and checks it) on the
	// uncached edge: the cached edge's figures below are then those of a
	// cold cache, as a real keystroke stream meets it.
	bodies, bad, err := h.warm(ctx, h.nocache.addr, auth, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("typeahead", paths, bodies, bad); err != nil {
		return err
	}
	ref, err := h.startRefs(ctx, "lookup", medianBody(paths, bodies))
	if err != nil {
		return err
	}
	defer h.stopRefs(ref)
	t := &TypeaheadFigs{Users: int(p.typeUsersPerSec * p.typeSpan.Seconds()), Keystrokes: len(keys), UsersPerSec: p.typeUsersPerSec,
		IntervalMs: float64(p.typeInterval.Milliseconds()), RefBodyBytes: ref.size}
	shots := make([]load.Shot, 0, len(keys))
	for _, k := range keys {
		shots = append(shots, load.Shot{At: k.at, Path: k.path, Headers: auth, Tag: k.n})
	}
	run := func(s *server) (*load.Figures, []load.Sample) {
		ol := load.OpenLoop{Addr: s.addr, MaxConns: 256, Timeout: 5 * time.Second, Grace: 10 * time.Second}
		cpu0, _ := cpuTime(s.proc.Pid())
		samples := ol.Run(ctx, shots)
		f := load.Summarize(samples, 0, 0)
		if cpu1, err := cpuTime(s.proc.Pid()); err == nil && f.Requests > 0 {
			f.ServerCPUUsPerReq = round2(float64((cpu1-cpu0)/time.Microsecond) / float64(f.Requests))
		}
		return &f, samples
	}
	var samples []load.Sample
	t.Edge, samples = run(h.cached)
	var first []load.Sample
	for _, s := range samples {
		if s.Tag <= 3 {
			first = append(first, s)
		}
	}
	fk := load.Summarize(first, 0, 0)
	t.FirstKeys = &fk
	if h.nocache != nil {
		t.Uncached, _ = run(h.nocache)
	}
	t.Ceiling, _ = run(ref.ceiling)
	if ref.nginx != nil {
		t.Nginx, _ = run(ref.nginx)
	}
	t.Seconds = p.typeSpan.Seconds()
	h.report.Typeahead = t

	// Throughput of the keystroke list (cycled, so mostly cache hits on the
	// cached edge after the first pass).
	file, err := h.writePaths("typeahead", paths)
	if err != nil {
		return err
	}
	g := &Group{Name: "typeahead (lookup)", Workload: "GET /api/v3/lookup?q=<prefix>&limit=10, the keystrokes above cycled by wrk",
		Conns: p.cardConns, Distinct: distinct(paths), RefBodyBytes: ref.size}
	h.report.Groups = append(h.report.Groups, g)
	return h.compare(ctx, g, file, h.targets(ref, auth, true))
}

func (h *harness) printTypeahead() {
	t := h.report.Typeahead
	if t == nil {
		return
	}
	w := h.out
	fmt.Fprintf(w, "\n-- typeahead: %d users typing card names (%.0f users/s, a keystroke every ~%.0f ms), %d keystrokes, open loop (latency from the scheduled time)\n",
		t.Users, t.UsersPerSec, t.IntervalMs, t.Keystrokes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tkeys/s\tp50 ms\txceil\txnginx\tp99 ms\txceil\txnginx\tp99.9 ms\tmax ms\terrors\t")
	row := func(name string, f *load.Figures) {
		if f == nil {
			return
		}
		rc := func(get func(*load.Figures) float64, ref *load.Figures) string {
			if ref == nil {
				return "-"
			}
			return f2(load.Ratio(get(f), get(ref)))
		}
		p50 := func(x *load.Figures) float64 { return x.P50Ms }
		p99 := func(x *load.Figures) float64 { return x.P99Ms }
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", name, f0(f.RPS), f2(f.P50Ms), rc(p50, t.Ceiling), rc(p50, t.Nginx),
			f2(f.P99Ms), rc(p99, t.Ceiling), rc(p99, t.Nginx), f2(f.P999Ms), f2(f.MaxMs), f.Errors)
	}
	row("cardedge cached", t.Edge)
	row("  first 3 keys", t.FirstKeys)
	row("cardedge uncached", t.Uncached)
	row("ceiling", t.Ceiling)
	row("nginx", t.Nginx)
	tw.Flush()
}
