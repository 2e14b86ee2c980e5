package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/snapshots"
)

// server is one process under load: an edge or a reference.
type server struct {
	name string
	addr string // 127.0.0.1:port
	proc *load.Proc
}

type harness struct {
	cfg      Config
	plan     plan
	out      io.Writer
	started  time.Time
	deadline time.Time
	work     string
	report   *Report
	failed   bool

	wrk, nginx string
	cat        *catalog
	eliteKey   string // unmetered Elite key: the read mix, card detail, typeahead, MCP
	freeKey    string // unmetered Free key: the access comparison (same window as Playground)

	servers []*server
	cached  *server // cardedge --cache-mb 256
	nocache *server // cardedge --cache-mb 0
	benchE  *server // benchedge (access comparison)

	lookupOK  bool
	mcpOK     bool
	probeErrs []error      // routes that answer their probe with neither 200 nor 404
	builtNow  *BuildFigure // the benchmark snapshot's build, when this run made it
}

func newHarness(cfg Config, out io.Writer) (*harness, error) {
	p := planFor(cfg)
	now := time.Now()
	h := &harness{cfg: cfg, plan: p, out: out, started: now, deadline: now.Add(p.budget)}
	h.report = &Report{Tool: "cardbench", Mode: cfg.Mode, Started: now.UTC().Format(time.RFC3339), Machine: machineInfo()}
	h.report.Commit, h.report.Dirty = commit(cfg.Root)
	return h, nil
}

func (h *harness) logf(format string, args ...any) {
	fmt.Fprintf(h.out, "[%5.1fs] %s\n", time.Since(h.started).Seconds(), fmt.Sprintf(format, args...))
}

// remaining is the budget left.
func (h *harness) remaining() time.Duration { return time.Until(h.deadline) }

// skip records a workload left out and says why.
func (h *harness) skip(name, why string) {
	h.report.Skipped = append(h.report.Skipped, name+": "+why)
	h.logf("SKIPPED %s: %s", name, why)
}

// Run runs every selected workload, then prints and writes the report.
func (h *harness) Run(ctx context.Context) error {
	if err := h.prepare(ctx); err != nil {
		return err
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"carddetail", h.runCardDetail},
		{"access", h.runAccess},
		{"shared", h.runShared},
		{"mix", h.runMix},
		{"typeahead", h.runTypeahead},
		{"lookup", h.runLookup},
		{"search", h.runSearch},
		{"mcp", h.runMCP},
		{"swap", h.runSwap},
		{"pull", h.runPull},
		{"build", h.runBuild},
	}
	errs := append([]error(nil), h.probeErrs...)
	for _, s := range steps {
		if !h.cfg.Only[s.name] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.run(ctx); err != nil {
			h.logf("FAILED %s: %v", s.name, err)
			h.report.Failures = append(h.report.Failures, s.name+": "+err.Error())
			errs = append(errs, fmt.Errorf("%s: %w", s.name, err))
			if ctx.Err() != nil {
				break
			}
		}
	}
	h.stopAll()
	h.report.Machine.LoadAvgEnd = loadAvg()
	h.report.Finished = time.Now().UTC().Format(time.RFC3339)
	h.report.WallSeconds = round2(time.Since(h.started).Seconds())
	h.printTable()
	path, err := h.writeReport()
	if err != nil {
		errs = append(errs, err)
	} else {
		h.logf("report: %s", path)
	}
	if len(errs) > 0 {
		h.failed = true
	}
	return errors.Join(errs...)
}

// Close stops every child and removes the work directory (kept on failure
// or with --keep-work).
func (h *harness) Close() {
	h.stopAll()
	if h.work == "" {
		return
	}
	if h.failed || h.cfg.KeepWork {
		fmt.Fprintf(h.out, "work directory kept: %s (logs, state, request lists)\n", h.work)
		return
	}
	os.RemoveAll(h.work)
}

