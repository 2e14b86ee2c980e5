package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/snapshots"
)

// SwapFigs are the figures of a snapshot published under load.
type SwapFigs struct {
	Preset      string  `json:"preset"`
	RatePerSec  float64 `json:"rate_per_sec"`
	OldSnapshot string  `json:"old_snapshot"`
	NewSnapshot string  `json:"new_snapshot"`
	Build       string  `json:"build_command"`
	BuildSecs   float64 `json:"build_seconds"`
	// PublishToServeSecs is the time from the build's end (CURRENT replaced)
	// to /health naming the new snapshot (poll, verify, open, swap).
	PublishToServeSecs float64          `json:"publish_to_serve_seconds"`
	SwapSeen           bool             `json:"swap_seen"`
	Requests           int64            `json:"requests"`
	Failed             int64            `json:"failed"`
	FailedKinds        map[string]int64 `json:"failed_kinds,omitempty"`
	Baseline           load.Figures     `json:"baseline"`
	DuringBuild        load.Figures     `json:"during_build"`
	SwapWindow         load.Figures     `json:"swap_window"`
	After              load.Figures     `json:"after"`
	BumpP99            float64          `json:"bump_p99"`
	BumpMax            float64          `json:"bump_max"`
	Note               string           `json:"note"`
}

// buildEstimate is the expected wall time of a build of preset on this
// machine, from the benchmark snapshot's manifest.
func (h *harness) buildEstimate(preset string) time.Duration {
	base := 110.0 // default preset, seconds, 2 cores
	if s := h.report.Snapshot; s != nil && s.BuildSeconds > 0 {
		switch s.Preset {
		case "default":
			base = s.BuildSeconds
		case "tiny":
			base = s.BuildSeconds * 25
		}
	}
	switch preset {
	case "tiny":
		return time.Duration(max(5, base/25) * float64(time.Second))
	case "large":
		// measured: 310 s against the default's 56 s in the same harness
		return time.Duration(base * 6 * float64(time.Second))
	}
	return time.Duration(base * float64(time.Second))
}

