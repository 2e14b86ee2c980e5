package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

// TypeaheadFigs are the keystroke figures: the same open-loop schedules of
// users typing card names against each target, in interleaved rounds (each
// round new users, the same for every target). The figures of a target are
// the medians of its rounds; Pooled has the percentiles of every keystroke.
type TypeaheadFigs struct {
	Users       int           `json:"users"`
	Keystrokes  int           `json:"keystrokes"`
	UsersPerSec float64       `json:"users_per_sec"`
	IntervalMs  float64       `json:"keystroke_interval_ms"`
	Seconds     float64       `json:"seconds"` // users arrive over this span (all rounds)
	Rounds      int           `json:"rounds"`
	Edge        *load.Figures `json:"edge_cached,omitempty"`
	Uncached    *load.Figures `json:"edge_uncached,omitempty"`
	Ceiling     *load.Figures `json:"ceiling,omitempty"`
	Nginx       *load.Figures `json:"nginx,omitempty"`
	// FirstKeys are the cached edge's figures of the first three keystrokes
	// of each user (the widest prefixes).
	FirstKeys    *load.Figures           `json:"edge_cached_first_3_keys,omitempty"`
	Pooled       map[string]load.Figures `json:"pooled"`
	RefBodyBytes int                     `json:"ref_body_bytes"`
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
	rounds := max(p.typeRounds, 1)
	span := p.typeSpan / time.Duration(rounds)
	var keys [][]keystroke
	var paths []string
	n := 0
	for r := range rounds {
		ks := h.cat.typing(p.typeUsersPerSec, span, p.typeInterval, p.typeMaxChars, uint64(1+r))
		keys = append(keys, ks)
		for _, k := range ks {
			paths = append(paths, k.path)
		}
		n += len(ks)
	}
	users := rounds * int(p.typeUsersPerSec*span.Seconds())
	h.logf("typeahead: %d users typing card names (%d keystrokes), open loop, %d interleaved rounds of users arriving over %s", users, n, rounds, span)
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	// Warm-up fetches each distinct prefix once (and checks it) on the
	// uncached edge: the cached edge meets the first round with a cold
	// cache, as a real keystroke stream meets a new snapshot.
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
	t := &TypeaheadFigs{Users: users, Keystrokes: n, UsersPerSec: p.typeUsersPerSec, IntervalMs: float64(p.typeInterval.Milliseconds()),
		Seconds: p.typeSpan.Seconds(), Rounds: rounds, RefBodyBytes: ref.size, Pooled: map[string]load.Figures{}}
	targets := []target{{name: "cardedge cached", role: "edge", srv: h.cached}, {name: "cardedge uncached", role: "edge", srv: h.nocache},
		{name: "ceiling", role: "ceiling", srv: ref.ceiling}, {name: "nginx", role: "nginx", srv: ref.nginx}}
	var schedules [][]load.Shot
	for _, ks := range keys {
		shots := make([]load.Shot, 0, len(ks))
		for _, k := range ks {
			shots = append(shots, load.Shot{At: k.at, Path: k.path, Headers: auth, Tag: k.n})
		}
		schedules = append(schedules, shots)
	}
	res, err := h.openLoopRounds(ctx, targets, schedules, 256, func(s []load.Sample) load.Figures { return load.Summarize(s, 0, 0) }, nil)
	if err != nil {
		return err
	}
	fig := func(i int) *load.Figures {
		if len(res[i].runs) == 0 {
			return nil
		}
		f := median(res[i].runs)
		t.Pooled[targets[i].name] = load.Summarize(res[i].all(), 0, 0)
		return &f
	}
	t.Edge, t.Uncached, t.Ceiling, t.Nginx = fig(0), fig(1), fig(2), fig(3)
	var firstRuns []load.Figures
	var firstAll []load.Sample
	for _, samples := range res[0].samples { // the cached edge's first three keystrokes of each user
		var first []load.Sample
		for _, x := range samples {
			if x.Tag <= 3 {
				first = append(first, x)
			}
		}
		firstRuns, firstAll = append(firstRuns, load.Summarize(first, 0, 0)), append(firstAll, first...)
	}
	if len(firstRuns) > 0 {
		fk := median(firstRuns)
		t.FirstKeys = &fk
		t.Pooled["cardedge cached, first 3 keys"] = load.Summarize(firstAll, 0, 0)
	}
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
	fmt.Fprintf(w, "\n-- typeahead: %d users typing card names (%.0f users/s, a keystroke every ~%.0f ms), %d keystrokes, open loop (latency from the scheduled time), %d interleaved rounds (medians of rounds; \"all\": every keystroke)\n",
		t.Users, t.UsersPerSec, t.IntervalMs, t.Keystrokes, t.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tkeys/s\tp50 ms\txceil\txnginx\tp99 ms\txceil\txnginx\tp99.9 ms\tall: p99\tp99.9\tmax ms\terrors\t")
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
		key := strings.TrimSpace(name)
		if key == "first 3 keys" {
			key = "cardedge cached, first 3 keys"
		}
		all := t.Pooled[key]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", name, f0(f.RPS), f2(f.P50Ms), rc(p50, t.Ceiling), rc(p50, t.Nginx),
			f2(f.P99Ms), rc(p99, t.Ceiling), rc(p99, t.Nginx), f2(f.P999Ms), f2(all.P99Ms), f2(all.P999Ms), f2(all.MaxMs), f.Errors)
	}
	row("cardedge cached", t.Edge)
	row("  first 3 keys", t.FirstKeys)
	row("cardedge uncached", t.Uncached)
	row("ceiling", t.Ceiling)
	row("nginx", t.Nginx)
	tw.Flush()
}