// prepare checks the tools, pins this process, builds or reuses the
// snapshot, reads its catalog, creates the keys and starts the edges.
func (h *harness) prepare(ctx context.Context) error {
	h.logf("cardbench %s mode, budget %s, commit %.12s%s, load average %s", h.cfg.Mode, h.plan.budget, h.report.Commit,
		map[bool]string{true: " (dirty)"}[h.report.Dirty], h.report.Machine.LoadAvgStart)
	for _, b := range []string{"cardedge", "cardbuild", "ceiling", "benchedge"} {
		if _, err := os.Stat(filepath.Join(h.cfg.Bin, b)); err != nil {
			return fmt.Errorf("%s is missing in %s: run make build and go build -o bin/%s ./cmd/... (make bench does it)", b, h.cfg.Bin, b)
		}
	}
	if h.cfg.EdgeCPU >= 0 {
		if runtime.NumCPU() < 2 || max(h.cfg.EdgeCPU, h.cfg.LoadCPU) >= runtime.NumCPU() {
			return fmt.Errorf("pinning needs CPUs %d and %d, this machine has %d: pass --edge-cpu -1 to run unpinned", h.cfg.EdgeCPU, h.cfg.LoadCPU, runtime.NumCPU())
		}
		if findTool("taskset") == "" {
			return errors.New("taskset is missing (Debian package util-linux): install it or pass --edge-cpu -1")
		}
		if err := load.PinSelf(h.cfg.LoadCPU); err != nil {
			return err
		}
		runtime.GOMAXPROCS(1)
		h.report.Pinning = fmt.Sprintf("servers (cardedge, benchedge, ceiling, nginx) pinned to CPU %d with taskset; wrk (one thread) and cardbench's own Go generators pinned to CPU %d; builds unpinned", h.cfg.EdgeCPU, h.cfg.LoadCPU)
	} else {
		h.report.Pinning = "none (--edge-cpu -1): servers and generators share every CPU"
	}
	if h.cfg.Nice != 0 {
		if err := load.NiceSelf(h.cfg.Nice); err != nil {
			return fmt.Errorf("--nice %d: %w", h.cfg.Nice, err)
		}
		h.report.Pinning += fmt.Sprintf("; servers, wrk and the harness at nice %d", h.cfg.Nice)
	}
	h.logf("pinning: %s", h.report.Pinning)
	h.report.Generators = "throughput: wrk -t1 (closed loop, pre-formatted requests cycled by a Lua script, the same list against every target); " +
		"latency at a given rate (typeahead, swap): cardbench's open-loop generator, latency counted from each request's scheduled time (no coordinated omission); " +
		"MCP: closed-loop agents (each waits for its answer)"
	var err error
	if h.wrk, err = ensureTool(ctx, "wrk", []string{"wrk"}, h.cfg.NoInstall, h.logf); err != nil {
		return err
	}
	h.report.Machine.Wrk = toolVersion(h.wrk, "-v")
	if !h.cfg.NoNginx {
		if h.nginx, err = ensureTool(ctx, "nginx", []string{"nginx-light", "nginx"}, h.cfg.NoInstall, h.logf); err != nil {
			return fmt.Errorf("%w (or pass --no-nginx)", err)
		}
		h.report.Machine.Nginx = toolVersion(h.nginx, "-v")
	}
	if err := os.MkdirAll(h.cfg.Out, 0o755); err != nil {
		return err
	}
	if h.work, err = os.MkdirTemp(h.cfg.Out, "work-"); err != nil {
		return err
	}
	if err := h.ensureSnapshot(ctx); err != nil {
		return err
	}
	if h.cat, err = readCatalog(h.cfg.Snapshots); err != nil {
		return fmt.Errorf("read the snapshot's catalog: %w", err)
	}
	h.logf("catalog: %d cards, %d sets, %d distinct names", len(h.cat.cards), len(h.cat.sets), len(h.cat.names))
	state := filepath.Join(h.work, "state.bolt")
	if h.eliteKey, err = h.createKey(ctx, state, "elite", "cardbench elite"); err != nil {
		return err
	}
	if h.freeKey, err = h.createKey(ctx, state, "free", "cardbench access"); err != nil {
		return err
	}
	for _, w := range []string{"carddetail", "access", "mix", "typeahead", "lookup", "search", "mcp", "swap"} {
		if h.cfg.Only[w] {
			return h.startEdges(ctx, state)
		}
	}
	return nil
}

// snapshotFormatOK reports whether the snapshot in dir has the format
// version this code reads (a snapshot of an older checkout is rebuilt).
func snapshotFormatOK(dir string) bool {
	m, err := snapshots.ReadManifest(dir)
	return err == nil && m.FormatVersion == snapshots.FormatVersion
}

