package load

import (
	"context"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

func TestZipf_Rank(t *testing.T) {
	z := NewZipf(1000, 1.0)
	r := rand.New(rand.NewPCG(1, 2))
	counts := make([]int, 1000)
	const n = 200000
	for i := 0; i < n; i++ {
		counts[z.Rank(r)]++
	}
	// P(rank 0) = 1/H(1000) ~ 0.1336; rank 1 about half of it.
	if p := float64(counts[0]) / n; p < 0.125 || p > 0.142 {
		t.Errorf("P(rank 0) = %.4f, want ~0.134", p)
	}
	if r := float64(counts[0]) / float64(counts[1]); r < 1.8 || r > 2.2 {
		t.Errorf("rank 0 / rank 1 = %.2f, want ~2", r)
	}
	if one := NewZipf(1, 1).Rank(r); one != 0 {
		t.Errorf("one rank: got %d", one)
	}
}

func TestLatencies_Percentile(t *testing.T) {
	var l Latencies
	if l.Percentile(99) != 0 {
		t.Fatal("empty: want 0")
	}
	for i := 100; i >= 1; i-- {
		l.Add(time.Duration(i) * time.Millisecond)
	}
	for _, c := range []struct{ p, want float64 }{{50, 50}, {99, 99}, {99.9, 100}, {100, 100}, {1, 1}} {
		if got := l.Percentile(c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	var f Figures
	l.Fill(&f)
	if f.MeanMs != 50.5 || f.MaxMs != 100 {
		t.Errorf("mean %v max %v", f.MeanMs, f.MaxMs)
	}
}

func TestParseWrk(t *testing.T) {
	out := "Running 2s test @ http://127.0.0.1:1/\n" + wrkMarker +
		`{"requests":1000,"duration_us":2000000,"bytes":2000000,"connect":0,"read":1,"write":0,"status":2,"timeout":0,"p50_us":500,"p99_us":2500,"p999_us":4000,"max_us":9000,"mean_us":600.5}` + "\n"
	f, err := parseWrk([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if f.RPS != 500 || f.P50Ms != 0.5 || f.P99Ms != 2.5 || f.P999Ms != 4 || f.Errors != 3 || f.ErrorKinds["status"] != 2 || f.BytesPerResponse != 2000 {
		t.Errorf("got %+v", f)
	}
	if _, err := parseWrk([]byte("no summary")); err == nil {
		t.Error("want an error without a summary line")
	}
}

func TestLuaScript(t *testing.T) {
	s := luaScript("/tmp/x y.paths", []string{"Authorization", `Bearer a"b`}, "", nil)
	for _, want := range []string{`io.lines("/tmp/x y.paths")`, `headers["Authorization"] = "Bearer a\"b"`, wrkMarker, "lat:percentile(99.9)"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "rot") {
		t.Errorf("a script without a rotation has one:\n%s", s)
	}
	s = luaScript("/tmp/p", nil, "Authorization", []string{"Bearer k1", "Bearer k2"})
	for _, want := range []string{`local rot = {"Bearer k1","Bearer k2",}`, `headers["Authorization"] = rot[(n - 1) % #rot + 1]`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}

// serve starts a fasthttp server on loopback for the test.
func serve(t *testing.T, h fasthttp.RequestHandler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String()
}

func TestOpenLoop_Run(t *testing.T) {
	addr := serve(t, func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/slow":
			time.Sleep(30 * time.Millisecond)
		case "/missing":
			ctx.SetStatusCode(404)
		}
		if string(ctx.Request.Header.Peek("X-Test")) != "1" {
			ctx.SetStatusCode(400)
		}
		ctx.SetBodyString("hello")
	})
	var shots []Shot
	for i := 0; i < 40; i++ {
		p := "/ok"
		switch i {
		case 10:
			p = "/slow"
		case 20:
			p = "/missing"
		}
		shots = append(shots, Shot{At: time.Duration(i) * 5 * time.Millisecond, Path: p, Headers: []string{"X-Test", "1"}, Tag: i})
	}
	samples := OpenLoop{Addr: addr, MaxConns: 1, Timeout: time.Second, Grace: 5 * time.Second}.Run(context.Background(), shots)
	if len(samples) != 40 {
		t.Fatalf("%d samples, want 40", len(samples))
	}
	// One connection: the shots after the slow one queue behind it, and
	// their latency counts the wait from their scheduled time.
	if samples[11].Lat < 15*time.Millisecond {
		t.Errorf("shot after the slow one: latency %s, want the queueing counted (>= 15ms)", samples[11].Lat)
	}
	f := Summarize(samples, 0, 0)
	if f.Requests != 40 || f.Errors != 1 || f.ErrorKinds["status_404"] != 1 || f.BytesPerResponse != 5 {
		t.Errorf("figures %+v", f)
	}
	w := Summarize(samples, 50*time.Millisecond, 100*time.Millisecond)
	if w.Requests != 10 {
		t.Errorf("window [50ms,100ms): %d requests, want 10", w.Requests)
	}
}

func TestOpenLoop_Bounds(t *testing.T) {
	block := make(chan struct{})
	addr := serve(t, func(ctx *fasthttp.RequestCtx) { <-block })
	t.Cleanup(func() { close(block) }) // runs before the server's Shutdown
	shots := []Shot{{At: 0, Path: "/a"}, {At: time.Millisecond, Path: "/b"}, {At: 2 * time.Millisecond, Path: "/c"}}
	start := time.Now()
	samples := OpenLoop{Addr: addr, MaxConns: 1, Timeout: 200 * time.Millisecond, Grace: 100 * time.Millisecond}.Run(context.Background(), shots)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("run took %s: not bounded", d)
	}
	f := Summarize(samples, 0, 0)
	if f.Errors != 3 {
		t.Errorf("want 3 errors (timeouts or not sent), got %+v", f)
	}
	// Cancelling leaves the unsent shots out.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := (OpenLoop{Addr: addr}).Run(ctx, []Shot{{At: time.Second, Path: "/x"}}); len(got) != 0 {
		t.Errorf("cancelled run: %d samples, want 0", len(got))
	}
}

func TestPinned(t *testing.T) {
	if got := strings.Join(Pinned(1, "a", "b"), " "); got != "taskset -c 1 a b" {
		t.Errorf("got %q", got)
	}
	if got := strings.Join(Pinned(-1, "a"), " "); got != "a" {
		t.Errorf("got %q", got)
	}
}