// runSwap publishes a new snapshot (cardbuild build into the edge's
// snapshots root) while an open-loop read mix runs against the cached edge.
func (h *harness) runSwap(ctx context.Context) error {
	// Other edges watch the same root: they would verify and open the new
	// snapshot on the same CPU at the same moment.
	h.stopServer(h.nocache)
	h.stopServer(h.benchE)
	h.nocache, h.benchE = nil, nil
	p := h.plan
	est := h.buildEstimate(h.cfg.Preset)
	// Under load the build shares the CPUs and takes longer.
	need := p.swapBase + p.swapTail + est*2 + 10*time.Second
	if h.remaining() < need {
		h.skip("swap", fmt.Sprintf("needs about %s (a %s build under load), %s of the budget left", need.Round(time.Second), h.cfg.Preset, h.remaining().Round(time.Second)))
		return nil
	}
	old, err := snapshots.ReadCurrent(h.cfg.Snapshots)
	if err != nil {
		return err
	}
	m, err := snapshots.ReadManifest(filepath.Join(h.cfg.Snapshots, old))
	if err != nil {
		return err
	}
	seed := "2"
	if m.Seed == 2 {
		seed = "1"
	}
	auth := []string{"Authorization", "Bearer " + h.eliteKey}
	paths := h.cat.mixPaths(p.listLen, 1)
	if bodies, bad, err := h.warm(ctx, h.cached.addr, auth, paths); err != nil {
		return err
	} else if paths, err = h.checked("swap mix", paths, bodies, bad); err != nil {
		return err
	}
	span := p.swapBase + 2*est + p.swapTail + 60*time.Second
	span = min(span, h.remaining()-15*time.Second)
	n := int(p.swapRate * span.Seconds())
	shots := make([]load.Shot, n)
	for i := range shots {
		shots[i] = load.Shot{At: time.Duration(float64(i) / p.swapRate * float64(time.Second)), Path: paths[i%len(paths)], Headers: auth}
	}
	argv := []string{filepath.Join(h.cfg.Bin, "cardbuild"), "build", "--out", h.cfg.Snapshots, "--preset", h.cfg.Preset,
		"--seed", seed, "--keep", "2", "--quiet", "--catalog", filepath.Join(h.cfg.Root, "builder", "catalog")}
	// The build runs unpinned at normal priority, as a nightly build next
	// to the edge would: "during build" shows what it costs the edge; the
	// swap window starts once it has published (the edge then verifies and
	// opens the new snapshot while serving). Idle priority would keep the
	// build off the edge's CPU on an idle machine, but starves it on one
	// busy with other work (a shared development machine).
	note := "the build runs unpinned at normal priority (it competes with the edge during the build window); the swap window starts at its publication"
	h.logf("swap: read mix at %.0f req/s (open loop) on the cached edge; publishing a new %s snapshot (seed %s) after %s", p.swapRate, h.cfg.Preset, seed, p.swapBase)
	genCtx, stopGen := context.WithCancel(ctx)
	defer stopGen()
	t0 := time.Now()
	var samples []load.Sample
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		samples = load.OpenLoop{Addr: h.cached.addr, MaxConns: 512, Timeout: 5 * time.Second, Grace: 5 * time.Second}.Run(genCtx, shots)
	}()
	// Watch /health for the new snapshot id.
	var seenMu sync.Mutex
	var seenAt time.Duration
	newID := ""
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-genCtx.Done():
				return
			case <-tick.C:
			}
			d, err := health(h.cached.addr)
			if err == nil && d.SnapshotID != old {
				seenMu.Lock()
				if seenAt == 0 {
					seenAt, newID = time.Since(t0), d.SnapshotID
				}
				seenMu.Unlock()
			}
		}
	}()
	sleepCtx(ctx, p.swapBase)
	buildStart := time.Since(t0)
	bctx, cancel := context.WithTimeout(ctx, span-p.swapBase)
	cmd := exec.CommandContext(bctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	buildErr := cmd.Run()
	cancel()
	buildEnd := time.Since(t0)
	if buildErr == nil {
		// Wait for the edge to serve it (poll 1 s + verify + open), bounded.
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			seenMu.Lock()
			seen := seenAt
			seenMu.Unlock()
			if seen > 0 {
				break
			}
			sleepCtx(ctx, 100*time.Millisecond)
		}
		sleepCtx(ctx, 2*time.Second+p.swapTail)
	}
	stopGen()
	wg.Wait()
	if buildErr != nil {
		return fmt.Errorf("cardbuild during the swap (%s): %v\n%s", strings.Join(argv, " "), buildErr, stderr.String())
	}
	s := &SwapFigs{Preset: h.cfg.Preset, RatePerSec: p.swapRate, OldSnapshot: old, Build: strings.Join(argv, " "),
		BuildSecs: round2((buildEnd - buildStart).Seconds()), Note: note}
	s.NewSnapshot = filepath.Base(strings.TrimSpace(lastLine(stdout.String())))
	if seenAt > 0 {
		s.SwapSeen = true
		s.PublishToServeSecs = round2((seenAt - buildEnd).Seconds())
		if newID != s.NewSnapshot {
			s.Note += fmt.Sprintf("; /health names %s, cardbuild printed %s", newID, s.NewSnapshot)
		}
	} else {
		s.Note += "; the edge did not serve the new snapshot within 2 minutes of its publication"
		seenAt = buildEnd
	}
	swapEnd := seenAt + 2*time.Second
	all := load.Summarize(samples, 0, 0)
	s.Requests, s.Failed, s.FailedKinds = all.Requests, all.Errors, all.ErrorKinds
	s.Baseline = load.Summarize(samples, 0, buildStart)
	s.DuringBuild = load.Summarize(samples, buildStart, buildEnd)
	s.SwapWindow = load.Summarize(samples, buildEnd, swapEnd)
	s.After = load.Summarize(samples, swapEnd, 0)
	s.BumpP99 = round3(load.Ratio(s.SwapWindow.P99Ms, s.Baseline.P99Ms))
	s.BumpMax = round3(load.Ratio(s.SwapWindow.MaxMs, s.Baseline.MaxMs))
	h.report.Swap = s
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (h *harness) printSwap() {
	s := h.report.Swap
	if s == nil {
		return
	}
	w := h.out
	fmt.Fprintf(w, "\n-- swap under load: %s -> %s (%s, built in %.0fs under load; served %.1fs after publication), read mix at %.0f req/s open loop\n",
		s.OldSnapshot, s.NewSnapshot, s.Preset, s.BuildSecs, s.PublishToServeSecs, s.RatePerSec)
	fmt.Fprintf(w, "   failed requests: %d of %d %v; p99 bump (swap window / baseline) x%.2f, max x%.2f\n", s.Failed, s.Requests, s.FailedKinds, s.BumpP99, s.BumpMax)
	for _, x := range []struct {
		name string
		f    load.Figures
	}{{"baseline", s.Baseline}, {"during build", s.DuringBuild}, {"swap window", s.SwapWindow}, {"after", s.After}} {
		fmt.Fprintf(w, "   %-13s %7d req  p50 %6s ms  p99 %6s ms  p99.9 %6s ms  max %6s ms  errors %d\n", x.name, x.f.Requests,
			f2(x.f.P50Ms), f2(x.f.P99Ms), f2(x.f.P999Ms), f2(x.f.MaxMs), x.f.Errors)
	}
	fmt.Fprintf(w, "   %s\n", s.Note)
}