// ensureSnapshot reuses the benchmark snapshot or builds it (again when its
// format is not the one this code reads).
func (h *harness) ensureSnapshot(ctx context.Context) error {
	root := h.cfg.Snapshots
	s := &SnapshotInfo{Root: root, Preset: h.cfg.Preset}
	h.report.Snapshot = s
	if current, err := snapshots.ReadCurrent(root); err == nil && snapshotFormatOK(filepath.Join(root, current)) {
		s.Reused = true
	} else {
		if err == nil {
			h.logf("%s/%s was written by another snapshot format version: building a new one", root, current)
		}
		h.logf("building the %s snapshot into %s (once; later runs reuse it)", h.cfg.Preset, root)
		start := time.Now()
		bctx, cancel := context.WithDeadline(ctx, h.deadline)
		defer cancel()
		cmd := exec.CommandContext(bctx, filepath.Join(h.cfg.Bin, "cardbuild"), "build", "--out", root, "--preset", h.cfg.Preset,
			"--seed", "1", "--quiet", "--catalog", filepath.Join(h.cfg.Root, "builder", "catalog"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("cardbuild build --preset %s --out %s: %v\n%s", h.cfg.Preset, root, err, stderr.String())
		}
		s.BuiltNowSeconds = round2(time.Since(start).Seconds())
		// This build is a nightly build of the preset with nothing else of
		// the harness running: the build workload reports it instead of
		// building once more.
		h.builtNow = &BuildFigure{Preset: h.cfg.Preset, WallSeconds: s.BuiltNowSeconds, PeakRSSMiB: round2(float64(rusage(cmd)) / 1024),
			Note: "the benchmark snapshot's own build at the start of this run (unpinned, nothing else of the harness running)"}
	}
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		return err
	}
	m, err := snapshots.ReadManifest(filepath.Join(root, id))
	if err != nil {
		return err
	}
	if m.Preset != h.cfg.Preset {
		return fmt.Errorf("%s holds a %q snapshot, want %q: remove it or pass --snapshots", root, m.Preset, h.cfg.Preset)
	}
	s.ID, s.AsOf, s.Seed, s.Counts, s.BuildSeconds = m.SnapshotID, m.AsOf, m.Seed, m.Counts, m.BuildSeconds
	if b := h.builtNow; b != nil {
		b.Cards, b.Sales = m.Counts["cards"], m.Counts["sales"]
		if size, err := allocated(filepath.Join(root, id)); err == nil {
			b.SizeMiB = round2(float64(size) / (1 << 20))
		}
	}
	h.logf("snapshot %s (%s, seed %d, %d cards, %d sales, reused %v)", s.ID, s.Preset, s.Seed, m.Counts["cards"], m.Counts["sales"], s.Reused)
	return nil
}

// createKey creates an unmetered key with `cardedge keys create` and
// returns its secret (the last line printed).
func (h *harness) createKey(ctx context.Context, state, tier, name string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, filepath.Join(h.cfg.Bin, "cardedge"), "keys", "create", "--state", state,
		"--tier", tier, "--name", name, "--unmetered").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cardedge keys create --tier %s --unmetered: %v\n%s", tier, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// start starts a server pinned to the edge CPU and waits for path to answer.
func (h *harness) start(ctx context.Context, name, readyPath string, argv func(addr string) []string) (*server, error) {
	addr, err := load.FreePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(h.work, strings.ReplaceAll(name, " ", "-")+".log")
	p, err := load.Start(name, logPath, load.Niced(h.cfg.Nice, load.Pinned(h.cfg.EdgeCPU, argv(addr)...)...)...)
	if err != nil {
		return nil, err
	}
	s := &server{name: name, addr: addr, proc: p}
	h.servers = append(h.servers, s)
	if err := p.WaitHTTP(ctx, addr, readyPath, h.plan.startLimit); err != nil {
		return nil, err
	}
	return s, nil
}

func (h *harness) edgeArgv(state string, cacheMB int) func(string) []string {
	return func(addr string) []string {
		return []string{filepath.Join(h.cfg.Bin, "cardedge"), "serve", "--snapshots", h.cfg.Snapshots, "--state", state,
			"--addr", addr, "--cache-mb", fmt.Sprint(cacheMB), "--log-level", "warn"}
	}
}

