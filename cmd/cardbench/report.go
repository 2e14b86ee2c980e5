package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

// Report is the JSON report of one run.
type Report struct {
	Tool         string         `json:"tool"`
	Mode         string         `json:"mode"`
	Started      string         `json:"started"`
	Finished     string         `json:"finished"`
	WallSeconds  float64        `json:"wall_seconds"`
	Commit       string         `json:"commit"`
	Dirty        bool           `json:"dirty"`
	Machine      Machine        `json:"machine"`
	Pinning      string         `json:"pinning"`
	Generators   string         `json:"generators"`
	Snapshot     *SnapshotInfo  `json:"snapshot,omitempty"`
	Groups       []*Group       `json:"groups"`
	MixKinds     []MixKind      `json:"mix_kinds,omitempty"`
	Access       *AccessFigure  `json:"access,omitempty"`
	Shared       *SharedFigs    `json:"shared,omitempty"`
	Typeahead    *TypeaheadFigs `json:"typeahead,omitempty"`
	Lookup       *LookupFigs    `json:"lookup,omitempty"`
	Search       *SearchFigs    `json:"search,omitempty"`
	MCP          *MCPFigs       `json:"mcp,omitempty"`
	Swap         *SwapFigs      `json:"swap,omitempty"`
	Pull         *PullFigs      `json:"pull,omitempty"`
	Builds       []BuildFigure  `json:"builds,omitempty"`
	Checks       []Check        `json:"checks"`
	NotAvailable []string       `json:"not_available,omitempty"`
	Skipped      []string       `json:"skipped,omitempty"`
	Failures     []string       `json:"failures,omitempty"`
	Notes        []string       `json:"notes,omitempty"`
}

// SnapshotInfo is the snapshot the edges served.
type SnapshotInfo struct {
	Root            string           `json:"root"`
	ID              string           `json:"id"`
	Preset          string           `json:"preset"`
	AsOf            string           `json:"as_of"`
	Seed            int64            `json:"seed"`
	Counts          map[string]int64 `json:"counts"`
	BuildSeconds    float64          `json:"build_seconds"`
	Reused          bool             `json:"reused"`
	BuiltNowSeconds float64          `json:"built_now_seconds,omitempty"`
}

// Group is one throughput comparison: targets under the same request list
// and connection count, interleaved.
type Group struct {
	Name            string             `json:"name"`
	Workload        string             `json:"workload"`
	Conns           int                `json:"conns"`
	Distinct        int                `json:"distinct_requests"`
	RefBodyBytes    int                `json:"ref_body_bytes,omitempty"`
	Rounds          int                `json:"rounds"`
	SecondsPerRound float64            `json:"seconds_per_round"`
	CacheHitRatio   map[string]float64 `json:"cache_hit_ratio,omitempty"`
	Note            string             `json:"note,omitempty"`
	Results         []*Result          `json:"results"`
}

// Result is one target's figures (medians of its rounds) and its ratios to
// the references of the group.
type Result struct {
	Target string `json:"target"`
	Role   string `json:"role"`
	load.Figures
	VsCeiling *Ratios        `json:"vs_ceiling,omitempty"`
	VsNginx   *Ratios        `json:"vs_nginx,omitempty"`
	Rounds    []load.Figures `json:"rounds"`
}

// Ratios compare a target with a reference: RPS is target/reference
// (higher is better), latencies target/reference (lower is better),
// CPUEfficiency reference CPU per request / target CPU per request (like
// RPS, but much less disturbed by other work on the machine).
type Ratios struct {
	RPS           float64 `json:"rps"`
	P50           float64 `json:"p50"`
	P99           float64 `json:"p99"`
	P999          float64 `json:"p999"`
	CPUEfficiency float64 `json:"cpu_efficiency"`
	// RPSRoundMin and RPSRoundMax are the lowest and highest req/s ratio of
	// one round (the target's round r against the reference's round r, run
	// next to it): the spread the medians above hide.
	RPSRoundMin float64 `json:"rps_round_min,omitempty"`
	RPSRoundMax float64 `json:"rps_round_max,omitempty"`
}

