package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/valyala/fasthttp"
)

type config struct {
	duration, warmup, sample time.Duration
	rate, mcpRate            float64
	edge, cardbuild, root    string
	cacheMB, workers         int
	jsonOut                  string
}

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 10*time.Minute, "how long to send the mix (after the warm-up)")
	flag.DurationVar(&c.warmup, "warmup", 30*time.Second, "warm-up before the baseline sample (fills the cache)")
	flag.DurationVar(&c.sample, "sample", 10*time.Second, "how often to sample RSS and goroutines")
	flag.Float64Var(&c.rate, "rate", 200, "REST requests per second")
	flag.Float64Var(&c.mcpRate, "mcp-rate", 2, "MCP sessions started per second (0: none)")
	flag.StringVar(&c.edge, "edge", "bin/cardedge", "the cardedge binary")
	flag.StringVar(&c.cardbuild, "cardbuild", "bin/cardbuild", "the cardbuild binary (builds the tiny snapshot)")
	flag.StringVar(&c.root, "snapshots", "", "a snapshots root to serve (default: build the tiny preset into a temporary one)")
	flag.IntVar(&c.cacheMB, "cache-mb", 64, "the edge's response cache")
	flag.IntVar(&c.workers, "workers", 64, "concurrent requests at most")
	flag.StringVar(&c.jsonOut, "json", "", "also write the report as JSON to this file")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !rep.Pass {
		os.Exit(1)
	}
}

// Report is what the soak found.
type Report struct {
	Seconds         float64        `json:"seconds"`
	RateTarget      float64        `json:"rate_target"`
	RateAchieved    float64        `json:"rate_achieved"`
	Requests        int64          `json:"requests"`
	Dropped         int64          `json:"dropped"`
	ByClass         map[string]int `json:"by_status_class"`
	Status5xx       int64          `json:"status_5xx"`
	TransportErrors int64          `json:"transport_errors"`
	ErrorSample     []string       `json:"error_sample,omitempty"`
	MCPSessions     int64          `json:"mcp_sessions"`
	MCPCalls        int64          `json:"mcp_calls"`
	MCPErrors       int64          `json:"mcp_errors"`
	P50ms           float64        `json:"p50_ms"`
	P99ms           float64        `json:"p99_ms"`
	MaxMs           float64        `json:"max_ms"`
	RSSStartMB      float64        `json:"rss_start_mb"`
	RSSEndMB        float64        `json:"rss_end_mb"`
	RSSMaxMB        float64        `json:"rss_max_mb"`
	RSSGrowthMB     float64        `json:"rss_growth_mb"`
	RSSSlopeMBMin   float64        `json:"rss_slope_mb_per_min"`
	AnonStartMB     float64        `json:"rss_anon_start_mb"`
	AnonEndMB       float64        `json:"rss_anon_end_mb"`
	AnonSlopeMBMin  float64        `json:"rss_anon_slope_mb_per_min"`
	AnonLastHalfMB  float64        `json:"rss_anon_growth_last_half_mb"`
	GoroutinesStart int            `json:"goroutines_start"`
	GoroutinesEnd   int            `json:"goroutines_end"`
	GoroutinesMax   int            `json:"goroutines_max"`
	GoroutinesIdle  int            `json:"goroutines_quiet_after"`
	Samples         []sample       `json:"samples"`
	Pass            bool           `json:"pass"`
}

type sample struct {
	T          float64 `json:"t"`
	RSSMB      float64 `json:"rss_mb"`
	AnonMB     float64 `json:"rss_anon_mb"` // heap and stacks: what a leak grows
	FileMB     float64 `json:"rss_file_mb"` // mapped snapshot files (bbolt, Bleve) touched so far
	HeapMB     float64 `json:"go_heap_mb"`  // go_memstats_heap_inuse_bytes when exported
	Goroutines int     `json:"goroutines"`
	Requests   int64   `json:"requests"`
}