// startEdges starts the cached and uncached edges (and benchedge when the
// access comparison runs) and probes the routes that may not be mounted.
func (h *harness) startEdges(ctx context.Context, state string) error {
	start := time.Now()
	var err error
	if h.cached, err = h.start(ctx, "cardedge cached", "/health", h.edgeArgv(state, 256)); err != nil {
		return err
	}
	needUncached := h.cfg.Only["carddetail"] || h.cfg.Only["mix"] || h.cfg.Only["typeahead"] || h.cfg.Only["lookup"] || h.cfg.Only["search"]
	if needUncached {
		if h.nocache, err = h.start(ctx, "cardedge uncached", "/health", h.edgeArgv(state, 0)); err != nil {
			return err
		}
	}
	if h.cfg.Only["access"] {
		argv := func(addr string) []string {
			return []string{filepath.Join(h.cfg.Bin, "benchedge"), "--snapshots", h.cfg.Snapshots, "--state", state, "--addr", addr}
		}
		if h.benchE, err = h.start(ctx, "benchedge", "/health", argv); err != nil {
			return err
		}
	}
	h.logf("edges up in %.1fs (each verifies the snapshot before serving)", time.Since(start).Seconds())
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	top := h.cat.cards[0]
	probe := "/api/v3/cards/" + top.ID + "?include=" + cardDetailInclude + h.cat.gameQuery(top.Game, false)
	if st, body, err := load.Get(h.cached.addr, probe, auth, 10*time.Second); err != nil || st != 200 {
		return fmt.Errorf("the edge does not answer card detail (GET %s: status %d, %v): %.300s", probe, st, err, body)
	}
	q := []rune(h.cat.names[0].name)
	lookup := "/api/v3/lookup?q=" + url.QueryEscape(string(q[:min(3, len(q))])) + "&limit=10" + h.cat.gameQuery(h.cat.names[0].game, false)
	st, body, err := load.Get(h.cached.addr, lookup, auth, 10*time.Second)
	h.lookupOK = err == nil && st == 200
	if !h.lookupOK {
		h.probeFailed("typeahead", fmt.Sprintf("GET %s answers %d (%v): %.160s", lookup, st, err, body), st)
	}
	init := mcpInitialize(1)
	st, body, err = load.Do(h.cached.addr, "POST", "/api/v3/mcp/", append(auth, "Content-Type", "application/json", "Accept", "application/json, text/event-stream"), init, 10*time.Second)
	h.mcpOK = err == nil && st == 200
	if !h.mcpOK {
		h.probeFailed("mcp", fmt.Sprintf("POST /api/v3/mcp/ initialize answers %d (%v): %.160s", st, err, body), st)
	}
	return nil
}

// probeFailed records a route that does not answer its probe: not
// available when it is not mounted (404), a failure of the run otherwise.
func (h *harness) probeFailed(workload, what string, status int) {
	if status == 404 {
		h.report.NotAvailable = append(h.report.NotAvailable, workload+": "+what)
		return
	}
	h.report.Failures = append(h.report.Failures, workload+": probe: "+what)
	h.probeErrs = append(h.probeErrs, fmt.Errorf("%s: probe: %s", workload, what))
}

// stopServer stops one server and forgets it.
func (h *harness) stopServer(s *server) {
	if s == nil {
		return
	}
	s.proc.Stop(15 * time.Second)
	for i, x := range h.servers {
		if x == s {
			h.servers = append(h.servers[:i], h.servers[i+1:]...)
			break
		}
	}
}

func (h *harness) stopAll() {
	for len(h.servers) > 0 {
		h.stopServer(h.servers[len(h.servers)-1])
	}
	h.cached, h.nocache, h.benchE = nil, nil, nil
}

// health returns the edge's /health document.
func health(addr string) (healthDoc, error) {
	var d healthDoc
	st, body, err := load.Get(addr, "/health", nil, 5*time.Second)
	if err != nil {
		return d, err
	}
	if st != 200 {
		return d, fmt.Errorf("/health: status %d", st)
	}
	return d, json.Unmarshal(body, &d)
}

type healthDoc struct {
	SnapshotID string `json:"snapshot_id"`
	Cache      struct {
		Hits   int64 `json:"hits"`
		Misses int64 `json:"misses"`
	} `json:"cache"`
}

// rusage returns the peak RSS (KiB) of a finished command.
func rusage(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