// LookupFigs is issue 5's HTTP lookup figure: typeahead prefixes at a fixed
// rate over a fixed number of connections, open loop, against the uncached
// edge (every request runs the handler), the cached edge (cold at the
// start), and the ceiling and nginx serving a lookup body of the median
// size on the same schedule.
type LookupFigs struct {
	Conns        int     `json:"conns"`
	OfferedRPS   float64 `json:"offered_rps"`
	Seconds      float64 `json:"seconds"` // per target, all rounds
	Rounds       int     `json:"rounds"`
	Requests     int     `json:"requests"`
	Distinct     int     `json:"distinct_requests"`
	RefBodyBytes int     `json:"ref_body_bytes"`
	// Results are the medians of the interleaved rounds (as the wrk groups
	// report theirs); Figures.RPS is the achieved rate (200 answers per
	// second from the first scheduled request to the last answer of a
	// round); latencies count from each request's scheduled time.
	Results []*Result `json:"results"`
	// Pooled are each target's percentiles over every request of every
	// round: a stall of the machine during one round shows here in full.
	Pooled        map[string]load.Figures `json:"pooled"`
	CacheHitRatio map[string]float64      `json:"cache_hit_ratio,omitempty"`
	Workload      string                  `json:"workload"`
}

// lookupPrefixes draws n lookup requests the way index's and bench's
// in-process latency tests draw their prefixes: 70% card names (a tenth
// of them card ids), 30% set names, uniformly, cut after 1-6 characters
// and lower-cased.
func (c *catalog) lookupPrefixes(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 4))
	out := make([]string, 0, n)
	for len(out) < n {
		var s, game string
		switch x := r.IntN(10); {
		case x < 7:
			k := c.cards[r.IntN(len(c.cards))]
			s, game = k.Name, k.Game
			if x == 0 {
				s = k.ID
			}
		default:
			set := c.sets[r.IntN(len(c.sets))]
			s, game = set.Name, set.Game
		}
		runes := []rune(strings.ToLower(s))
		k := min(1+r.IntN(6), len(runes))
		if k == 0 || strings.TrimSpace(string(runes[:k])) == "" {
			continue
		}
		out = append(out, "/api/v3/lookup?q="+url.QueryEscape(string(runes[:k]))+"&limit=10"+c.gameQuery(game, false))
	}
	return out
}

