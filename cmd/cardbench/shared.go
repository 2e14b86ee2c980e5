package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/redis/go-redis/v9"
)

// SharedFigs is issue 22's figure: the CPU a keyed cached read costs with
// the fleet's shared state (state store, quota counters and rate buckets in
// Redis: one charge per request in a Lua script, batched) against one node's
// (a state file, counters in memory).
type SharedFigs struct {
	Workload string `json:"workload"`
	Conns    int    `json:"conns"`
	Keys     int    `json:"keys"` // metered keys the requests spread over
	// LocalCPUUs and RedisCPUUs are the edge's CPU per request (medians of
	// the rounds' totals); Overhead is RedisCPUUs/LocalCPUUs - 1.
	LocalCPUUs float64 `json:"local_cpu_us_per_req"`
	RedisCPUUs float64 `json:"redis_cpu_us_per_req"`
	Overhead   float64 `json:"overhead"`
	Target     float64 `json:"target"`
	LocalRPS   float64 `json:"local_rps"`
	RedisRPS   float64 `json:"redis_rps"`
	// ServerCPUUsPerCharge is redis-server's own CPU per charge (one Redis
	// serves the whole fleet: it bounds the fleet's charged requests/s).
	ServerCPUUsPerCharge float64 `json:"redis_server_cpu_us_per_charge"`
	// ChargesPerRoundTrip is charges / script runs (the batching).
	ChargesPerRoundTrip float64 `json:"charges_per_round_trip"`
	Method              string  `json:"method"`
	// Many is the same comparison over sharedKeys keys on the wall clock.
	Many *SharedFigs `json:"many_keys,omitempty"`
}

// sharedKeys is how many metered keys the second shared-state comparison
// spreads its requests over: at the 20-60k req/s one core serves, each key
// makes 5-15 requests/s, within Elite's 50/s and its burst of 100 on the
// wall clock.
const sharedKeys = 4096

