package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/bench/queries"
)

// SearchFigs is #25's HTTP search figure: GET /api/v3/search with plain
// words and with the search syntax's terms, each offered at the same fixed
// rate over the same connections, open loop, to the uncached edge (every
// request runs the search and renders its cards), in interleaved rounds
// (plain first in even rounds, syntax first in odd ones).
type SearchFigs struct {
	Preset          string        `json:"preset"`
	Conns           int           `json:"conns"`
	OfferedRPS      float64       `json:"offered_rps"`
	Rounds          int           `json:"rounds"`
	SecondsPerRound float64       `json:"seconds_per_round"`
	Workload        string        `json:"workload"`
	Kinds           []*SearchKind `json:"kinds"`
}

// SearchKind is one kind of query: the medians of its rounds (Result; RPS
// is the achieved rate, latencies count from each request's scheduled
// time) and its percentiles over every request of every round (Pooled).
// Ceiling is the reference of issue 35: bin/ceiling serving the kind's
// median response body on the same schedule, in the same rounds (nil when
// it did not run).
type SearchKind struct {
	Kind     string       `json:"kind"`
	Requests int          `json:"requests"`
	Distinct int          `json:"distinct_requests"`
	Examples []string     `json:"examples"`
	Result   *Result      `json:"result"`
	Pooled   load.Figures `json:"pooled"`
	Ceiling  *Result      `json:"ceiling,omitempty"`
	RefBytes int          `json:"ref_body_bytes,omitempty"`
}

// Issue 35's search targets on the default snapshot: p99 within 3 ms and
// CPU per search halved from the 1.1 ms the issue measured before.
const (
	searchP99TargetMs = 3
	searchCPUBeforeUs = 1100
	searchCPUTargetUs = searchCPUBeforeUs / 2
)

// The two kinds of the search workload.
const (
	searchPlain  = "plain words"
	searchSyntax = "syntax terms"
)

// searchPaths draws n search requests of each kind from the catalog
// (package queries: the in-process benchmarks' drawers), limit 25.
func (c *catalog) searchPaths(n int) map[string][]string {
	path := func(q queries.Query) string {
		return "/api/v3/search?q=" + url.QueryEscape(q.Q) + "&limit=25" + c.gameQuery(q.Game, false)
	}
	out := map[string][]string{}
	for _, q := range queries.Plain(c.sets, c.cards, n, 43) {
		out[searchPlain] = append(out[searchPlain], path(q))
	}
	for _, q := range queries.Syntax(c.cards, n, 44) {
		out[searchSyntax] = append(out[searchSyntax], path(q))
	}
	return out
}