func run(ctx context.Context, c config) (*Report, error) {
	dir, err := os.MkdirTemp("", "cardedge-soak-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	if c.root == "" {
		c.root = filepath.Join(dir, "snapshots")
		logf("building the tiny snapshot into %s", c.root)
		out, err := exec.Command(c.cardbuild, "build", "--out", c.root, "--preset", "tiny", "--seed", "7", "--as-of", "2026-11-20", "--id", "soak", "--quiet").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("cardbuild: %v\n%s", err, out)
		}
	}
	state := filepath.Join(dir, "state.bolt")
	key := func(tier string, unmetered bool) (string, error) {
		args := []string{"keys", "create", "--state", state, "--tier", tier, "--name", "soak"}
		if unmetered {
			args = append(args, "--unmetered")
		}
		out, err := exec.Command(c.edge, args...).Output()
		if err != nil {
			return "", fmt.Errorf("cardedge keys create: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return lines[len(lines)-1], nil
	}
	elite, err := key("elite", true)
	if err != nil {
		return nil, err
	}
	free, err := key("free", false)
	if err != nil {
		return nil, err
	}
	addr, err := load.FreePort()
	if err != nil {
		return nil, err
	}
	p, err := load.Start("cardedge", filepath.Join(dir, "edge.log"), c.edge, "serve", "--snapshots", c.root, "--state", state,
		"--addr", addr, "--cache-mb", strconv.Itoa(c.cacheMB), "--log-level", "warn")
	if err != nil {
		return nil, err
	}
	defer p.Stop(15 * time.Second)
	if err := p.WaitHTTP(ctx, addr, "/health", 60*time.Second); err != nil {
		return nil, err
	}
	logf("cardedge pid %d on %s", p.Pid(), addr)

	s := &soak{cfg: c, addr: addr, elite: elite, free: free, pid: p.Pid(), log: logf, classes: map[string]int{},
		client: &fasthttp.HostClient{Addr: addr, MaxConns: c.workers + 16, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, MaxIdleConnDuration: 10 * time.Second}}
	if err := s.discover(); err != nil {
		return nil, err
	}
	s.mcpOK = c.mcpRate > 0 && s.mcpMounted()
	if !s.mcpOK && c.mcpRate > 0 {
		logf("MCP is not mounted at /api/v3/mcp/: REST only")
	}

	// Warm up at the same rate, then take the baseline.
	logf("warm-up %s at %.0f req/s", c.warmup, c.rate)
	wctx, wcancel := context.WithTimeout(ctx, c.warmup)
	s.drive(wctx)
	wcancel()
	s.resetCounts()
	s.quiet()
	base, err := s.sample(0)
	if err != nil {
		return nil, err
	}
	logf("baseline: RSS %.1f MB (anon %.1f, file %.1f), %d goroutines", base.RSSMB, base.AnonMB, base.FileMB, base.Goroutines)
	rep := &Report{RateTarget: c.rate, Samples: []sample{base}, ByClass: map[string]int{}}

	start := time.Now()
	dctx, dcancel := context.WithTimeout(ctx, c.duration)
	defer dcancel()
	driven := make(chan struct{})
	go func() { s.drive(dctx); close(driven) }()
	tick := time.NewTicker(c.sample)
	defer tick.Stop()
sampling:
	for {
		select {
		case <-driven:
			break sampling
		case <-tick.C:
			sm, err := s.sample(time.Since(start).Seconds())
			if err != nil {
				return nil, err
			}
			rep.Samples = append(rep.Samples, sm)
			logf("t=%4.0fs RSS %6.1f MB (anon %6.1f, file %5.1f)  goroutines %4d  requests %7d  5xx %d  errors %d  dropped %d", sm.T, sm.RSSMB,
				sm.AnonMB, sm.FileMB, sm.Goroutines, sm.Requests, s.n5xx.Load(), s.errs.Load(), s.dropped.Load())
		}
		if exited, err := p.Exited(); exited {
			return nil, fmt.Errorf("cardedge exited during the soak (%v):\n%s", err, p.Tail(4000))
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	end, err := s.sample(rep.Seconds)
	if err != nil {
		return nil, err
	}
	rep.Samples = append(rep.Samples, end)
	s.quiet()
	idle, err := s.sample(time.Since(start).Seconds())
	if err != nil {
		return nil, err
	}

	s.report(rep, base, end, idle)
	s.print(rep)
	if c.jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(c.jsonOut, b, 0o644); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

type soak struct {
	cfg         config
	addr        string
	elite, free string
	pid         int
	log         func(string, ...any)
	client      *fasthttp.HostClient
	mcpOK       bool

	cards  []string // card ids of both games
	sets   []string
	names  []string
	byGame map[string]string // card id -> game

	requests, n5xx, errs, dropped atomic.Int64
	mcpSessions, mcpCalls, mcpErr atomic.Int64
	mu                            sync.Mutex
	classes                       map[string]int
	lat                           []time.Duration
	errSample                     []string
}

func (s *soak) resetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests.Store(0)
	s.n5xx.Store(0)
	s.errs.Store(0)
	s.dropped.Store(0)
	s.mcpSessions.Store(0)
	s.mcpCalls.Store(0)
	s.mcpErr.Store(0)
	s.classes = map[string]int{}
	s.lat = s.lat[:0]
	s.errSample = nil
}

// discover reads card and set ids from the edge.
func (s *soak) discover() error {
	s.byGame = map[string]string{}
	for _, game := range []string{"pokemon", "onepiece"} {
		for off := 0; off < 1000; off += 200 {
			st, body, err := s.do("GET", fmt.Sprintf("/api/v3/cards?game=%s&limit=200&offset=%d", game, off), s.elite, nil)
			if err != nil || st != 200 {
				return fmt.Errorf("list cards: %d %v", st, err)
			}
			var page struct {
				Data struct {
					Items []struct {
						ID   string `json:"card_id"`
						Name string `json:"name"`
					} `json:"items"`
				} `json:"data"`
			}
			json.Unmarshal(body, &page)
			for _, it := range page.Data.Items {
				s.cards = append(s.cards, it.ID)
				s.names = append(s.names, it.Name)
				s.byGame[it.ID] = game
			}
			if len(page.Data.Items) < 200 {
				break
			}
		}
	}
	st, body, err := s.do("GET", "/api/v3/sets?limit=200", s.elite, nil)
	if err != nil || st != 200 {
		return fmt.Errorf("list sets: %d %v", st, err)
	}
	var sets struct {
		Data struct {
			Items []struct {
				ID string `json:"set_id"`
			} `json:"items"`
		} `json:"data"`
	}
	json.Unmarshal(body, &sets)
	for _, it := range sets.Data.Items {
		s.sets = append(s.sets, it.ID)
	}
	if len(s.cards) == 0 || len(s.sets) == 0 {
		return errors.New("the snapshot has no cards or sets")
	}
	s.log("%d cards, %d sets", len(s.cards), len(s.sets))
	return nil
}

func (s *soak) do(method, path, key string, body []byte, hdr ...string) (int, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + s.addr + path)
	req.Header.SetMethod(method)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	if err := s.client.DoTimeout(req, resp, 30*time.Second); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), nil
}

// record counts one response.
func (s *soak) record(what string, status int, err error, took time.Duration) {
	s.requests.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errs.Add(1)
		if len(s.errSample) < 10 {
			s.errSample = append(s.errSample, what+": "+err.Error())
		}
		return
	}
	s.classes[strconv.Itoa(status/100)+"xx"]++
	if status >= 500 {
		s.n5xx.Add(1)
		if len(s.errSample) < 10 {
			s.errSample = append(s.errSample, fmt.Sprintf("%s: %d", what, status))
		}
	}
	s.lat = append(s.lat, took)
}