// runShared: the cost of shared state on a keyed cached read (issue 22):
// benchedge with --state FILE against benchedge with --redis URL, the same
// card-detail requests, interleaved wrk rounds, twice: with one metered
// Elite key (charged on every request, never refused: the access clock
// moves 10 s per reading), and with sharedKeys metered Elite keys in turn
// on the wall clock, each within its limits as real traffic is (issue 35:
// a replica answers such keys on its grant, without a round trip of its
// own). redis-server (its own, appendonly everysec as the README asks)
// unpinned.
func (h *harness) runShared(ctx context.Context) error {
	bin := findTool("redis-server")
	if bin == "" {
		h.skip("shared", "redis-server is not installed (apt-get install -y redis-server)")
		return nil
	}
	port, err := load.FreePort()
	if err != nil {
		return err
	}
	dir := filepath.Join(h.work, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_, p, _ := strings.Cut(port, ":")
	rs, err := load.Start("redis-server", filepath.Join(h.work, "redis.log"), bin, "--port", p, "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "everysec")
	if err != nil {
		return err
	}
	defer rs.Stop(10 * time.Second)
	url := "redis://" + port + "/0"
	rc := redis.NewClient(&redis.Options{Addr: port})
	defer rc.Close()
	if err := waitRedis(ctx, rc); err != nil {
		return fmt.Errorf("redis-server: %w: %s", err, rs.Tail(500))
	}
	one, err := h.sharedPair(ctx, rs, rc, url, 1)
	if err != nil {
		return err
	}
	h.report.Shared = one
	if one.Many, err = h.sharedPair(ctx, rs, rc, url, sharedKeys); err != nil {
		return err
	}
	return nil
}

// sharedPair runs one comparison of runShared with n metered keys (1: the
// access clock moves 10 s per reading; more: the wall clock, the keys in
// turn).
func (h *harness) sharedPair(ctx context.Context, rs *load.Proc, rc *redis.Client, url string, n int) (*SharedFigs, error) {
	file := filepath.Join(h.work, fmt.Sprintf("shared-state-%d.bolt", n))
	var localKeys, redisKeys []string
	var err error
	step := "10s"
	if n == 1 {
		var k string
		if k, err = h.meteredKey(ctx, "--state", file); err != nil {
			return nil, err
		}
		localKeys = []string{k}
		if k, err = h.meteredKey(ctx, "--redis", url); err != nil {
			return nil, err
		}
		redisKeys = []string{k}
	} else {
		step = "0"
		if localKeys, err = h.makeKeys(ctx, n, "--state", file); err != nil {
			return nil, err
		}
		if redisKeys, err = h.makeKeys(ctx, n, "--redis", url); err != nil {
			return nil, err
		}
	}
	argv := func(flag, value string) func(string) []string {
		return func(addr string) []string {
			return []string{filepath.Join(h.cfg.Bin, "benchedge"), "--snapshots", h.cfg.Snapshots, flag, value,
				"--addr", addr, "--clock-step", step}
		}
	}
	local, err := h.start(ctx, "benchedge state file", "/health", argv("--state", file))
	if err != nil {
		return nil, err
	}
	defer h.stopServer(local)
	shared, err := h.start(ctx, "benchedge redis", "/health", argv("--redis", url))
	if err != nil {
		return nil, err
	}
	defer h.stopServer(shared)

	name, workload := "shared state", "card detail on benchedge (cached), metered Elite key: state file vs Redis"
	if n > 1 {
		name = fmt.Sprintf("shared state, %d keys", n)
		workload = fmt.Sprintf("card detail on benchedge (cached), %d metered Elite keys in turn, wall clock: state file vs Redis", n)
	}
	h.logf("%s: keyed (metered Elite) cached card detail, state file vs Redis, at %d connections", name, h.plan.cardConns)
	paths := h.cat.cardDetailPaths(h.plan.listLen, 1)
	bearer := func(keys []string) []string {
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = "Bearer " + k
		}
		return out
	}
	lr, sr := bearer(localKeys), bearer(redisKeys)
	lh := []string{"Authorization", lr[0]}
	sh := []string{"Authorization", sr[0]}
	bodiesL, badL, err := h.warmKeys(ctx, local.addr, lr, paths)
	if err != nil {
		return nil, err
	}
	if paths, err = h.checked(name+" (state file)", paths, bodiesL, badL); err != nil {
		return nil, err
	}
	bodiesR, badR, err := h.warmKeys(ctx, shared.addr, sr, paths)
	if err != nil {
		return nil, err
	}
	if paths, err = h.checked(name+" (redis)", paths, bodiesR, badR); err != nil {
		return nil, err
	}
	pathsFile, err := h.writePaths(strings.ReplaceAll(name, " ", "-"), paths)
	if err != nil {
		return nil, err
	}
	g := &Group{Name: name, Workload: workload, Conns: h.plan.cardConns, Distinct: distinct(paths)}
	h.report.Groups = append(h.report.Groups, g)
	if err := rc.ConfigResetStat(ctx).Err(); err != nil {
		return nil, err
	}
	cpu0, _ := cpuTime(rs.Pid())
	lt := target{name: "state file", role: "edge", srv: local, headers: lh}
	st := target{name: "redis", role: "edge", srv: shared, headers: sh}
	if n > 1 {
		lt.headers, lt.rotate = nil, lr
		st.headers, st.rotate = nil, sr
	}
	if err := h.compare(ctx, g, pathsFile, []target{lt, st}); err != nil {
		return nil, err
	}
	cpu1, _ := cpuTime(rs.Pid())
	l, r := g.Results[0], g.Results[1]
	if r.Errors > 0 || l.Errors > 0 {
		return nil, fmt.Errorf("%s: %d and %d requests failed (state file, redis): %v %v", name, l.Errors, r.Errors, l.ErrorKinds, r.ErrorKinds)
	}
	f := &SharedFigs{Workload: g.Workload, Conns: g.Conns, Keys: n, LocalCPUUs: l.ServerCPUUsPerReq, RedisCPUUs: r.ServerCPUUsPerReq,
		Overhead: round3(load.Ratio(r.ServerCPUUsPerReq, l.ServerCPUUsPerReq) - 1), Target: 0.2, LocalRPS: l.RPS, RedisRPS: r.RPS,
		Method: "benchedge (the real edge and access layer; its access clock moves 10 s per reading so a metered Elite key is charged on every request and never refused), " +
			"one with --state FILE, one with --redis URL (state store, quota counters and buckets in Redis); same requests, interleaved wrk rounds; " +
			"redis-server unpinned with appendonly everysec; its CPU and INFO commandstats over all rounds"}
	if n > 1 {
		f.Method = fmt.Sprintf("as the one-key comparison, with %d metered Elite keys created by benchedge --make-keys, one per request line in turn (wrk), "+
			"on the wall clock (--clock-step 0): each key within its rate and quota, as real traffic", n)
	}
	if r.Requests > 0 {
		f.ServerCPUUsPerCharge = round2(float64((cpu1.Total()-cpu0.Total())/time.Microsecond) / float64(r.Requests))
	}
	if runs, err := evalCalls(ctx, rc); err == nil && runs > 0 {
		f.ChargesPerRoundTrip = round2(float64(r.Requests) / float64(runs))
	}
	return f, nil
}

// warmKeys is warm with the Authorization values auth in turn, 50 distinct
// paths each (within an Elite key's burst on the wall clock).
func (h *harness) warmKeys(ctx context.Context, addr string, auth []string, paths []string) (map[string][]byte, []badRequest, error) {
	if len(auth) == 1 {
		return h.warm(ctx, addr, []string{"Authorization", auth[0]}, paths)
	}
	uniq := slices.Clone(paths)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	bodies := make(map[string][]byte, len(uniq))
	var bad []badRequest
	for i := 0; i < len(uniq); i += 50 {
		b, bd, err := h.warm(ctx, addr, []string{"Authorization", auth[(i/50)%len(auth)]}, uniq[i:min(i+50, len(uniq))])
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(bodies, b)
		bad = append(bad, bd...)
	}
	return bodies, bad, nil
}

// makeKeys creates n metered Elite keys in the store that flag names
// (benchedge --make-keys) and returns their secrets.
func (h *harness) makeKeys(ctx context.Context, n int, flag, value string) ([]string, error) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out := filepath.Join(h.work, fmt.Sprintf("keys-%d%s.txt", n, flag))
	b, err := exec.CommandContext(cctx, filepath.Join(h.cfg.Bin, "benchedge"), "--snapshots", h.cfg.Snapshots, flag, value,
		"--make-keys", strconv.Itoa(n), "--keys-out", out).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("benchedge --make-keys %d %s: %v\n%s", n, flag, err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	keys := strings.Fields(string(data))
	if len(keys) != n {
		return nil, fmt.Errorf("benchedge --make-keys %d %s wrote %d keys", n, flag, len(keys))
	}
	return keys, nil
}

// meteredKey creates a metered Elite key in the store that flag names.
func (h *harness) meteredKey(ctx context.Context, flag, value string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, filepath.Join(h.cfg.Bin, "cardedge"), "keys", "create", flag, value,
		"--tier", "elite", "--name", "cardbench shared").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cardedge keys create %s: %v\n%s", flag, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

func waitRedis(ctx context.Context, c *redis.Client) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := c.Ping(ctx).Err()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// evalCalls returns how many scripts ran (EVALSHA and EVAL) since the
// statistics were reset.
func evalCalls(ctx context.Context, c *redis.Client) (int64, error) {
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok || (name != "cmdstat_evalsha" && name != "cmdstat_eval") {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		x, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			return 0, errors.New("INFO commandstats: " + line)
		}
		n += x
	}
	return n, nil
}

