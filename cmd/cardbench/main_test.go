package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

func TestParseFlags(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c, err := ParseFlags([]string{"--mode", "quick", "--only", "mix, swap"}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if c.Preset != "tiny" || !c.Only["mix"] || !c.Only["swap"] || c.Only["build"] || !filepath.IsAbs(c.Snapshots) ||
			!strings.HasSuffix(c.Snapshots, filepath.Join("var", "bench", "tiny")) {
			t.Errorf("config %+v", c)
		}
		c, err = ParseFlags(nil, io.Discard)
		if err != nil || c.Mode != "full" || c.Preset != "default" || len(c.Only) != len(workloads) {
			t.Errorf("defaults: %+v, %v", c, err)
		}
		if p := planFor(c); p.budget >= 15*time.Minute || p.rounds < 1 {
			t.Errorf("full plan %+v", p)
		}
		if p := planFor(Config{Mode: "quick"}); p.budget >= 2*time.Minute {
			t.Errorf("quick budget %s", p.budget)
		}
	})
	t.Run("ErrBad", func(t *testing.T) {
		for _, args := range [][]string{{"--mode", "slow"}, {"--only", "nope"}, {"--edge-cpu", "0"}, {"extra"}} {
			if _, err := ParseFlags(args, io.Discard); err == nil {
				t.Errorf("%v: want an error", args)
			}
		}
	})
}

func TestMedian(t *testing.T) {
	fs := []load.Figures{
		{Requests: 100, RPS: 10, P99Ms: 5, MaxMs: 9, ServerCPUUsPerReq: 10, ServerUserUsPerReq: 4, BytesPerResponse: 100},
		{Requests: 300, RPS: 30, P99Ms: 1, MaxMs: 3, ServerCPUUsPerReq: 20, ServerUserUsPerReq: 6, Errors: 1, ErrorKinds: map[string]int64{"read": 1}},
		{Requests: 200, RPS: 20, P99Ms: 3, MaxMs: 4, ServerCPUUsPerReq: 30, ServerUserUsPerReq: 9},
	}
	m := median(fs)
	if m.RPS != 20 || m.P99Ms != 3 || m.MaxMs != 9 || m.Requests != 600 || m.Errors != 1 || m.ErrorKinds["read"] != 1 {
		t.Errorf("median %+v", m)
	}
	if want := round2((100*10 + 300*20 + 200*30) / 600.0); m.ServerCPUUsPerReq != want {
		t.Errorf("cpu per request %v, want %v", m.ServerCPUUsPerReq, want)
	}
	if want := round2((100*4 + 300*6 + 200*9) / 600.0); m.ServerUserUsPerReq != want {
		t.Errorf("user cpu per request %v, want %v", m.ServerUserUsPerReq, want)
	}
}

func TestSetServerCPU(t *testing.T) {
	f := load.Figures{Requests: 1000, Seconds: 2}
	setServerCPU(&f, procCPU{User: time.Second, System: 2 * time.Second}, procCPU{User: 1500 * time.Millisecond, System: 3 * time.Second})
	if f.ServerCPUUsPerReq != 1500 || f.ServerUserUsPerReq != 500 || f.ServerCPUPct != 75 {
		t.Errorf("figures %+v, want 1500 us/req, 500 us/req user, 75%%", f)
	}
	idle := load.Figures{Seconds: 2} // no request: nothing to divide by
	setServerCPU(&idle, procCPU{}, procCPU{User: time.Second})
	if idle.ServerCPUUsPerReq != 0 || idle.ServerUserUsPerReq != 0 || idle.ServerCPUPct != 0 {
		t.Errorf("idle figures %+v, want zeros", idle)
	}
	self, err := cpuTime(os.Getpid())
	if err != nil || self.User < 0 || self.System < 0 || self.Total() != self.User+self.System {
		t.Errorf("cpuTime(self) = %+v, %v", self, err)
	}
}

func TestGroup_Ratios(t *testing.T) {
	g := &Group{Results: []*Result{
		{Target: "cardedge cached", Role: "edge", Figures: load.Figures{RPS: 90, P99Ms: 2, ServerCPUUsPerReq: 10}},
		{Target: "ceiling", Role: "ceiling", Figures: load.Figures{RPS: 100, P99Ms: 1, ServerCPUUsPerReq: 8}},
		{Target: "nginx", Role: "nginx", Figures: load.Figures{RPS: 80, P99Ms: 1, ServerCPUUsPerReq: 9}},
	}}
	g.ratios()
	r := g.Results[0]
	if r.VsCeiling.RPS != 0.9 || r.VsCeiling.P99 != 2 || r.VsCeiling.CPUEfficiency != 0.8 || r.VsNginx.RPS != 1.125 {
		t.Errorf("ratios %+v %+v", r.VsCeiling, r.VsNginx)
	}
	if g.Results[1].VsNginx == nil || g.Results[1].VsCeiling != nil {
		t.Errorf("ceiling ratios %+v %+v", g.Results[1].VsCeiling, g.Results[1].VsNginx)
	}
}