func ratiosOf(t, ref *Result) *Ratios {
	if ref == nil {
		return nil
	}
	r := &Ratios{
		RPS: round3(load.Ratio(t.RPS, ref.RPS)), P50: round3(load.Ratio(t.P50Ms, ref.P50Ms)),
		P99: round3(load.Ratio(t.P99Ms, ref.P99Ms)), P999: round3(load.Ratio(t.P999Ms, ref.P999Ms)),
		CPUEfficiency: round3(load.Ratio(ref.ServerCPUUsPerReq, t.ServerCPUUsPerReq)),
	}
	if len(t.Rounds) > 1 && len(t.Rounds) == len(ref.Rounds) {
		for i, f := range t.Rounds {
			x := round3(load.Ratio(f.RPS, ref.Rounds[i].RPS))
			if i == 0 || x < r.RPSRoundMin {
				r.RPSRoundMin = x
			}
			r.RPSRoundMax = max(r.RPSRoundMax, x)
		}
	}
	return r
}

func (g *Group) ref(role string) *Result {
	for _, r := range g.Results {
		if r.Role == role {
			return r
		}
	}
	return nil
}

func (g *Group) ratios() {
	c, n := g.ref("ceiling"), g.ref("nginx")
	for _, r := range g.Results {
		if r.Role == "ceiling" {
			r.VsNginx = ratiosOf(r, n)
			continue
		}
		if r.Role != "edge" {
			continue
		}
		r.VsCeiling, r.VsNginx = ratiosOf(r, c), ratiosOf(r, n)
	}
}

// hitRatio keeps the lowest cache hit ratio a target had over the rounds.
func (g *Group) hitRatio(target string, r float64) {
	if g.CacheHitRatio == nil {
		g.CacheHitRatio = map[string]float64{}
	}
	if old, ok := g.CacheHitRatio[target]; !ok || r < old {
		g.CacheHitRatio[target] = round3(r)
	}
}

func (g *Group) result(target string) *Result {
	for _, r := range g.Results {
		if r.Target == target {
			return r
		}
	}
	return nil
}

// AccessFigure is issue 4's figure: keyed vs keyless cached hits.
type AccessFigure struct {
	KeyedRPS     float64 `json:"keyed_rps"`
	KeylessRPS   float64 `json:"keyless_rps"`
	Ratio        float64 `json:"ratio"`
	KeyedCPUUs   float64 `json:"keyed_cpu_us_per_req"`
	KeylessCPUUs float64 `json:"keyless_cpu_us_per_req"`
	CPURatio     float64 `json:"cpu_ratio"`
	Target       float64 `json:"target"`
	Method       string  `json:"method"`
}

// BuildFigure is one nightly build.
type BuildFigure struct {
	Preset      string  `json:"preset"`
	WallSeconds float64 `json:"wall_seconds"`
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
	SizeMiB     float64 `json:"size_mib"`
	Cards       int64   `json:"cards"`
	Sales       int64   `json:"sales"`
	Note        string  `json:"note,omitempty"`
}

// Check is one target of the issues with the figure of this run.
type Check struct {
	Name string  `json:"name"`
	Want string  `json:"want"`
	Got  float64 `json:"got"`
	Unit string  `json:"unit,omitempty"`
	OK   bool    `json:"ok"`
	Also string  `json:"also,omitempty"`
}

// boundNote says when a group's servers did not use their CPU (other work
// on the machine, not the server, set the pace).
func boundNote(g *Group, targets ...string) string {
	var low []string
	for _, t := range targets {
		if r := g.result(t); r != nil && r.ServerCPUPct > 0 && r.ServerCPUPct < 80 {
			low = append(low, fmt.Sprintf("%s %.0f%%", t, r.ServerCPUPct))
		}
	}
	if len(low) == 0 {
		return ""
	}
	return "; NOT server-bound (" + strings.Join(low, ", ") + " of its CPU): read the CPU ratio"
}

