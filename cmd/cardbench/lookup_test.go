package main

import (
	"testing"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

func TestOpenLoopFigures(t *testing.T) {
	ms := time.Millisecond
	samples := []load.Sample{
		{At: 0, Lat: ms, Status: 200},
		{At: 250 * ms, Lat: 2 * ms, Status: 200},
		{At: 500 * ms, Lat: 3 * ms, Status: 500},
		{At: 750 * ms, Lat: 250 * ms, Status: 200}, // the last answer at 1 s
	}
	f := openLoopFigures(samples)
	if f.Requests != 4 || f.Errors != 1 || f.Seconds != 1 || f.RPS != 3 {
		t.Errorf("figures %+v: want 4 requests, 1 error, 3 answers over 1 s", f)
	}
}

func TestLookupFigs_Check(t *testing.T) {
	fig := func(rps, p99 float64, errs int64) *LookupFigs {
		return &LookupFigs{OfferedRPS: 5000, Conns: 64, Results: []*Result{
			{Target: "cardedge uncached", Role: "edge", Figures: load.Figures{RPS: rps, P99Ms: p99, Errors: errs}},
			{Target: "ceiling", Role: "ceiling", Figures: load.Figures{RPS: 5000, P99Ms: 1}},
		}}
	}
	for _, tc := range []struct {
		name string
		lf   *LookupFigs
		ok   bool
	}{
		{"OK", fig(4998, 0.9, 0), true},
		{"ErrSlow", fig(5000, 1.2, 0), false},
		{"ErrBehind", fig(4800, 0.9, 0), false},
		{"ErrErrors", fig(5000, 0.9, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, found := tc.lf.check()
			if !found || c.OK != tc.ok {
				t.Errorf("check %+v (found %v), want ok %v", c, found, tc.ok)
			}
		})
	}
}

func TestSearchFigs_Checks(t *testing.T) {
	kind := func(name string, rps, p99 float64, errs int64) *SearchKind {
		return &SearchKind{Kind: name, Result: &Result{Figures: load.Figures{RPS: rps, P99Ms: p99, Errors: errs, ServerCPUUsPerReq: 500}}}
	}
	costly := func(k *SearchKind) *SearchKind { k.Result.ServerCPUUsPerReq = 600; return k }
	figs := func(preset string, plain, syn *SearchKind) *SearchFigs {
		return &SearchFigs{Preset: preset, OfferedRPS: 300, Kinds: []*SearchKind{plain, syn}}
	}
	for _, tc := range []struct {
		name string
		sf   *SearchFigs
		ok   []bool // default: p99 plain, syntax <= 3 ms; CPU plain, syntax <= 550 us; then syntax / plain <= 2
	}{
		{"OK", figs("default", kind(searchPlain, 300, 1.5, 0), kind(searchSyntax, 299, 2.5, 0)), []bool{true, true, true, true, true}},
		{"ErrSlowSyntax", figs("default", kind(searchPlain, 300, 1.5, 0), kind(searchSyntax, 300, 3.5, 0)), []bool{true, false, true, true, false}},
		{"ErrCostlyPlain", figs("default", costly(kind(searchPlain, 300, 1.5, 0)), kind(searchSyntax, 300, 2, 0)), []bool{true, true, false, true, true}},
		{"ErrBehind", figs("default", kind(searchPlain, 250, 1, 0), kind(searchSyntax, 300, 1, 0)), []bool{false, true, false, true, false}},
		{"ErrErrors", figs("default", kind(searchPlain, 300, 1, 0), kind(searchSyntax, 300, 1, 2)), []bool{true, false, true, false, false}},
		{"LargeOK", figs("large", kind(searchPlain, 300, 12, 0), kind(searchSyntax, 300, 20, 0)), []bool{true}},
		{"ErrLarge", figs("large", kind(searchPlain, 300, 5, 0), kind(searchSyntax, 300, 11, 0)), []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.sf.checks()
			if len(cs) != len(tc.ok) {
				t.Fatalf("%d checks, want %d: %+v", len(cs), len(tc.ok), cs)
			}
			for i, c := range cs {
				if c.OK != tc.ok[i] {
					t.Errorf("check %q ok %v, want %v (%+v)", c.Name, c.OK, tc.ok[i], c)
				}
			}
		})
	}
	if cs := (&SearchFigs{Kinds: []*SearchKind{{Kind: searchPlain}}}).checks(); cs != nil {
		t.Errorf("checks without figures: %+v", cs)
	}
}
