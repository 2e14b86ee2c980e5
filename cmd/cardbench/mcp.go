package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/valyala/fasthttp"
)

// mcpProtocol is the MCP revision the spec's handshake follows.
const mcpProtocol = "2025-11-25"

// MCPFigs are the figures of the MCP agents.
type MCPFigs struct {
	Agents      int                      `json:"agents"`
	Seconds     float64                  `json:"seconds"`
	Sessions    int                      `json:"sessions"`
	Calls       int64                    `json:"calls"`
	CallsPerSec float64                  `json:"calls_per_sec"`
	Errors      int64                    `json:"errors"`
	ToolErrors  int64                    `json:"tool_errors"`
	All         load.Figures             `json:"all_calls"`
	Initialize  load.Figures             `json:"initialize"`
	ByCall      map[string]*load.Figures `json:"by_call"`
	ErrorSample []string                 `json:"error_sample,omitempty"`
	// Quote1 is issue 35's figure: QuoteAgents agents that each call quote
	// with one id (Zipf), closed loop, in one session each, after the mixed
	// run; beside it, ByCall["quote ids=1"] is the same call among the
	// mixed workload's heavier calls.
	QuoteAgents int           `json:"quote_agents,omitempty"`
	Quote1      *load.Figures `json:"quote_1,omitempty"`
}

func mcpInitialize(id int) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"protocolVersion": mcpProtocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "cardbench", "version": "1.0.0"}}})
	return b
}

// mcpSession is one agent's MCP session over a shared client.
type mcpSession struct {
	client  *fasthttp.HostClient
	addr    string
	key     string
	session string
	nextID  int
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one JSON-RPC message and returns the HTTP status and the
// response to it (nil for a notification).
func (s *mcpSession) post(method string, params any, notify bool) (int, *rpcResponse, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	if !notify {
		s.nextID++
		msg["id"] = s.nextID
	}
	body, _ := json.Marshal(msg)
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + s.addr + "/api/v3/mcp/")
	req.Header.SetMethod("POST")
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.SetContentType("application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
		req.Header.Set("MCP-Protocol-Version", mcpProtocol)
	}
	req.SetBody(body)
	if err := s.client.DoTimeout(req, resp, 30*time.Second); err != nil {
		return 0, nil, err
	}
	st := resp.StatusCode()
	if method == "initialize" {
		s.session = string(resp.Header.Peek("Mcp-Session-Id"))
	}
	if notify || st != 200 {
		return st, nil, nil
	}
	raw := resp.Body()
	if bytes.HasPrefix(resp.Header.ContentType(), []byte("text/event-stream")) {
		raw = sseData(raw)
	}
	var r rpcResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return st, nil, fmt.Errorf("%s: response is not JSON-RPC: %.200s", method, raw)
	}
	return st, &r, nil
}

// sseData returns the last data payload of an event stream.
func sseData(b []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var cur []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			cur = append(cur, bytes.TrimSpace(line[5:])...)
		case len(line) == 0 && len(cur) > 0:
			last, cur = cur, nil
		}
	}
	if len(cur) > 0 {
		last = cur
	}
	return last
}

func (s *mcpSession) close() {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + s.addr + "/api/v3/mcp/")
	req.Header.SetMethod("DELETE")
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Mcp-Session-Id", s.session)
	_ = s.client.DoTimeout(req, resp, 5*time.Second)
}

// idBuckets are the id counts of batch_grade_ladder and quote calls.
var idBuckets = []int{1, 5, 10, 25, 50, 100}