// drive sends the mix at the configured rate until ctx ends: REST jobs on a
// fixed schedule to a pool of workers, MCP sessions on their own schedule.
func (s *soak) drive(ctx context.Context) {
	jobs := make(chan func(), s.cfg.workers)
	var wg sync.WaitGroup
	for w := 0; w < s.cfg.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j()
			}
		}()
	}
	var mwg sync.WaitGroup
	if s.mcpOK {
		mwg.Add(1)
		go func() {
			defer mwg.Done()
			s.schedule(ctx, s.cfg.mcpRate, func(i int64) {
				mwg.Add(1)
				go func() { defer mwg.Done(); s.mcpSession(i) }()
			})
		}()
	}
	s.schedule(ctx, s.cfg.rate, func(i int64) {
		r := rand.New(rand.NewPCG(uint64(i), 42))
		job := s.pick(r)
		select {
		case jobs <- job:
		default:
			s.dropped.Add(1)
		}
	})
	close(jobs)
	wg.Wait()
	mwg.Wait()
}

// schedule calls fire(i) at i/rate seconds after the start until ctx ends.
func (s *soak) schedule(ctx context.Context, rate float64, fire func(i int64)) {
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for i := int64(0); ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		} else if ctx.Err() != nil {
			return
		}
		fire(i)
	}
}