func (h *harness) checks() []Check {
	var cs []Check
	for _, g := range h.report.Groups {
		if g.Name != "card detail" {
			continue
		}
		note := boundNote(g, "cardedge cached", "cardedge uncached", "ceiling", "nginx")
		if r := g.result("cardedge cached"); r != nil && r.VsCeiling != nil {
			cs = append(cs, Check{Name: "cached card detail / ceiling (req/s, 64 conns)", Want: ">= 0.9", Got: r.VsCeiling.RPS, OK: r.VsCeiling.RPS >= 0.9,
				Also: fmt.Sprintf("CPU efficiency %.2f", r.VsCeiling.CPUEfficiency) + note})
			if r.VsNginx != nil {
				cs = append(cs, Check{Name: "cached card detail / nginx (req/s, 64 conns)", Want: ">= 1", Got: r.VsNginx.RPS, OK: r.VsNginx.RPS >= 1,
					Also: fmt.Sprintf("CPU efficiency %.2f", r.VsNginx.CPUEfficiency) + note})
			}
		}
		if r := g.result("cardedge uncached"); r != nil && r.VsCeiling != nil {
			cs = append(cs, Check{Name: "uncached card detail / ceiling (req/s, 64 conns)", Want: ">= 0.65", Got: r.VsCeiling.RPS, OK: r.VsCeiling.RPS >= 0.65,
				Also: fmt.Sprintf("CPU efficiency %.2f", r.VsCeiling.CPUEfficiency) + note})
		}
	}
	if a := h.report.Access; a != nil {
		cs = append(cs, Check{Name: "access layer: keyed / keyless cached (req/s)", Want: ">= 0.9", Got: a.Ratio, OK: a.Ratio >= 0.9,
			Also: fmt.Sprintf("CPU ratio %.2f", a.CPURatio)})
	}
	if s := h.report.Shared; s != nil {
		cs = append(cs, Check{Name: "shared state: edge CPU per keyed cached read, Redis / state file - 1", Want: "<= 0.2", Got: s.Overhead, OK: s.Overhead <= 0.2,
			Also: fmt.Sprintf("%.2f vs %.2f us; redis-server %.2f us per charge, %.1f charges per round trip", s.RedisCPUUs, s.LocalCPUUs, s.ServerCPUUsPerCharge, s.ChargesPerRoundTrip)})
		if m := s.Many; m != nil {
			cs = append(cs, Check{Name: fmt.Sprintf("shared state, %d keys within their limits: edge CPU per keyed cached read, Redis / state file - 1", m.Keys), Want: "<= 0.2", Got: m.Overhead, OK: m.Overhead <= 0.2,
				Also: fmt.Sprintf("%.2f vs %.2f us; redis-server %.2f us per charge, %.1f charges per round trip", m.RedisCPUUs, m.LocalCPUUs, m.ServerCPUUsPerCharge, m.ChargesPerRoundTrip)})
		}
	}
	if t := h.report.Typeahead; t != nil && t.Edge != nil {
		cs = append(cs, Check{Name: "typeahead p99 per keystroke (cached edge)", Want: "<= 5", Unit: "ms", Got: t.Edge.P99Ms, OK: t.Edge.P99Ms <= 5,
			Also: t.also()})
	}
	if lf := h.report.Lookup; lf != nil {
		if c, ok := lf.check(); ok {
			cs = append(cs, c)
		}
	}
	if sf := h.report.Search; sf != nil {
		cs = append(cs, sf.checks()...)
	}
	if m := h.report.MCP; m != nil && m.Quote1 != nil {
		also := fmt.Sprintf("p99 %.2f ms", m.Quote1.P99Ms)
		if f := m.ByCall["quote ids=1"]; f != nil {
			also += fmt.Sprintf("; among the mixed workload's %d agents p50 %.2f ms", m.Agents, f.P50Ms)
		}
		cs = append(cs, Check{Name: fmt.Sprintf("MCP quote of 1 id, p50, %d agents", m.QuoteAgents), Want: "<= 1", Unit: "ms", Got: m.Quote1.P50Ms,
			OK: m.Quote1.P50Ms <= 1, Also: also})
	}
	if s := h.report.Swap; s != nil {
		cs = append(cs, Check{Name: "failed requests during the swap", Want: "0", Got: float64(s.Failed), OK: s.Failed == 0 && s.SwapSeen})
	}
	if p := h.report.Pull; p != nil && p.Requests > 0 {
		cs = append(cs, Check{Name: "failed requests during a swap from S3", Want: "0", Got: float64(p.Failed), OK: p.Failed == 0})
		cs = append(cs, Check{Name: "p99 during a swap from S3 / before", Want: "<= 2", Got: p.BumpP99, OK: p.BumpP99 <= 2,
			Also: fmt.Sprintf("%.2f vs %.2f ms; paced fetch %.1f s/GiB, first fetch %.1f s/GiB", p.Swap.P99Ms, p.Before.P99Ms, p.PacedFetchSecPerGiB, p.FirstFetchSecPerGiB)})
	}
	return cs
}