// TestGroup_Ratios_Rounds: the round-by-round spread pairs round r of the
// target with round r of the reference, not the best with the best.
func TestGroup_Ratios_Rounds(t *testing.T) {
	rounds := func(rps ...float64) []load.Figures {
		fs := make([]load.Figures, len(rps))
		for i, x := range rps {
			fs[i].RPS = x
		}
		return fs
	}
	g := &Group{Results: []*Result{
		{Target: "cardedge cached", Role: "edge", Figures: load.Figures{RPS: 80}, Rounds: rounds(60, 80, 90)},
		{Target: "ceiling", Role: "ceiling", Figures: load.Figures{RPS: 100}, Rounds: rounds(100, 80, 120)},
	}}
	g.ratios()
	if c := g.Results[0].VsCeiling; c.RPSRoundMin != 0.6 || c.RPSRoundMax != 1 {
		t.Errorf("round spread %v-%v, want 0.6-1", c.RPSRoundMin, c.RPSRoundMax)
	}
	var out strings.Builder
	g.writeTable(&out)
	if !strings.Contains(out.String(), "round by round (lowest-highest): cardedge cached 0.60-1.00") {
		t.Errorf("table without the spread:\n%s", out.String())
	}
}

func TestSSEData(t *testing.T) {
	in := "event: message\ndata: {\"a\":\ndata: 1}\n\nevent: message\ndata: {\"id\":2}\n\n"
	if got := string(sseData([]byte(in))); got != `{"id":2}` {
		t.Errorf("got %q", got)
	}
}

func TestNginxConf(t *testing.T) {
	c := nginxConf("/w/ref", "127.0.0.1:1234")
	for _, want := range []string{"listen 127.0.0.1:1234;", "root /w/ref;", "try_files /body.json =404;", "master_process off;", "client_body_temp_path /w/ref/tmp;"} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %q", want)
		}
	}
}

// TestWorkloads_Answer checks that every request the workloads generate
// answers 200 on a real edge over a tiny snapshot, so a route or parameter
// change shows up in make test, not in the middle of a benchmark.
func TestWorkloads_Answer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a tiny snapshot")
	}
	root := snapshotstest.MustBuild(t)
	cat, err := readCatalog(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.cards) < 100 || len(cat.sets) == 0 || len(cat.names) == 0 || cat.cards[0].SalesAll < cat.cards[len(cat.cards)-1].SalesAll {
		t.Fatalf("catalog: %d cards, %d sets, %d names", len(cat.cards), len(cat.sets), len(cat.names))
	}
	state := filepath.Join(t.TempDir(), "state.bolt")
	store := statetest.MustOpenPath(t, state, statebolt.Options{})
	secret, _, err := access.Keys{State: store}.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "bench test", Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.Open(access.Options{State: store})
	if err != nil {
		t.Fatal(err)
	}
	defer acc.Close()
	l, err := live.Open(root, live.Options{Derive: []live.Derivation{edge.Derivation(), pokemontcg.Derivation(pokemontcg.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srv, err := edge.New(edge.Options{Snapshots: l, Access: acc, Collections: collection.New(collection.Options{State: store}),
		CacheBytes: 8 << 20, CursorSecret: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	addr := ln.Addr().String()
	auth := []string{"Authorization", "Bearer " + secret}

	var paths []string
	paths = append(paths, cat.cardDetailPaths(300, 1)...)
	paths = append(paths, cat.mixPaths(1500, 1)...)
	for _, k := range cat.typing(20, time.Second, 100*time.Millisecond, 6, 1) {
		paths = append(paths, k.path)
	}
	search := cat.searchPaths(300)
	if len(search[searchPlain]) != 300 || len(search[searchSyntax]) != 300 {
		t.Errorf("search: %d plain, %d syntax requests, want 300 each", len(search[searchPlain]), len(search[searchSyntax]))
	}
	paths = append(paths, search[searchPlain]...)
	paths = append(paths, search[searchSyntax]...)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	failed := 0
	for _, p := range paths {
		st, body, err := load.Get(addr, p, auth, 10*time.Second)
		if err != nil || st != 200 {
			failed++
			if failed <= 5 {
				t.Errorf("GET %s: %d %v %.200s", p, st, err, body)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d requests failed", failed, len(paths))
	}
	// Every kind of the read mix is generated.
	kinds := map[string]bool{}
	for _, p := range cat.mixPaths(3000, 2) {
		path, _, _ := strings.Cut(p, "?")
		parts := strings.Split(path, "/")
		kinds[parts[3]+"/"+parts[len(parts)-1]] = true
	}
	if len(kinds) < 10 {
		t.Errorf("read mix covers only %v", kinds)
	}
	// MCP, when mounted, opens a session.
	st, _, err := load.Do(addr, "POST", "/api/v3/mcp/", append(auth, "Content-Type", "application/json", "Accept", "application/json, text/event-stream"), mcpInitialize(1), 10*time.Second)
	t.Logf("MCP initialize: %d %v", st, err)
}
