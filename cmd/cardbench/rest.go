package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/valyala/fasthttp"
)

// target is one server of a comparison with the headers it is sent.
type target struct {
	name    string
	role    string // "edge", "ceiling" or "nginx"
	srv     *server
	headers []string
	rotate  []string // Authorization values, one per request line in turn
}

// warm fetches every distinct path of paths once from addr (4 at a time,
// bounded by the plan's warm limit): it fills the edge's cache, checks that
// every request is a 200, and returns the body of each path. Paths that do
// not answer 200 are returned in bad.
func (h *harness) warm(ctx context.Context, addr string, headers []string, paths []string) (bodies map[string][]byte, bad []badRequest, err error) {
	bodies, bad, _, err = h.warmTimed(ctx, addr, headers, paths)
	return bodies, bad, err
}

// warmTimed is warm that also returns the latency of each fetch (4 in
// flight: on a cold cache, the cost of an uncached request).
func (h *harness) warmTimed(ctx context.Context, addr string, headers []string, paths []string) (bodies map[string][]byte, bad []badRequest, lat map[string]time.Duration, err error) {
	uniq := slices.Clone(paths)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	bodies = make(map[string][]byte, len(uniq))
	lat = make(map[string]time.Duration, len(uniq))
	client := &fasthttp.HostClient{Addr: addr, MaxConns: 8, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(h.plan.warmLimit)
	var mu sync.Mutex
	work := make(chan string)
	var wg sync.WaitGroup
	var firstErr error
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for p := range work {
				req.Reset()
				req.SetRequestURI("http://" + addr + p)
				for i := 0; i+1 < len(headers); i += 2 {
					req.Header.Set(headers[i], headers[i+1])
				}
				t0 := time.Now()
				err := client.DoTimeout(req, resp, 30*time.Second)
				took := time.Since(t0)
				mu.Lock()
				lat[p] = took
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = fmt.Errorf("GET %s: %w", p, err)
					}
				case resp.StatusCode() != 200:
					bad = append(bad, badRequest{p, resp.StatusCode(), fmt.Sprintf("%.100s", resp.Body())})
				default:
					bodies[p] = append([]byte(nil), resp.Body()...)
				}
				mu.Unlock()
			}
		}()
	}
	sent := 0
	for _, p := range uniq {
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		work <- p
		sent++
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, nil, nil, firstErr
	}
	if sent < len(uniq) {
		h.logf("  warm-up bound (%s) reached: %d of %d distinct requests fetched", h.plan.warmLimit, sent, len(uniq))
	}
	return bodies, bad, lat, ctx.Err()
}

// badRequest is a request of a list that did not answer 200 in the warm-up.
type badRequest struct {
	path   string
	status int
	body   string
}

func (b badRequest) String() string { return fmt.Sprintf("%d %s: %s", b.status, b.path, b.body) }

// checked drops the paths that failed the warm-up and fails when more than
// 1% did (a harness or edge bug, not load).
func (h *harness) checked(what string, paths []string, bodies map[string][]byte, bad []badRequest) ([]string, error) {
	if len(bad) == 0 {
		return paths, nil
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i].path < bad[j].path })
	var eg []string
	drop := map[string]bool{}
	for i, b := range bad {
		drop[b.path] = true
		if i < 5 {
			eg = append(eg, b.String())
		}
	}
	if len(bad)*100 > len(bodies)+len(bad) {
		return nil, fmt.Errorf("%s: %d of %d distinct requests failed the warm-up: %s", what, len(bad), len(bodies)+len(bad), strings.Join(eg, " | "))
	}
	note := fmt.Sprintf("%s: %d distinct requests did not answer 200 and were left out of the list, e.g. %s", what, len(bad), strings.Join(eg[:min(3, len(eg))], " | "))
	h.report.Notes = append(h.report.Notes, note)
	h.logf("  %s", note)
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return drop[p] }), nil
}

// writePaths writes a request list for wrk.
func (h *harness) writePaths(name string, paths []string) (string, error) {
	f := filepath.Join(h.work, name+".paths")
	return f, os.WriteFile(f, []byte(strings.Join(paths, "\n")+"\n"), 0o644)
}