func (h *harness) printShared() {
	s := h.report.Shared
	if s == nil {
		return
	}
	fmt.Fprintf(h.out, "\n-- shared state on a keyed cached hit (%d conns): edge CPU per request %.2f us with Redis vs %.2f us with a state file = %+.0f%% (target <= %+.0f%%); "+
		"%s vs %s req/s; redis-server %.2f us per charge, %.1f charges per round trip\n",
		s.Conns, s.RedisCPUUs, s.LocalCPUUs, 100*s.Overhead, 100*s.Target, f0(s.RedisRPS), f0(s.LocalRPS), s.ServerCPUUsPerCharge, s.ChargesPerRoundTrip)
	if m := s.Many; m != nil {
		fmt.Fprintf(h.out, "-- the same over %d metered keys in turn, wall clock (%d conns): edge CPU per request %.2f us with Redis vs %.2f us with a state file = %+.0f%% (target <= %+.0f%%); "+
			"%s vs %s req/s; redis-server %.2f us per charge, %.1f charges per round trip\n",
			m.Keys, m.Conns, m.RedisCPUUs, m.LocalCPUUs, 100*m.Overhead, 100*m.Target, f0(m.RedisRPS), f0(m.LocalRPS), m.ServerCPUUsPerCharge, m.ChargesPerRoundTrip)
	}
}