var includes = []string{"price_history", "tvwap_history", "tvwap_slots", "grade_momentum", "recent_sales",
	"market_summary", "grade_breakdown", "population_overview", "grading_economics"}
var grades = []string{"raw:near_mint", "raw:lightly_played", "slab:10", "slab:9", "bgs:9.5", "cgc:10"}

// pick returns one request of the mix.
func (s *soak) pick(r *rand.Rand) func() {
	card := s.cards[r.IntN(len(s.cards))]
	game := s.byGame[card]
	set := s.sets[r.IntN(len(s.sets))]
	get := func(path, key string) func() {
		return func() {
			t := time.Now()
			st, _, err := s.do("GET", path, key, nil)
			s.record(path, st, err, time.Since(t))
		}
	}
	g := "&game=" + game
	n := r.IntN(100)
	switch {
	case n < 22:
		inc := includes[r.IntN(len(includes))]
		if r.IntN(3) == 0 {
			inc += "," + includes[r.IntN(len(includes))]
		}
		return get("/api/v3/cards/"+card+"?include="+inc+g, s.elite)
	case n < 34:
		sorts := []string{"volume", "name", "price"}
		q := fmt.Sprintf("/api/v3/cards?limit=%d&offset=%d&sort=%s&order=%s&game=%s", 1+r.IntN(100), r.IntN(400), sorts[r.IntN(3)], []string{"asc", "desc"}[r.IntN(2)], game)
		if r.IntN(3) == 0 {
			q += "&q=" + url.QueryEscape(strings.Fields(s.names[r.IntN(len(s.names))])[0])
		}
		return get(q, s.elite)
	case n < 43:
		return func() { s.salesChain(card, game, r.IntN(3)+1) }
	case n < 51:
		return get(fmt.Sprintf("/api/v3/cards/%s/price-history?grade=%s&interval=%s&limit=%d%s", card, grades[r.IntN(len(grades))],
			[]string{"day", "week", "change"}[r.IntN(3)], 30+r.IntN(300), g), s.elite)
	case n < 55:
		return get("/api/v3/cards/"+card+"/market-history?limit=90"+g, s.elite)
	case n < 59:
		return get("/api/v3/cards/"+card+"/marketplace-sales?limit=50"+g, s.elite)
	case n < 63:
		return get("/api/v3/cards/"+card+"/analytics?window="+[]string{"1y", "6m", "3m", "1m", "1w", "all"}[r.IntN(6)]+g, s.elite)
	case n < 66:
		return get(fmt.Sprintf("/api/v3/cards/%s/vwap?window_days=%d%s", card, 1+r.IntN(365), g), s.elite)
	case n < 70:
		return get("/api/v3/trending?window="+[]string{"7d", "30d", "90d"}[r.IntN(3)]+"&limit=20"+g, s.elite)
	case n < 72:
		return get("/api/v3/market/volume?limit=30"+g, s.elite)
	case n < 74:
		return get(fmt.Sprintf("/api/v3/shop/listings?limit=%d&offset=%d%s", 1+r.IntN(100), r.IntN(50), g), s.elite)
	case n < 80:
		sub := []string{"", "/breakdown", "/price-distribution", "/trending-cards", "/volume-history"}[r.IntN(5)]
		return get("/api/v3/sets/"+set+sub, s.elite)
	case n < 85:
		name := s.names[r.IntN(len(s.names))]
		return get("/api/v3/search?q="+url.QueryEscape(name)+"&limit=10", s.elite)
	case n < 89:
		name := s.names[r.IntN(len(s.names))]
		return get("/api/v3/lookup?q="+url.QueryEscape(name[:min(len(name), 1+r.IntN(6))]), s.elite)
	case n < 92:
		ids := make([]string, 1+r.IntN(20))
		for i := range ids {
			ids[i] = s.cards[r.IntN(len(s.cards))]
		}
		body, _ := json.Marshal(map[string]any{"ids": ids, "game": game, "profile": []string{"core", "market", "full"}[r.IntN(3)]})
		return func() {
			t := time.Now()
			st, _, err := s.do("POST", "/api/v3/cards/batch", s.elite, body)
			s.record("batch", st, err, time.Since(t))
		}
	case n < 94:
		return get("/prices?ids="+card+","+s.cards[r.IntN(len(s.cards))]+"&source=all"+g, s.elite)
	case n < 95:
		return get("/keys/usage", s.elite)
	case n < 97:
		return get("/api/v3/cards/"+card+"/analytics"+"?window=1y"+g, s.free) // 429s once the Free quota is spent
	default:
		return get("/api/v3/cards/"+card+"?game="+game, "") // Playground: 429s beyond 1/s
	}
}