// medianBody returns the body whose size is the median of the list's
// responses (weighted by how often each request occurs).
func medianBody(paths []string, bodies map[string][]byte) []byte {
	var sizes []int
	for _, p := range paths {
		if b, ok := bodies[p]; ok {
			sizes = append(sizes, len(b))
		}
	}
	if len(sizes) == 0 {
		return nil
	}
	slices.Sort(sizes)
	return closestBody(bodies, float64(sizes[len(sizes)/2]))
}

// meanBody returns the body closest in size to the mean response size of
// the list (weighted by occurrence).
func meanBody(paths []string, bodies map[string][]byte) []byte {
	sum, n := 0, 0
	for _, p := range paths {
		if b, ok := bodies[p]; ok {
			sum += len(b)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return closestBody(bodies, float64(sum)/float64(n))
}

func closestBody(bodies map[string][]byte, size float64) []byte {
	var best []byte
	var bestPath string
	for p, b := range bodies {
		d, bd := math.Abs(float64(len(b))-size), math.Abs(float64(len(best))-size)
		if best == nil || d < bd || (d == bd && p < bestPath) {
			best, bestPath = b, p
		}
	}
	return best
}

// compare runs wrk against each target in interleaved rounds (round r
// starts with target r mod n, so drift of a shared machine spreads over all
// targets) and returns one result per target: the median of its rounds.
func (h *harness) compare(ctx context.Context, g *Group, pathsFile string, targets []target) error {
	return h.compareRounds(ctx, g, pathsFile, targets, h.plan.rounds, h.plan.round)
}

// compareRounds is compare with its own number and length of rounds.
func (h *harness) compareRounds(ctx context.Context, g *Group, pathsFile string, targets []target, rounds int, round time.Duration) error {
	g.Rounds, g.SecondsPerRound = rounds, round.Seconds()
	runs := make([][]load.Figures, len(targets))
	for r := 0; r < rounds; r++ {
		for k := range targets {
			i := (k + r) % len(targets)
			t := targets[i]
			var cached0 healthDoc
			if t.role == "edge" {
				cached0, _ = health(t.srv.addr)
			}
			cpu0, _ := cpuTime(t.srv.proc.Pid())
			w := load.WrkRun{Addr: t.srv.addr, PathsFile: pathsFile, Headers: t.headers, Conns: g.Conns,
				Duration: round, CPU: h.cfg.LoadCPU, Nice: h.cfg.Nice, Dir: h.work}
			if len(t.rotate) > 0 {
				w.RotateHeader, w.Rotate = "Authorization", t.rotate
			}
			f, err := w.Run(ctx)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", g.Name, t.name, err)
			}
			if cpu1, err := cpuTime(t.srv.proc.Pid()); err == nil {
				setServerCPU(&f, cpu0, cpu1)
			}
			if t.role == "edge" {
				if c1, err := health(t.srv.addr); err == nil {
					hits, misses := c1.Cache.Hits-cached0.Cache.Hits, c1.Cache.Misses-cached0.Cache.Misses
					if hits+misses > 0 {
						g.hitRatio(t.name, float64(hits)/float64(hits+misses))
					}
				}
			}
			runs[i] = append(runs[i], f)
		}
	}
	for i, t := range targets {
		g.Results = append(g.Results, &Result{Target: t.name, Role: t.role, Figures: median(runs[i]), Rounds: runs[i]})
	}
	g.ratios()
	return nil
}

// median combines rounds: medians of rates and percentiles, sums of counts,
// the largest maximum, CPU per request over all rounds.
func median(fs []load.Figures) load.Figures {
	if len(fs) == 1 {
		return fs[0]
	}
	med := func(get func(load.Figures) float64) float64 {
		v := make([]float64, len(fs))
		for i, f := range fs {
			v[i] = get(f)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	out := load.Figures{
		RPS:          med(func(f load.Figures) float64 { return f.RPS }),
		P50Ms:        med(func(f load.Figures) float64 { return f.P50Ms }),
		P99Ms:        med(func(f load.Figures) float64 { return f.P99Ms }),
		P999Ms:       med(func(f load.Figures) float64 { return f.P999Ms }),
		MeanMs:       med(func(f load.Figures) float64 { return f.MeanMs }),
		GenCPUPct:    med(func(f load.Figures) float64 { return f.GenCPUPct }),
		ServerCPUPct: med(func(f load.Figures) float64 { return f.ServerCPUPct }),
	}
	var cpu, user, bytes float64
	for _, f := range fs {
		out.Requests += f.Requests
		out.Errors += f.Errors
		out.Seconds += f.Seconds
		out.MaxMs = max(out.MaxMs, f.MaxMs)
		cpu += f.ServerCPUUsPerReq * float64(f.Requests)
		user += f.ServerUserUsPerReq * float64(f.Requests)
		bytes += f.BytesPerResponse * float64(f.Requests)
		for k, v := range f.ErrorKinds {
			if out.ErrorKinds == nil {
				out.ErrorKinds = map[string]int64{}
			}
			out.ErrorKinds[k] += v
		}
	}
	if out.Requests > 0 {
		out.ServerCPUUsPerReq = round2(cpu / float64(out.Requests))
		out.ServerUserUsPerReq = round2(user / float64(out.Requests))
		out.BytesPerResponse = bytes / float64(out.Requests)
	}
	return out
}

// runCardDetail: card detail (include=market_summary, Zipf cards), cached
// and uncached, against the ceiling and nginx serving a card-detail body of
// the median size, at 64 connections (issue 3's figures).
func (h *harness) runCardDetail(ctx context.Context) error {
	h.logf("card detail: cached and uncached vs ceiling and nginx at %d connections", h.plan.cardConns)
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	paths := h.cat.cardDetailPaths(h.plan.listLen, 1)
	bodies, bad, err := h.warm(ctx, h.cached.addr, auth, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("card detail", paths, bodies, bad); err != nil {
		return err
	}
	file, err := h.writePaths("carddetail", paths)
	if err != nil {
		return err
	}
	ref, err := h.startRefs(ctx, "carddetail", medianBody(paths, bodies))
	if err != nil {
		return err
	}
	defer h.stopRefs(ref)
	g := &Group{Name: "card detail", Workload: "GET /api/v3/cards/{id}?include=" + cardDetailInclude + ", Zipf cards, Elite unmetered key",
		Conns: h.plan.cardConns, Distinct: distinct(paths), RefBodyBytes: ref.size}
	h.report.Groups = append(h.report.Groups, g)
	return h.compareRounds(ctx, g, file, h.targets(ref, auth, true), h.plan.cardRounds, h.plan.cardRound)
}

// targets lists the cached edge, the uncached one (when wanted) and the
// references of ref, all sent the same headers.
func (h *harness) targets(ref *refs, headers []string, uncached bool) []target {
	ts := []target{{name: "cardedge cached", role: "edge", srv: h.cached, headers: headers}}
	if uncached && h.nocache != nil {
		ts = append(ts, target{name: "cardedge uncached", role: "edge", srv: h.nocache, headers: headers})
	}
	ts = append(ts, target{name: "ceiling", role: "ceiling", srv: ref.ceiling, headers: headers})
	if ref.nginx != nil {
		ts = append(ts, target{name: "nginx", role: "nginx", srv: ref.nginx, headers: headers})
	}
	return ts
}

func (h *harness) stopRefs(r *refs) {
	if r == nil {
		return
	}
	h.stopServer(r.ceiling)
	h.stopServer(r.nginx)
}

// runAccess: the access layer's cost on a cached hit (issue 4): the same
// card-detail requests with an unmetered Free key and without a key, on
// benchedge (the real edge whose access clock lets the Playground limit
// pass), both cached. Free and Playground have the same 3-day window, so
// both get the same bytes.
func (h *harness) runAccess(ctx context.Context) error {
	if h.benchE == nil {
		return fmt.Errorf("benchedge is not running")
	}
	h.logf("access layer: keyed (unmetered Free) vs keyless, cached card detail at %d connections", h.plan.cardConns)
	paths := h.cat.cardDetailPaths(h.plan.listLen, 1)
	keyed := []string{"Authorization", "Bearer " + h.freeKey}
	bodiesK, badK, err := h.warm(ctx, h.benchE.addr, keyed, paths)
	if err != nil {
		return err
	}
	bodiesN, badN, err := h.warm(ctx, h.benchE.addr, nil, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("access (keyed)", paths, bodiesK, badK); err != nil {
		return err
	}
	if paths, err = h.checked("access (keyless)", paths, bodiesN, badN); err != nil {
		return err
	}
	same := 0
	for p, b := range bodiesK {
		if string(bodiesN[p]) == string(b) {
			same++
		}
	}
	file, err := h.writePaths("access", paths)
	if err != nil {
		return err
	}
	g := &Group{Name: "access layer", Workload: "card detail on benchedge (cached): unmetered Free key vs no key",
		Conns: h.plan.cardConns, Distinct: distinct(paths),
		Note: fmt.Sprintf("%d of %d distinct responses byte-identical keyed and keyless", same, len(bodiesK))}
	h.report.Groups = append(h.report.Groups, g)
	err = h.compare(ctx, g, file, []target{
		{name: "keyed (Free, unmetered)", role: "edge", srv: h.benchE, headers: keyed},
		{name: "keyless (Playground)", role: "edge", srv: h.benchE},
	})
	if err != nil {
		return err
	}
	k, n := g.Results[0], g.Results[1]
	h.report.Access = &AccessFigure{
		KeyedRPS: k.RPS, KeylessRPS: n.RPS, Ratio: round3(load.Ratio(k.RPS, n.RPS)),
		KeyedCPUUs: k.ServerCPUUsPerReq, KeylessCPUUs: n.ServerCPUUsPerReq,
		CPURatio: round3(load.Ratio(n.ServerCPUUsPerReq, k.ServerCPUUsPerReq)), Target: 0.9,
		Method: "benchedge = the real edge with an access clock that advances 1 s per reading, so the Playground limit (1 req/s per address) admits the generator; same route, same cached bytes, same run, interleaved rounds",
	}
	h.stopServer(h.benchE)
	h.benchE = nil
	return nil
}

// runMix: the REST read mix, cached and uncached, at each connection count,
// against references serving a body of the mix's mean response size.
func (h *harness) runMix(ctx context.Context) error {
	h.logf("REST read mix: cached and uncached vs ceiling and nginx at %v connections", h.plan.conns)
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	paths := h.cat.mixPaths(h.plan.listLen, 1)
	bodies, bad, lat, err := h.warmTimed(ctx, h.cached.addr, auth, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("read mix", paths, bodies, bad); err != nil {
		return err
	}
	h.report.MixKinds = mixKinds(h.cat.kinds, lat, bodies)
	file, err := h.writePaths("mix", paths)
	if err != nil {
		return err
	}
	ref, err := h.startRefs(ctx, "mix", meanBody(paths, bodies))
	if err != nil {
		return err
	}
	defer h.stopRefs(ref)
	var weights []string
	for _, e := range mix {
		weights = append(weights, fmt.Sprintf("%s %d%%", e.name, e.weight))
	}
	for _, c := range h.plan.conns {
		g := &Group{Name: "read mix", Workload: "REST read mix, Zipf cards and sets, Elite unmetered key: " + strings.Join(weights, ", "),
			Conns: c, Distinct: distinct(paths), RefBodyBytes: ref.size}
		h.report.Groups = append(h.report.Groups, g)
		if err := h.compare(ctx, g, file, h.targets(ref, auth, true)); err != nil {
			return err
		}
	}
	return nil
}

func distinct(paths []string) int {
	m := map[string]struct{}{}
	for _, p := range paths {
		m[p] = struct{}{}
	}
	return len(m)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// MixKind is the cost of one kind of request of the read mix, from the
// warm-up pass over a cold cache (each distinct request once, 4 in flight).
type MixKind struct {
	Kind      string  `json:"kind"`
	Weight    int     `json:"weight_pct"`
	Distinct  int     `json:"distinct"`
	P50Ms     float64 `json:"uncached_p50_ms"`
	P99Ms     float64 `json:"uncached_p99_ms"`
	MeanBytes float64 `json:"mean_bytes"`
}

func mixKinds(kinds map[string]string, lat map[string]time.Duration, bodies map[string][]byte) []MixKind {
	by := map[string]*load.Latencies{}
	size := map[string]int{}
	for p, d := range lat {
		k, ok := kinds[p]
		if !ok {
			continue
		}
		if by[k] == nil {
			by[k] = &load.Latencies{}
		}
		by[k].Add(d)
		size[k] += len(bodies[p])
	}
	var out []MixKind
	for _, e := range mix {
		l := by[e.name]
		if l == nil {
			continue
		}
		out = append(out, MixKind{Kind: e.name, Weight: e.weight, Distinct: l.Len(), P50Ms: round2(l.Percentile(50)), P99Ms: round2(l.Percentile(99)),
			MeanBytes: math.Round(float64(size[e.name]) / float64(l.Len()))})
	}
	return out
}