func (h *harness) writeReport() (string, error) {
	h.report.Checks = h.checks()
	b, err := json.MarshalIndent(h.report, "", "  ")
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("cardbench-%s-%s.json", h.cfg.Mode, h.started.UTC().Format("20060102T150405Z"))
	path := filepath.Join(h.cfg.Out, name)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	_ = os.WriteFile(filepath.Join(h.cfg.Out, "latest-"+h.cfg.Mode+".json"), append(b, '\n'), 0o644)
	return path, nil
}

func f0(x float64) string {
	if x == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.0f", x)
	// thousands separators
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(out)
}

func f2(x float64) string {
	if x == 0 {
		return "-"
	}
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	if x >= 10 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func ratio(r *Ratios, get func(*Ratios) float64) string {
	if r == nil {
		return "-"
	}
	return f2(get(r))
}

// hitRatios formats cache hit ratios by target, in target order.
func hitRatios(byTarget map[string]float64) string {
	var hs []string
	for _, k := range slices.Sorted(maps.Keys(byTarget)) {
		hs = append(hs, fmt.Sprintf("%s %.3f", k, byTarget[k]))
	}
	return strings.Join(hs, ", ")
}

// writeTable prints the group's table: every target's figures and ratios,
// then the lowest cache hit ratio, the round-by-round spread and the note.
func (g *Group) writeTable(w io.Writer) {
	fmt.Fprintf(w, "\n-- %s, %d connections (%d rounds x %.0fs, %d distinct requests", g.Name, g.Conns, g.Rounds, g.SecondsPerRound, g.Distinct)
	if g.RefBodyBytes > 0 {
		fmt.Fprintf(w, ", reference body %d B", g.RefBodyBytes)
	}
	fmt.Fprintln(w, ")")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\treq/s\txceil\txnginx\tp50 ms\txceil\tp99 ms\txceil\tp99.9 ms\terrors\tcpu us/req\tuser us\tcpu xceil\tcpu xnginx\tsrv cpu%\tgen cpu%\t")
	for _, x := range g.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t\n", x.Target, f0(x.RPS),
			ratio(x.VsCeiling, func(r *Ratios) float64 { return r.RPS }), ratio(x.VsNginx, func(r *Ratios) float64 { return r.RPS }),
			f2(x.P50Ms), ratio(x.VsCeiling, func(r *Ratios) float64 { return r.P50 }),
			f2(x.P99Ms), ratio(x.VsCeiling, func(r *Ratios) float64 { return r.P99 }),
			f2(x.P999Ms), x.Errors, f2(x.ServerCPUUsPerReq), f2(x.ServerUserUsPerReq), ratio(x.VsCeiling, func(r *Ratios) float64 { return r.CPUEfficiency }),
			ratio(x.VsNginx, func(r *Ratios) float64 { return r.CPUEfficiency }), x.ServerCPUPct, x.GenCPUPct)
	}
	tw.Flush()
	if len(g.CacheHitRatio) > 0 {
		fmt.Fprintf(w, "   cache hit ratio (lowest round): %s\n", hitRatios(g.CacheHitRatio))
	}
	var spread []string
	for _, x := range g.Results {
		if c := x.VsCeiling; c != nil && c.RPSRoundMax > 0 {
			spread = append(spread, fmt.Sprintf("%s %.2f-%.2f", x.Target, c.RPSRoundMin, c.RPSRoundMax))
		}
	}
	if len(spread) > 0 {
		fmt.Fprintf(w, "   req/s x ceiling round by round (lowest-highest): %s\n", strings.Join(spread, ", "))
	}
	if g.Note != "" {
		fmt.Fprintf(w, "   %s\n", g.Note)
	}
}