// runMCP: agents (closed loop, no think time: each waits for its answer)
// that open a session and call search, quote and batch_grade_ladder with 1
// to 100 ids, over the cached edge with an unmetered Elite key.
func (h *harness) runMCP(ctx context.Context) error {
	if !h.mcpOK {
		h.logf("mcp: not run (POST /api/v3/mcp/ did not answer initialize, see below)")
		return nil
	}
	p := h.plan
	h.logf("mcp: %d agents for %s", p.mcpAgents, p.mcpSpan)
	var ids []string
	var names []string
	for _, c := range h.cat.cards {
		if c.Game == h.cat.game0 {
			ids = append(ids, c.ID)
			if len(names) < 2000 {
				names = append(names, c.Name)
			}
		}
		if len(ids) >= 5000 {
			break
		}
	}
	if len(ids) == 0 {
		return errors.New("mcp: no cards of the default game")
	}
	client := &fasthttp.HostClient{Addr: h.cached.addr, MaxConns: p.mcpAgents + 4, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	type rec struct {
		call string
		lat  time.Duration
		err  string
		tool bool // isError result
	}
	var mu sync.Mutex
	var recs []rec
	var inits []rec
	sessions := 0
	add := func(r rec, init bool) {
		mu.Lock()
		defer mu.Unlock()
		if init {
			inits = append(inits, r)
		} else {
			recs = append(recs, r)
		}
	}
	end := time.Now().Add(p.mcpSpan)
	start := time.Now()
	var wg sync.WaitGroup
	for a := 0; a < p.mcpAgents; a++ {
		wg.Add(1)
		go func(a int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(a), 7))
			z := load.NewZipf(len(ids), zipfS)
			pick := func(n int) []string {
				out := make([]string, 0, n)
				seen := map[string]bool{}
				for len(out) < n && len(seen) < len(ids) {
					id := ids[z.Rank(r)]
					if !seen[id] {
						seen[id] = true
						out = append(out, id)
					}
				}
				return out
			}
			for time.Now().Before(end) && ctx.Err() == nil {
				s := &mcpSession{client: client, addr: h.cached.addr, key: h.eliteKey}
				t0 := time.Now()
				st, resp, err := s.post("initialize", json.RawMessage(mcpInitParams()), false)
				ir := rec{call: "initialize", lat: time.Since(t0)}
				if err != nil || st != 200 || resp == nil || resp.Error != nil || s.session == "" {
					ir.err = fmt.Sprintf("initialize: status %d, %v, session %q", st, err, s.session)
					add(ir, true)
					time.Sleep(100 * time.Millisecond)
					continue
				}
				add(ir, true)
				if st, _, err := s.post("notifications/initialized", nil, true); err != nil || (st != 202 && st != 200) {
					add(rec{call: "notifications/initialized", err: fmt.Sprintf("status %d, %v", st, err)}, true)
				}
				mu.Lock()
				sessions++
				mu.Unlock()
				// One session: a few rounds of the agent's three calls.
				for round := 0; round < 5 && time.Now().Before(end) && ctx.Err() == nil; round++ {
					n := idBuckets[r.IntN(len(idBuckets))]
					calls := []struct {
						name string
						tool string
						args map[string]any
					}{
						{"search", "search", map[string]any{"q": names[z.Rank(r)%len(names)]}},
						{"quote ids=" + strconv.Itoa(n), "quote", map[string]any{"ids": pick(n)}},
						{"batch_grade_ladder ids=" + strconv.Itoa(n), "batch_grade_ladder", map[string]any{"ids": pick(n)}},
					}
					for _, c := range calls {
						t0 := time.Now()
						st, resp, err := s.post("tools/call", map[string]any{"name": c.tool, "arguments": c.args}, false)
						x := rec{call: c.name, lat: time.Since(t0)}
						switch {
						case err != nil:
							x.err = err.Error()
						case st != 200:
							x.err = fmt.Sprintf("%s: status %d", c.tool, st)
						case resp == nil || resp.Error != nil:
							x.err = fmt.Sprintf("%s: JSON-RPC error %+v", c.tool, resp)
						default:
							var res struct {
								IsError bool `json:"isError"`
								Content []struct {
									Text string `json:"text"`
								} `json:"content"`
							}
							if json.Unmarshal(resp.Result, &res) == nil && res.IsError {
								x.tool = true
								if len(res.Content) > 0 {
									x.err = fmt.Sprintf("%s: tool error: %.150s", c.tool, res.Content[0].Text)
								}
							}
						}
						add(x, false)
					}
				}
				s.close()
			}
		}(a)
	}
	wg.Wait()
	elapsed := time.Since(start)
	m := &MCPFigs{Agents: p.mcpAgents, Seconds: round2(elapsed.Seconds()), Sessions: sessions, ByCall: map[string]*load.Figures{}}
	var all, ini load.Latencies
	by := map[string]*load.Latencies{}
	counts := map[string]*load.Figures{}
	var errSample []string
	for _, r := range recs {
		m.Calls++
		all.Add(r.lat)
		if by[r.call] == nil {
			by[r.call], counts[r.call] = &load.Latencies{}, &load.Figures{}
		}
		by[r.call].Add(r.lat)
		counts[r.call].Requests++
		if r.err != "" || r.tool {
			if r.tool {
				m.ToolErrors++
			} else {
				m.Errors++
			}
			counts[r.call].Errors++
			if len(errSample) < 5 {
				errSample = append(errSample, r.err)
			}
		}
	}
	for _, r := range inits {
		ini.Add(r.lat)
		if r.err != "" {
			m.Errors++
			if len(errSample) < 5 {
				errSample = append(errSample, r.err)
			}
		}
	}
	m.ErrorSample = errSample
	m.CallsPerSec = round2(float64(m.Calls) / elapsed.Seconds())
	m.All = load.Figures{Requests: m.Calls, Errors: m.Errors + m.ToolErrors, Seconds: elapsed.Seconds(), RPS: m.CallsPerSec}
	all.Fill(&m.All)
	m.Initialize = load.Figures{Requests: int64(ini.Len())}
	ini.Fill(&m.Initialize)
	for k, l := range by {
		f := counts[k]
		f.Seconds = elapsed.Seconds()
		f.RPS = round2(float64(f.Requests) / elapsed.Seconds())
		l.Fill(f)
		m.ByCall[k] = f
	}
	h.report.MCP = m
	if p.mcpQuoteSpan > 0 && ctx.Err() == nil {
		q, err := h.runMCPQuote1(ctx, client, ids)
		if err != nil {
			return err
		}
		m.QuoteAgents, m.Quote1 = p.mcpQuoteAgents, q
	}
	return nil
}

