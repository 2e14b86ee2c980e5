package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
}

// runShared: the cost of shared state on a keyed cached read (issue 22):
// benchedge with --state FILE against benchedge with --redis URL, the same
// card-detail requests with a metered Elite key (charged on every request,
// never refused: the access clock moves 10 s per reading), interleaved wrk
// rounds; redis-server (its own, appendonly everysec as the README asks)
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

	file := filepath.Join(h.work, "shared-state.bolt")
	localKey, err := h.meteredKey(ctx, "--state", file)
	if err != nil {
		return err
	}
	redisKey, err := h.meteredKey(ctx, "--redis", url)
	if err != nil {
		return err
	}
	argv := func(flag, value string) func(string) []string {
		return func(addr string) []string {
			return []string{filepath.Join(h.cfg.Bin, "benchedge"), "--snapshots", h.cfg.Snapshots, flag, value,
				"--addr", addr, "--clock-step", "10s"}
		}
	}
	local, err := h.start(ctx, "benchedge state file", "/health", argv("--state", file))
	if err != nil {
		return err
	}
	defer h.stopServer(local)
	shared, err := h.start(ctx, "benchedge redis", "/health", argv("--redis", url))
	if err != nil {
		return err
	}
	defer h.stopServer(shared)

	h.logf("shared state: keyed (metered Elite) cached card detail, state file vs Redis, at %d connections", h.plan.cardConns)
	paths := h.cat.cardDetailPaths(h.plan.listLen, 1)
	lh := []string{"Authorization", "Bearer " + localKey}
	sh := []string{"Authorization", "Bearer " + redisKey}
	bodiesL, badL, err := h.warm(ctx, local.addr, lh, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("shared (state file)", paths, bodiesL, badL); err != nil {
		return err
	}
	bodiesR, badR, err := h.warm(ctx, shared.addr, sh, paths)
	if err != nil {
		return err
	}
	if paths, err = h.checked("shared (redis)", paths, bodiesR, badR); err != nil {
		return err
	}
	pathsFile, err := h.writePaths("shared", paths)
	if err != nil {
		return err
	}
	g := &Group{Name: "shared state", Workload: "card detail on benchedge (cached), metered Elite key: state file vs Redis",
		Conns: h.plan.cardConns, Distinct: distinct(paths)}
	h.report.Groups = append(h.report.Groups, g)
	if err := rc.ConfigResetStat(ctx).Err(); err != nil {
		return err
	}
	cpu0, _ := cpuTime(rs.Pid())
	err = h.compare(ctx, g, pathsFile, []target{
		{name: "state file", role: "edge", srv: local, headers: lh},
		{name: "redis", role: "edge", srv: shared, headers: sh},
	})
	if err != nil {
		return err
	}
	cpu1, _ := cpuTime(rs.Pid())
	l, r := g.Results[0], g.Results[1]
	if r.Errors > 0 || l.Errors > 0 {
		return fmt.Errorf("shared state: %d and %d requests failed (state file, redis): %v %v", l.Errors, r.Errors, l.ErrorKinds, r.ErrorKinds)
	}
	f := &SharedFigs{Workload: g.Workload, Conns: g.Conns, LocalCPUUs: l.ServerCPUUsPerReq, RedisCPUUs: r.ServerCPUUsPerReq,
		Overhead: round3(load.Ratio(r.ServerCPUUsPerReq, l.ServerCPUUsPerReq) - 1), Target: 0.2, LocalRPS: l.RPS, RedisRPS: r.RPS,
		Method: "benchedge (the real edge and access layer; its access clock moves 10 s per reading so a metered Elite key is charged on every request and never refused), " +
			"one with --state FILE, one with --redis URL (state store, quota counters and buckets in Redis); same requests, interleaved wrk rounds; " +
			"redis-server unpinned with appendonly everysec; its CPU and INFO commandstats over all rounds"}
	if r.Requests > 0 {
		f.ServerCPUUsPerCharge = round2(float64((cpu1.Total()-cpu0.Total())/time.Microsecond) / float64(r.Requests))
	}
	if runs, err := evalCalls(ctx, rc); err == nil && runs > 0 {
		f.ChargesPerRoundTrip = round2(float64(r.Requests) / float64(runs))
	}
	h.report.Shared = f
	return nil
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
}