// runSearch: #25's search figures, plain words against syntax terms on the
// uncached edge at plan.searchRate.
func (h *harness) runSearch(ctx context.Context) error {
	if h.nocache == nil {
		return fmt.Errorf("the uncached edge is not running")
	}
	p := h.plan
	perRound := int(p.searchRate * p.searchRound.Seconds())
	drawn := h.cat.searchPaths(perRound * p.searchRounds)
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	sf := &SearchFigs{Preset: h.cfg.Preset, Conns: p.searchConns, OfferedRPS: p.searchRate, Rounds: p.searchRounds, SecondsPerRound: p.searchRound.Seconds(),
		Workload: "GET /api/v3/search?q=<query>&limit=25 on the uncached edge, Elite unmetered key, one request every " +
			time.Duration(float64(time.Second)/p.searchRate).String() + ", open loop; plain words: whole card names, first words, name and number, set names, typos; " +
			"syntax terms: a:\"artist\" name, t:type hp>=N [legal:format], attack:\"name\", name -set:code, r:\"rarity\" is:printing, (t:fire or t:water or t:grass) hp>=N -t:ex, c:color cost=N power>=N, t:\"type\" counter>=1000, name is:alternate-art"}
	shots := map[string][][]load.Shot{}
	ceilings := map[string]*refs{}
	defer func() {
		for _, r := range ceilings {
			h.stopRefs(r)
		}
	}()
	step := time.Duration(float64(time.Second) / p.searchRate)
	for _, kind := range []string{searchPlain, searchSyntax} {
		paths := drawn[kind]
		if len(paths) < perRound*p.searchRounds {
			return fmt.Errorf("%s: the catalog gives %d queries, want %d", kind, len(paths), perRound*p.searchRounds)
		}
		// The warm-up fetches each distinct request once on the uncached
		// edge: it checks every one answers 200 and brings the index's
		// pages into memory, as a serving edge has them.
		bodies, bad, err := h.warm(ctx, h.nocache.addr, auth, paths)
		if err != nil {
			return err
		}
		if paths, err = h.checked("search, "+kind, paths, bodies, bad); err != nil {
			return err
		}
		// The reference: the ceiling serving this kind's median body.
		ref, err := h.startRefs(ctx, "search-"+strings.ReplaceAll(kind, " ", "-"), medianBody(paths, bodies))
		if err != nil {
			return err
		}
		h.stopServer(ref.nginx) // the ceiling alone keeps the budget
		ref.nginx = nil
		ceilings[kind] = ref
		k := &SearchKind{Kind: kind, Requests: len(paths), Distinct: distinct(paths), RefBytes: ref.size}
		for _, path := range paths[:min(4, len(paths))] {
			q, _ := url.ParseQuery(strings.SplitN(path, "?", 2)[1])
			k.Examples = append(k.Examples, q.Get("q"))
		}
		sf.Kinds = append(sf.Kinds, k)
		for len(paths) > 0 {
			n := min(perRound, len(paths))
			round := make([]load.Shot, n)
			for i, path := range paths[:n] {
				round[i] = load.Shot{At: time.Duration(i) * step, Path: path, Headers: auth}
			}
			shots[kind], paths = append(shots[kind], round), paths[n:]
		}
	}
	h.logf("search: %d plain-word and %d syntax-term requests at %.0f/s over %d connections to the uncached edge, open loop, %d interleaved rounds of %s per kind",
		sf.Kinds[0].Requests, sf.Kinds[1].Requests, p.searchRate, p.searchConns, p.searchRounds, p.searchRound)
	// Each round runs every kind on the edge and on its ceiling, in an
	// order that turns with the round (edge and ceiling of one kind
	// adjacent), so that a stall of the machine lands on one run.
	n := len(sf.Kinds)
	runs, samples, refRuns := make([][]load.Figures, n), make([][]load.Sample, n), make([][]load.Figures, n)
	for r := 0; r < p.searchRounds; r++ {
		for j := range 2 * n {
			i, ceiling := (j/2+r)%n, (j+r)%2 == 1
			k := sf.Kinds[i]
			if r >= len(shots[k.Kind]) {
				continue
			}
			srv := h.nocache
			if ceiling {
				srv = ceilings[k.Kind].ceiling
			}
			cpu0, _ := cpuTime(srv.proc.Pid())
			s := load.OpenLoop{Addr: srv.addr, MaxConns: p.searchConns, Timeout: 5 * time.Second, Grace: 10 * time.Second}.Run(ctx, shots[k.Kind][r])
			if err := ctx.Err(); err != nil {
				return err
			}
			f := openLoopFigures(s)
			if cpu1, err := cpuTime(srv.proc.Pid()); err == nil {
				setServerCPU(&f, cpu0, cpu1)
			}
			if ceiling {
				refRuns[i] = append(refRuns[i], f)
				continue
			}
			runs[i], samples[i] = append(runs[i], f), append(samples[i], s...)
		}
	}
	for i, k := range sf.Kinds {
		if len(runs[i]) == 0 {
			continue
		}
		k.Result = &Result{Target: "cardedge uncached, " + k.Kind, Role: "edge", Figures: median(runs[i]), Rounds: runs[i]}
		k.Pooled = load.Summarize(samples[i], 0, 0)
		k.Pooled.RPS, k.Pooled.Seconds = k.Result.RPS, 0 // rounds restart their clock: no span over all of them
		if len(refRuns[i]) > 0 {
			k.Ceiling = &Result{Target: "ceiling, " + k.Kind, Role: "ceiling", Figures: median(refRuns[i]), Rounds: refRuns[i]}
		}
	}
	h.report.Search = sf
	return nil
}

// kind returns the figures of one kind (nil when it did not run).
func (sf *SearchFigs) kind(name string) *SearchKind {
	for _, k := range sf.Kinds {
		if k.Kind == name && k.Result != nil {
			return k
		}
	}
	return nil
}