// runMCPQuote1: the plan's quote agents, each in its own session, call quote
// with one id (Zipf) until the span ends, waiting for each answer.
func (h *harness) runMCPQuote1(ctx context.Context, client *fasthttp.HostClient, ids []string) (*load.Figures, error) {
	p := h.plan
	h.logf("mcp: %d agents calling quote with 1 id for %s", p.mcpQuoteAgents, p.mcpQuoteSpan)
	var mu sync.Mutex
	var lat load.Latencies
	var calls, failed int64
	var firstErr string
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(p.mcpQuoteSpan)
	for a := 0; a < p.mcpQuoteAgents; a++ {
		wg.Add(1)
		go func(a int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(a), 35))
			z := load.NewZipf(len(ids), zipfS)
			s := &mcpSession{client: client, addr: h.cached.addr, key: h.eliteKey}
			fail := func(msg string) {
				mu.Lock()
				defer mu.Unlock()
				failed++
				if firstErr == "" {
					firstErr = msg
				}
			}
			if st, resp, err := s.post("initialize", json.RawMessage(mcpInitParams()), false); err != nil || st != 200 || resp == nil || s.session == "" {
				fail(fmt.Sprintf("initialize: status %d, %v", st, err))
				return
			}
			defer s.close()
			if st, _, err := s.post("notifications/initialized", nil, true); err != nil || (st != 202 && st != 200) {
				fail(fmt.Sprintf("notifications/initialized: status %d, %v", st, err))
				return
			}
			for time.Now().Before(end) && ctx.Err() == nil {
				t0 := time.Now()
				st, resp, err := s.post("tools/call", map[string]any{"name": "quote", "arguments": map[string]any{"ids": []string{ids[z.Rank(r)]}}}, false)
				took := time.Since(t0)
				mu.Lock()
				calls++
				lat.Add(took)
				mu.Unlock()
				if err != nil || st != 200 || resp == nil || resp.Error != nil || bytes.Contains(resp.Result, []byte(`"isError":true`)) {
					fail(fmt.Sprintf("quote: status %d, %v", st, err))
				}
			}
		}(a)
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	f := &load.Figures{Requests: calls, Errors: failed, Seconds: elapsed, RPS: round2(float64(calls) / elapsed)}
	lat.Fill(f)
	if failed > 0 {
		return f, fmt.Errorf("quote of 1 id: %d of %d calls failed, e.g. %s", failed, calls, firstErr)
	}
	return f, nil
}

func mcpInitParams() []byte {
	b, _ := json.Marshal(map[string]any{"protocolVersion": mcpProtocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "cardbench", "version": "1.0.0"}})
	return b
}

func (h *harness) printMCP() {
	m := h.report.MCP
	if m == nil {
		return
	}
	w := h.out
	fmt.Fprintf(w, "\n-- MCP agents: %d agents (closed loop, no think time), %d sessions, %d calls in %.0fs = %.0f calls/s, %d errors, %d tool errors\n",
		m.Agents, m.Sessions, m.Calls, m.Seconds, m.CallsPerSec, m.Errors, m.ToolErrors)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "call\tcalls\tcalls/s\tp50 ms\tp99 ms\tmax ms\terrors\t")
	fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t\n", "initialize", m.Initialize.Requests, "-", f2(m.Initialize.P50Ms), f2(m.Initialize.P99Ms), f2(m.Initialize.MaxMs), 0)
	fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t\n", "all tool calls", m.All.Requests, f2(m.All.RPS), f2(m.All.P50Ms), f2(m.All.P99Ms), f2(m.All.MaxMs), m.All.Errors)
	keys := make([]string, 0, len(m.ByCall))
	for k := range m.ByCall {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return callOrder(keys[i]) < callOrder(keys[j]) })
	for _, k := range keys {
		f := m.ByCall[k]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t\n", k, f.Requests, f2(f.RPS), f2(f.P50Ms), f2(f.P99Ms), f2(f.MaxMs), f.Errors)
	}
	tw.Flush()
	for _, e := range m.ErrorSample {
		fmt.Fprintf(w, "   e.g. %s\n", e)
	}
	if q := m.Quote1; q != nil {
		mixed := "-"
		if f := m.ByCall["quote ids=1"]; f != nil {
			mixed = f2(f.P50Ms)
		}
		fmt.Fprintf(w, "quote ids=1 alone, %d agents: %d calls = %.0f calls/s, p50 %s ms, p99 %s ms (the mixed run's quote ids=1 among %d agents: p50 %s ms)\n",
			m.QuoteAgents, q.Requests, q.RPS, f2(q.P50Ms), f2(q.P99Ms), m.Agents, mixed)
	}
}

// callOrder sorts "tool ids=N" by tool, then N.
func callOrder(k string) string {
	name, n, _ := strings.Cut(k, " ids=")
	x, _ := strconv.Atoi(n)
	return fmt.Sprintf("%s %05d", name, x)
}