// runLookup: issue 5's HTTP lookup at a fixed rate (open loop over
// plan.lookupConns connections) for each target in turn.
func (h *harness) runLookup(ctx context.Context) error {
	if !h.lookupOK {
		h.logf("lookup: not run (GET /api/v3/lookup did not answer its probe, see below)")
		return nil
	}
	p := h.plan
	perRound := int(p.lookupRate * p.lookupRound.Seconds())
	paths := h.cat.lookupPrefixes(perRound*p.lookupRounds, 5)
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	bodies, bad, err := h.warm(ctx, h.nocache.addr, auth, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("lookup", paths, bodies, bad); err != nil {
		return err
	}
	ref, err := h.startRefs(ctx, "lookup-rate", medianBody(paths, bodies))
	if err != nil {
		return err
	}
	defer h.stopRefs(ref)
	lf := &LookupFigs{Conns: p.lookupConns, OfferedRPS: p.lookupRate, Seconds: p.lookupRound.Seconds() * float64(p.lookupRounds),
		Rounds: p.lookupRounds, Requests: len(paths), Distinct: distinct(paths), RefBodyBytes: ref.size, Pooled: map[string]load.Figures{},
		Workload: "GET /api/v3/lookup?q=<1-6 characters of a card name, card id or set name>&limit=10, Elite unmetered key, one request every " +
			time.Duration(float64(time.Second)/p.lookupRate).String() + ", open loop"}
	h.logf("lookup: %d requests (%d distinct prefixes) at %.0f/s over %d connections, open loop, %d interleaved rounds of %s per target",
		len(paths), lf.Distinct, p.lookupRate, p.lookupConns, p.lookupRounds, p.lookupRound)
	step := time.Duration(float64(time.Second) / p.lookupRate)
	var rounds [][]load.Shot
	for len(paths) > 0 {
		n := min(perRound, len(paths))
		shots := make([]load.Shot, n)
		for i, path := range paths[:n] {
			shots[i] = load.Shot{At: time.Duration(i) * step, Path: path, Headers: auth}
		}
		rounds, paths = append(rounds, shots), paths[n:]
	}
	targets := []target{{name: "cardedge uncached", role: "edge", srv: h.nocache}, {name: "cardedge cached", role: "edge", srv: h.cached},
		{name: "ceiling", role: "ceiling", srv: ref.ceiling}, {name: "nginx", role: "nginx", srv: ref.nginx}}
	g := &Group{}
	res, err := h.openLoopRounds(ctx, targets, rounds, p.lookupConns, openLoopFigures, g)
	if err != nil {
		return err
	}
	for i, t := range targets {
		if len(res[i].runs) == 0 {
			continue
		}
		r := &Result{Target: t.name, Role: t.role, Figures: median(res[i].runs), Rounds: res[i].runs}
		g.Results = append(g.Results, r)
		pooled := load.Summarize(res[i].all(), 0, 0)
		pooled.RPS, pooled.Seconds = r.RPS, 0 // rounds restart their clock: no span over all of them
		lf.Pooled[t.name] = pooled
	}
	g.ratios()
	lf.Results, lf.CacheHitRatio = g.Results, g.CacheHitRatio
	h.report.Lookup = lf
	return nil
}

// roundsResult is one target's open-loop rounds: the figures of each round
// and its samples.
type roundsResult struct {
	runs    []load.Figures
	samples [][]load.Sample
}

func (r roundsResult) all() []load.Sample {
	var out []load.Sample
	for _, s := range r.samples {
		out = append(out, s...)
	}
	return out
}

// openLoopRounds sends each round's shots to every target (those without a
// server are left out) over at most conns connections, interleaved: round r
// starts with target r mod n, so that a stall of the shared machine lands
// on one target's round and the medians of rounds see it once. Each round's
// figures come from summarize, with the server's CPU per request and use;
// with g, the edges' cache hit ratios go to g.
func (h *harness) openLoopRounds(ctx context.Context, targets []target, rounds [][]load.Shot, conns int,
	summarize func([]load.Sample) load.Figures, g *Group) ([]roundsResult, error) {
	res := make([]roundsResult, len(targets))
	for r, shots := range rounds {
		for k := range targets {
			i := (k + r) % len(targets)
			t := targets[i]
			if t.srv == nil {
				continue
			}
			var c0 healthDoc
			if t.role == "edge" && g != nil {
				c0, _ = health(t.srv.addr)
			}
			cpu0, _ := cpuTime(t.srv.proc.Pid())
			ol := load.OpenLoop{Addr: t.srv.addr, MaxConns: conns, Timeout: 5 * time.Second, Grace: 10 * time.Second}
			samples := ol.Run(ctx, shots)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			f := summarize(samples)
			if cpu1, err := cpuTime(t.srv.proc.Pid()); err == nil {
				setServerCPU(&f, cpu0, cpu1)
			}
			if t.role == "edge" && g != nil {
				if c1, err := health(t.srv.addr); err == nil {
					if hits, misses := c1.Cache.Hits-c0.Cache.Hits, c1.Cache.Misses-c0.Cache.Misses; hits+misses > 0 {
						g.hitRatio(t.name, float64(hits)/float64(hits+misses))
					}
				}
			}
			res[i].runs = append(res[i].runs, f)
			res[i].samples = append(res[i].samples, samples)
		}
	}
	return res, nil
}

// openLoopFigures summarizes an open-loop run whose shots were spread
// evenly: the latency percentiles of every shot (from its scheduled time)
// and, as RPS, the achieved rate: 200 answers per second from the first
// scheduled shot to the last answer. Seconds is that span.
func openLoopFigures(samples []load.Sample) load.Figures {
	f := load.Summarize(samples, 0, 0)
	if len(samples) == 0 {
		return f
	}
	first, last := samples[0].At, time.Duration(0)
	ok := 0
	for _, s := range samples {
		first = min(first, s.At)
		last = max(last, s.At+s.Lat)
		if s.OK() {
			ok++
		}
	}
	if span := last - first; span > 0 {
		f.Seconds = round2(span.Seconds())
		f.RPS = round2(float64(ok) / span.Seconds())
	}
	return f
}

func (h *harness) printLookup() {
	lf := h.report.Lookup
	if lf == nil {
		return
	}
	w := h.out
	fmt.Fprintf(w, "\n-- HTTP lookup: %d requests (%d distinct prefixes of 1-6 characters) offered at %s/s over %d connections, open loop (latency from the scheduled time), %d interleaved rounds of %.0fs per target (medians of rounds; \"all\": every request of every round), reference body %d B\n",
		lf.Requests, lf.Distinct, f0(lf.OfferedRPS), lf.Conns, lf.Rounds, lf.Seconds/float64(max(lf.Rounds, 1)), lf.RefBodyBytes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tachieved/s\tp50 ms\txceil\txnginx\tp99 ms\txceil\txnginx\tp99.9 ms\tall: p99\tp99.9\tmax ms\terrors\tcpu us/req\tcpu xceil\tcpu xnginx\tsrv cpu%\t")
	for _, x := range lf.Results {
		all := lf.Pooled[x.Target]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%.0f\t\n", x.Target, f0(x.RPS),
			f2(x.P50Ms), ratio(x.VsCeiling, func(r *Ratios) float64 { return r.P50 }), ratio(x.VsNginx, func(r *Ratios) float64 { return r.P50 }),
			f2(x.P99Ms), ratio(x.VsCeiling, func(r *Ratios) float64 { return r.P99 }), ratio(x.VsNginx, func(r *Ratios) float64 { return r.P99 }),
			f2(x.P999Ms), f2(all.P99Ms), f2(all.P999Ms), f2(x.MaxMs), x.Errors, f2(x.ServerCPUUsPerReq),
			ratio(x.VsCeiling, func(r *Ratios) float64 { return r.CPUEfficiency }), ratio(x.VsNginx, func(r *Ratios) float64 { return r.CPUEfficiency }),
			x.ServerCPUPct)
	}
	tw.Flush()
	if len(lf.CacheHitRatio) > 0 {
		fmt.Fprintf(w, "   cache hit ratio: %s; cpu xceil/xnginx = reference CPU per request / target's (higher is better)\n", hitRatios(lf.CacheHitRatio))
	}
}

// check is the HTTP lookup target: the uncached edge's p99 at the offered
// rate within 1 ms (issue 35; issue 5 asked 5 ms), beside the ceiling's
// on the same schedule; the edge must have kept up with the rate
// (achieved within 1% of offered, no errors).
func (lf *LookupFigs) check() (Check, bool) {
	for _, r := range lf.Results {
		if r.Target != "cardedge uncached" {
			continue
		}
		kept := r.RPS >= 0.99*lf.OfferedRPS && r.Errors == 0
		also := fmt.Sprintf("median of %d rounds; offered %s/s, achieved %s/s, %d errors, %d connections; every request: p99 %.2f ms",
			lf.Rounds, f0(lf.OfferedRPS), f0(r.RPS), r.Errors, lf.Conns, lf.Pooled[r.Target].P99Ms)
		if r.VsCeiling != nil {
			also += fmt.Sprintf("; p99 %.2fx the ceiling's; CPU per request %.1f us, %.2fx the ceiling's", r.VsCeiling.P99, r.ServerCPUUsPerReq,
				load.Ratio(r.ServerCPUUsPerReq, lf.ref("ceiling")))
		}
		return Check{Name: "HTTP lookup p99, uncached edge, >= 5,000 req/s", Want: fmt.Sprintf("<= %g", lookupP99TargetMs), Unit: "ms", Got: r.P99Ms,
			OK: r.P99Ms <= lookupP99TargetMs && kept && lf.OfferedRPS >= 5000, Also: also}, true
	}
	return Check{}, false
}

// lookupP99TargetMs is issue 35's HTTP lookup target (distinct prefixes at
// 5,000 req/s).
const lookupP99TargetMs = 1.0

// ref returns the CPU per request of a reference target (0 when absent).
func (lf *LookupFigs) ref(role string) float64 {
	for _, r := range lf.Results {
		if r.Role == role {
			return r.ServerCPUUsPerReq
		}
	}
	return 0
}

// also is the typing check's context: p99 against the references of the
// same schedule, and the uncached edge's p99.
func (t *TypeaheadFigs) also() string {
	var parts []string
	if t.Ceiling != nil {
		parts = append(parts, fmt.Sprintf("%.2fx the ceiling's %.2f ms", load.Ratio(t.Edge.P99Ms, t.Ceiling.P99Ms), t.Ceiling.P99Ms))
	}
	if t.Nginx != nil {
		parts = append(parts, fmt.Sprintf("%.2fx nginx's %.2f ms", load.Ratio(t.Edge.P99Ms, t.Nginx.P99Ms), t.Nginx.P99Ms))
	}
	if t.Uncached != nil {
		parts = append(parts, fmt.Sprintf("uncached edge %.2f ms", t.Uncached.P99Ms))
	}
	parts = append(parts, fmt.Sprintf("median of %d rounds, every keystroke: p99 %.2f ms", t.Rounds, t.Pooled["cardedge cached"].P99Ms),
		fmt.Sprintf("%d keystrokes", t.Keystrokes))
	return strings.Join(parts, "; ")
}