// salesChain reads up to pages pages of a card's sales, following cursors.
func (s *soak) salesChain(card, game string, pages int) {
	cur := ""
	for i := 0; i < pages; i++ {
		path := "/api/v3/cards/" + card + "/sales?limit=20&game=" + game
		if cur != "" {
			path += "&cursor=" + cur
		}
		t := time.Now()
		st, body, err := s.do("GET", path, s.elite, nil)
		s.record("sales", st, err, time.Since(t))
		if err != nil || st != 200 {
			return
		}
		var page struct {
			Data struct {
				Next *string `json:"next_cursor"`
			} `json:"data"`
		}
		json.Unmarshal(body, &page)
		if page.Data.Next == nil {
			return
		}
		cur = *page.Data.Next
	}
}

func (s *soak) mcpMounted() bool {
	st, _, _, err := s.rpc("", "initialize", mcpInit(), false)
	return err == nil && st == 200
}

func mcpInit() map[string]any {
	return map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "soak", "version": "1"}}
}

// rpc posts one JSON-RPC message; it returns the status, the session id the
// server set and the body.
func (s *soak) rpc(session, method string, params any, notify bool) (int, string, []byte, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	if !notify {
		msg["id"] = 1
	}
	body, _ := json.Marshal(msg)
	hdr := []string{"Accept", "application/json, text/event-stream"}
	if session != "" {
		hdr = append(hdr, "Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-11-25")
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + s.addr + "/api/v3/mcp/")
	req.Header.SetMethod("POST")
	req.Header.Set("Authorization", "Bearer "+s.elite)
	req.Header.SetContentType("application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	req.SetBody(body)
	if err := s.client.DoTimeout(req, resp, 30*time.Second); err != nil {
		return 0, "", nil, err
	}
	return resp.StatusCode(), string(resp.Header.Peek("Mcp-Session-Id")), append([]byte(nil), resp.Body()...), nil
}

// mcpSession runs one MCP session: initialize, initialized, tools/list,
// search, quote, then DELETE (or, one in ten, walks away).
func (s *soak) mcpSession(i int64) {
	r := rand.New(rand.NewPCG(uint64(i), 9))
	s.mcpSessions.Add(1)
	t := time.Now()
	st, session, _, err := s.rpc("", "initialize", mcpInit(), false)
	s.record("mcp initialize", st, err, time.Since(t))
	if err != nil || st != 200 || session == "" {
		s.mcpErr.Add(1)
		return
	}
	calls := []struct {
		method string
		params any
		notify bool
	}{
		{"notifications/initialized", nil, true},
		{"tools/list", nil, false},
		{"tools/call", map[string]any{"name": "search", "arguments": map[string]any{"q": s.names[r.IntN(len(s.names))]}}, false},
		{"tools/call", map[string]any{"name": "quote", "arguments": map[string]any{"ids": []string{s.cards[r.IntN(len(s.cards))]}}}, false},
	}
	for _, c := range calls {
		t := time.Now()
		st, _, body, err := s.rpc(session, c.method, c.params, c.notify)
		s.record("mcp "+c.method, st, err, time.Since(t))
		s.mcpCalls.Add(1)
		if err != nil || st >= 500 || (!c.notify && (st != 200 || bytes.Contains(body, []byte(`"error":{"code"`)))) {
			s.mcpErr.Add(1)
		}
	}
	if r.IntN(10) == 0 {
		return // abandoned: the per-key session cap and idle TTL must bound these
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + s.addr + "/api/v3/mcp/")
	req.Header.SetMethod("DELETE")
	req.Header.Set("Authorization", "Bearer "+s.elite)
	req.Header.Set("Mcp-Session-Id", session)
	t = time.Now()
	err = s.client.DoTimeout(req, resp, 10*time.Second)
	s.record("mcp DELETE", resp.StatusCode(), err, time.Since(t))
}

// quiet closes the generator's keep-alive connections and waits for
// fasthttp's idle workers to exit (idle 10 s, swept every 10 s), so that goroutine
// counts taken after it compare: the baseline after the warm-up and the
// count after the run are both taken quiet.
func (s *soak) quiet() {
	s.client.CloseIdleConnections()
	time.Sleep(25 * time.Second)
}

// sample reads the edge's RSS and goroutine count.
func (s *soak) sample(t float64) (sample, error) {
	sm := sample{T: t, Requests: s.requests.Load()}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return sm, fmt.Errorf("read the edge's RSS: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 {
			kb, _ := strconv.ParseFloat(f[1], 64)
			mb := math.Round(kb/1024*10) / 10
			switch f[0] {
			case "VmRSS:":
				sm.RSSMB = mb
			case "RssAnon:":
				sm.AnonMB = mb
			case "RssFile:":
				sm.FileMB = mb
			}
		}
	}
	st, body, err := s.do("GET", "/metrics", "", nil)
	if err != nil || st != 200 {
		return sm, fmt.Errorf("metrics: %d %v", st, err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			sm.Goroutines, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return sm, nil
}

func (s *soak) report(rep *Report, base, end, idle sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep.Requests, rep.Dropped = s.requests.Load(), s.dropped.Load()
	rep.RateAchieved = math.Round(float64(rep.Requests)/rep.Seconds*10) / 10
	rep.Status5xx, rep.TransportErrors = s.n5xx.Load(), s.errs.Load()
	rep.MCPSessions, rep.MCPCalls, rep.MCPErrors = s.mcpSessions.Load(), s.mcpCalls.Load(), s.mcpErr.Load()
	for k, v := range s.classes {
		rep.ByClass[k] = v
	}
	rep.ErrorSample = s.errSample
	sort.Slice(s.lat, func(i, j int) bool { return s.lat[i] < s.lat[j] })
	pct := func(p float64) float64 {
		if len(s.lat) == 0 {
			return 0
		}
		return math.Round(float64(s.lat[int(p*float64(len(s.lat)-1))])/1e4) / 100
	}
	rep.P50ms, rep.P99ms, rep.MaxMs = pct(0.5), pct(0.99), pct(1)
	rep.RSSStartMB, rep.RSSEndMB = base.RSSMB, end.RSSMB
	rep.GoroutinesStart, rep.GoroutinesEnd, rep.GoroutinesIdle = base.Goroutines, end.Goroutines, idle.Goroutines
	for _, sm := range rep.Samples {
		rep.RSSMaxMB = math.Max(rep.RSSMaxMB, sm.RSSMB)
		rep.GoroutinesMax = max(rep.GoroutinesMax, sm.Goroutines)
	}
	rep.RSSGrowthMB = math.Round((end.RSSMB-base.RSSMB)*10) / 10
	rep.RSSSlopeMBMin = slope(rep.Samples, func(s sample) float64 { return s.RSSMB })
	rep.AnonStartMB, rep.AnonEndMB = base.AnonMB, end.AnonMB
	rep.AnonSlopeMBMin = slope(rep.Samples, func(s sample) float64 { return s.AnonMB })
	// Growth over the second half: a warm cache stops growing; a leak does not.
	for _, sm := range rep.Samples {
		if sm.T >= rep.Seconds/2 {
			rep.AnonLastHalfMB = math.Round((end.AnonMB-sm.AnonMB)*10) / 10
			break
		}
	}
	rep.Pass = rep.Status5xx == 0 && rep.TransportErrors == 0
}

// slope is the least-squares slope of f over the samples, per minute.
func slope(samples []sample, f func(sample) float64) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, sm := range samples {
		x, y := sm.T/60, f(sm)
		n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if d := n*sxx - sx*sx; d != 0 {
		return math.Round((n*sxy-sx*sy)/d*100) / 100
	}
	return 0
}

func (s *soak) print(rep *Report) {
	fmt.Printf("\nsoak: %.0f s at %.0f req/s (achieved %.1f), %d requests, %d dropped by the generator\n", rep.Seconds, rep.RateTarget, rep.RateAchieved, rep.Requests, rep.Dropped)
	classes := make([]string, 0, len(rep.ByClass))
	for k, v := range rep.ByClass {
		classes = append(classes, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(classes)
	fmt.Printf("  statuses: %s; 5xx %d; transport errors %d\n", strings.Join(classes, ", "), rep.Status5xx, rep.TransportErrors)
	if s.mcpOK {
		fmt.Printf("  MCP: %d sessions, %d calls, %d errors\n", rep.MCPSessions, rep.MCPCalls, rep.MCPErrors)
	}
	fmt.Printf("  latency: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", rep.P50ms, rep.P99ms, rep.MaxMs)
	fmt.Printf("  RSS: %.1f MB after warm-up, %.1f MB at the end (growth %+.1f MB, slope %+.2f MB/min), max %.1f MB\n",
		rep.RSSStartMB, rep.RSSEndMB, rep.RSSGrowthMB, rep.RSSSlopeMBMin, rep.RSSMaxMB)
	fmt.Printf("  RSS anon (heap, stacks): %.1f MB after warm-up, %.1f MB at the end (slope %+.2f MB/min; %+.1f MB over the second half)\n",
		rep.AnonStartMB, rep.AnonEndMB, rep.AnonSlopeMBMin, rep.AnonLastHalfMB)
	fmt.Printf("  goroutines: %d quiet after warm-up, %d at the end, max %d, %d quiet after the run\n", rep.GoroutinesStart, rep.GoroutinesEnd, rep.GoroutinesMax, rep.GoroutinesIdle)
	for _, e := range rep.ErrorSample {
		fmt.Printf("  error: %s\n", e)
	}
	verdict := "PASS"
	if !rep.Pass {
		verdict = "FAIL"
	}
	fmt.Printf("  %s (zero 5xx and transport errors)\n", verdict)
}