// checks are #25's and issue 35's targets: on the default snapshot,
// search p99 within 3 ms (issue 35; #25 asked 10) and the CPU per search
// at most half the 1.1 ms issue 35 measured, with and without syntax
// terms, each beside the ceiling serving the kind's median body on the
// same schedule; on every snapshot (#25 names the large one), p99 with
// terms within 2x of p99 with plain words. A kind that did not keep up
// with the offered rate (achieved below 99%, or errors) misses its target
// whatever its latency.
func (sf *SearchFigs) checks() []Check {
	plain, syn := sf.kind(searchPlain), sf.kind(searchSyntax)
	if plain == nil || syn == nil {
		return nil
	}
	kept := func(k *SearchKind) bool { return k.Result.RPS >= 0.99*sf.OfferedRPS && k.Result.Errors == 0 }
	ceiling := func(k *SearchKind, f func(*Result) float64, unit string) string {
		if k.Ceiling == nil {
			return ""
		}
		return fmt.Sprintf("; the ceiling serving the median body (%d B) on the same schedule: %.2f %s", k.RefBytes, f(k.Ceiling), unit)
	}
	also := func(k *SearchKind) string {
		return fmt.Sprintf("median of %d rounds; offered %s/s, achieved %s/s, %d errors, %d connections; every request: p99 %.2f ms",
			sf.Rounds, f0(sf.OfferedRPS), f0(k.Result.RPS), k.Result.Errors, sf.Conns, k.Pooled.P99Ms) +
			ceiling(k, func(r *Result) float64 { return r.P99Ms }, "ms")
	}
	var cs []Check
	if sf.Preset == "default" {
		for _, k := range []*SearchKind{plain, syn} {
			cs = append(cs, Check{Name: "HTTP search p99, " + k.Kind + ", uncached edge", Want: fmt.Sprintf("<= %d", searchP99TargetMs), Unit: "ms", Got: k.Result.P99Ms,
				OK: k.Result.P99Ms <= searchP99TargetMs && kept(k), Also: also(k)})
		}
		for _, k := range []*SearchKind{plain, syn} {
			cpu := k.Result.ServerCPUUsPerReq
			cs = append(cs, Check{Name: "HTTP search CPU per request, " + k.Kind + ", uncached edge", Want: fmt.Sprintf("<= %d (half of %d)", searchCPUTargetUs, searchCPUBeforeUs), Unit: "us",
				Got: round2(cpu), OK: cpu > 0 && cpu <= searchCPUTargetUs && kept(k),
				Also: fmt.Sprintf("user %.0f us", k.Result.ServerUserUsPerReq) + ceiling(k, func(r *Result) float64 { return r.ServerCPUUsPerReq }, "us")})
		}
	}
	r := round3(load.Ratio(syn.Result.P99Ms, plain.Result.P99Ms))
	cs = append(cs, Check{Name: "HTTP search p99, syntax terms / plain words (" + sf.Preset + ")", Want: "<= 2", Got: r, OK: r <= 2 && kept(syn) && kept(plain),
		Also: fmt.Sprintf("%.2f ms / %.2f ms; CPU per request %.0f / %.0f us", syn.Result.P99Ms, plain.Result.P99Ms, syn.Result.ServerCPUUsPerReq, plain.Result.ServerCPUUsPerReq)})
	return cs
}

func (h *harness) printSearch() {
	sf := h.report.Search
	if sf == nil {
		return
	}
	w := h.out
	fmt.Fprintf(w, "\n-- HTTP search (%s snapshot): plain words vs syntax terms, each offered at %s/s over %d connections to the uncached edge, open loop (latency from the scheduled time), %d interleaved rounds of %.0fs per kind, each beside the ceiling serving the kind's median body on the same schedule (medians of rounds; \"all\": every request of every round)\n",
		sf.Preset, f0(sf.OfferedRPS), sf.Conns, sf.Rounds, sf.SecondsPerRound)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tdistinct\tachieved/s\tp50 ms\tp99 ms\tp99.9 ms\tall: p50\tp99\tmax ms\terrors\tcpu us/req\tuser us\tsrv cpu%\tbytes/resp\t")
	for _, k := range sf.Kinds {
		x := k.Result
		if x == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%.0f\t%s\t\n", k.Kind, k.Distinct, f0(x.RPS), f2(x.P50Ms), f2(x.P99Ms), f2(x.P999Ms),
			f2(k.Pooled.P50Ms), f2(k.Pooled.P99Ms), f2(k.Pooled.MaxMs), x.Errors, f2(x.ServerCPUUsPerReq), f2(x.ServerUserUsPerReq), x.ServerCPUPct, f0(x.BytesPerResponse))
		if c := k.Ceiling; c != nil {
			fmt.Fprintf(tw, "  ceiling, same schedule\t-\t%s\t%s\t%s\t%s\t-\t-\t%s\t%d\t%s\t%s\t%.0f\t%s\t\n", f0(c.RPS), f2(c.P50Ms), f2(c.P99Ms), f2(c.P999Ms),
				f2(c.MaxMs), c.Errors, f2(c.ServerCPUUsPerReq), f2(c.ServerUserUsPerReq), c.ServerCPUPct, f0(c.BytesPerResponse))
		}
	}
	tw.Flush()
	for _, k := range sf.Kinds {
		fmt.Fprintf(w, "   %s, e.g. %s\n", k.Kind, strings.Join(quoteAll(k.Examples), ", "))
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}