// printTable prints every figure of the run.
func (h *harness) printTable() {
	r := h.report
	w := h.out
	fmt.Fprintf(w, "\n==== cardbench %s: commit %.12s%s, %s, %d CPUs, load average %s at start, %s at end\n", r.Mode, r.Commit,
		map[bool]string{true: " (dirty)"}[r.Dirty], r.Machine.CPUModel, r.Machine.CPUs, r.Machine.LoadAvgStart, r.Machine.LoadAvgEnd)
	fmt.Fprintf(w, "pinning: %s\n", r.Pinning)
	fmt.Fprintf(w, "generators: %s\n", r.Generators)
	if s := r.Snapshot; s != nil {
		fmt.Fprintf(w, "snapshot: %s (%s, %d cards, %d sales)\n", s.ID, s.Preset, s.Counts["cards"], s.Counts["sales"])
	}
	for _, g := range r.Groups {
		g.writeTable(w)
	}
	low, runs := 0, 0
	for _, g := range r.Groups {
		for _, x := range g.Results {
			for _, f := range x.Rounds {
				runs++
				if f.ServerCPUPct > 0 && f.ServerCPUPct < 80 {
					low++
				}
			}
		}
	}
	if low > 0 {
		fmt.Fprintf(w, "\nWARNING: in %d of %d wrk runs the server used less than 80%% of its CPU: other work on the machine (load average %s) set the pace, not the server. "+
			"Their req/s and latency ratios say little; the CPU-per-request ratios (cpu xceil, cpu xnginx) hold up much better.\n", low, runs, r.Machine.LoadAvgStart)
	}
	if len(r.MixKinds) > 0 {
		fmt.Fprintln(w, "\n-- read mix by kind: uncached cost from the warm-up pass (each distinct request once on a cold cache, 4 in flight)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "kind\tweight %\tdistinct\tp50 ms\tp99 ms\tmean bytes\t")
		for _, k := range r.MixKinds {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%.0f\t\n", k.Kind, k.Weight, k.Distinct, f2(k.P50Ms), f2(k.P99Ms), k.MeanBytes)
		}
		tw.Flush()
	}
	if a := r.Access; a != nil {
		fmt.Fprintf(w, "\n-- access layer on a cached hit: keyed %s req/s vs keyless %s req/s = %.3f (target >= %.1f); CPU per request %.2f vs %.2f us = %.3f\n",
			f0(a.KeyedRPS), f0(a.KeylessRPS), a.Ratio, a.Target, a.KeyedCPUUs, a.KeylessCPUUs, a.CPURatio)
	}
	h.printShared()
	h.printTypeahead()
	h.printLookup()
	h.printSearch()
	h.printMCP()
	h.printSwap()
	h.printPull()
	if len(r.Builds) > 0 {
		fmt.Fprintln(w, "\n-- nightly build")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "preset\twall s\tpeak RSS MiB\tsize MiB\tcards\tsales\t")
		for _, b := range r.Builds {
			fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%.0f\t%d\t%d\t\n", b.Preset, b.WallSeconds, b.PeakRSSMiB, b.SizeMiB, b.Cards, b.Sales)
		}
		tw.Flush()
		for _, b := range r.Builds {
			if b.Note != "" {
				fmt.Fprintf(w, "   %s: %s\n", b.Preset, b.Note)
			}
		}
	}
	if len(r.Checks) == 0 {
		r.Checks = h.checks()
	}
	if len(r.Checks) > 0 {
		fmt.Fprintln(w, "\n-- targets of the issues")
		for _, c := range r.Checks {
			mark := "MISS"
			if c.OK {
				mark = "ok"
			}
			also := ""
			if c.Also != "" {
				also = " (" + c.Also + ")"
			}
			fmt.Fprintf(w, "  %-4s %-52s %s %s, want %s%s\n", mark, c.Name, f2v(c.Got), c.Unit, c.Want, also)
		}
	}
	for _, s := range r.NotAvailable {
		fmt.Fprintf(w, "NOT AVAILABLE %s\n", s)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "SKIPPED %s\n", s)
	}
	for _, s := range r.Notes {
		fmt.Fprintf(w, "NOTE %s\n", s)
	}
	for _, s := range r.Failures {
		fmt.Fprintf(w, "FAILED %s\n", s)
	}
	fmt.Fprintf(w, "wall %s\n", time.Duration(r.WallSeconds*float64(time.Second)).Round(time.Second))
}

func f2v(x float64) string {
	if x == 0 {
		return "0"
	}
	return f2(x)
}