// runBuild times the nightly build of the benchmark preset (and large in
// full mode with --large, when the budget allows), with nothing else
// running.
func (h *harness) runBuild(ctx context.Context) error {
	h.stopAll()
	presets := []string{h.cfg.Preset}
	if h.cfg.Mode == "full" {
		if h.cfg.Large {
			presets = append(presets, "large")
		} else {
			h.skip("build large", fmt.Sprintf("not in the %s budget (estimated %s here); pass --large --budget 40m to time it", h.plan.budget, h.buildEstimate("large").Round(time.Minute)))
		}
	}
	for _, preset := range presets {
		if b := h.builtNow; b != nil && b.Preset == preset {
			h.logf("nightly build: %s preset: the snapshot built at the start of this run (%.0fs)", preset, b.WallSeconds)
			h.report.Builds = append(h.report.Builds, *b)
			continue
		}
		est := h.buildEstimate(preset)
		if h.remaining() < est*13/10 {
			h.skip("build "+preset, fmt.Sprintf("estimated %s, %s of the budget left", est.Round(time.Second), h.remaining().Round(time.Second)))
			continue
		}
		h.logf("nightly build: %s preset (estimated %s)", preset, est.Round(time.Second))
		b, err := h.nightly(ctx, preset)
		if err != nil {
			return err
		}
		h.report.Builds = append(h.report.Builds, b)
	}
	return nil
}

func (h *harness) nightly(ctx context.Context, preset string) (BuildFigure, error) {
	out := filepath.Join(h.work, "nightly-"+preset)
	defer os.RemoveAll(out)
	bctx, cancel := context.WithDeadline(ctx, h.deadline)
	defer cancel()
	cmd := exec.CommandContext(bctx, filepath.Join(h.cfg.Bin, "cardbuild"), "build", "--out", out, "--preset", preset, "--seed", "1",
		"--keep", "1", "--id", "nightly", "--quiet", "--catalog", filepath.Join(h.cfg.Root, "builder", "catalog"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return BuildFigure{}, fmt.Errorf("cardbuild build --preset %s: %v\n%s", preset, err, stderr.String())
	}
	b := BuildFigure{Preset: preset, WallSeconds: round2(time.Since(start).Seconds()), PeakRSSMiB: round2(float64(rusage(cmd)) / 1024),
		Note: "unpinned (both CPUs), nothing else of the harness running"}
	dir := filepath.Join(out, "nightly")
	size, err := allocated(dir)
	if err != nil {
		return b, err
	}
	b.SizeMiB = round2(float64(size) / (1 << 20))
	if m, err := snapshots.ReadManifest(dir); err == nil {
		b.Cards, b.Sales = m.Counts["cards"], m.Counts["sales"]
	}
	return b, nil
}

// allocated returns the bytes allocated to the files below dir.
func allocated(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		} else {
			n += info.Size()
		}
		return nil
	})
	return n, err
}
