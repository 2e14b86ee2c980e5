package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/snapshots"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
	"github.com/cardedge/cardedge/snapshots/s3/s3test"
)

// PullFigs are issue 22's figures of one replica fed from S3: publishing,
// the first fetch (download and verify at full speed, before anything is
// served), and a swap under a fixed-rate read mix (the new snapshot fetched
// and verified paced, beside the live one, then opened and swapped).
type PullFigs struct {
	Snapshot   string  `json:"snapshot"`
	SizeGiB    float64 `json:"size_gib"`
	Server     string  `json:"s3_server"`
	PublishSec float64 `json:"publish_seconds"`
	// FirstFetchSec and FirstFetchSecPerGiB: the replica's first fetch
	// (unpaced), from its /metrics.
	FirstFetchSec       float64 `json:"first_fetch_seconds"`
	FirstFetchSecPerGiB float64 `json:"first_fetch_seconds_per_gib"`
	// StartToReadySec is the replica's start to /ready: fetch, open, warm.
	StartToReadySec float64 `json:"start_to_ready_seconds"`
	// The swap: SwapShare of one CPU for fetching and verifying.
	RatePerSec          float64          `json:"rate_per_sec"`
	SwapShare           float64          `json:"swap_share"`
	PublishBSec         float64          `json:"publish_b_seconds"`
	PublishToServeSec   float64          `json:"publish_to_serve_seconds"`
	PacedFetchSec       float64          `json:"paced_fetch_seconds"`
	PacedFetchSecPerGiB float64          `json:"paced_fetch_seconds_per_gib"`
	Requests            int64            `json:"requests"`
	Failed              int64            `json:"failed"`
	FailedKinds         map[string]int64 `json:"failed_kinds,omitempty"`
	Before              load.Figures     `json:"before"`
	Publishing          load.Figures     `json:"publishing"`
	Swap                load.Figures     `json:"swap"`
	After               load.Figures     `json:"after"`
	BumpP99             float64          `json:"bump_p99"`
	// P99BySecond is the p99 (ms) of the requests scheduled in each second
	// of the run; Marks the seconds at which publishing started and ended,
	// the fetch ended (the replica's log) and the new snapshot was served.
	P99BySecond []float64          `json:"p99_ms_by_second"`
	Marks       map[string]float64 `json:"marks_seconds"`
	// Phases is where the swap's latency went: the load and the garbage
	// collections of each phase the replica's log dates (swapphases.go);
	// LongestUnpacedMs the longest stretch the paced opening ran without
	// a pause.
	Phases           []SwapPhase `json:"phases,omitempty"`
	LongestUnpacedMs float64     `json:"longest_unpaced_ms"`
	// Warmed is how many response cache entries the replica made on the
	// new snapshot before it served (edge.WarmCache).
	Warmed int    `json:"warmed_entries"`
	Note   string `json:"note"`
}

// pullWarm and pullSteady are the swap's warm-up (left out) and steady
// windows.
const (
	pullWarm   = 3 * time.Second
	pullSteady = 10 * time.Second
	pullShare  = 0.25 // cardedge serve --swap-share default
)

// runPull publishes the benchmark snapshot to a local S3-compatible server
// (versitygw, as make fleet-test installs it), starts one replica on it
// (cardedge serve --snapshots s3://...), and publishes a copy under another
// id while the read mix runs at a fixed rate.
func (h *harness) runPull(ctx context.Context) error {
	bin, err := s3test.Binary()
	if err != nil {
		h.skip("pull", err.Error())
		return nil
	}
	src, err := snapshots.ReadCurrent(h.cfg.Snapshots)
	if err != nil {
		return err
	}
	srcDir := filepath.Join(h.cfg.Snapshots, src)
	size, err := allocated(srcDir)
	if err != nil {
		return err
	}
	// Measured here: 55 s for 0.98 GiB on the quiet machine, 91-101 s at a
	// load average of 10 (two publications, two fetches, the paced open,
	// 23 s of steady windows). The estimate is the loaded figure's lower
	// end, so that a full run on a quiet machine has room for it after the
	// other workloads (the budget's hard stop is a minute later anyway).
	need := 30*time.Second + time.Duration(float64(size)/(1<<30)*float64(60*time.Second))
	if h.remaining() < need {
		h.skip("pull", fmt.Sprintf("needs about %s, %s of the budget left", need.Round(time.Second), h.remaining().Round(time.Second)))
		return nil
	}
	f := &PullFigs{Snapshot: src, SizeGiB: round2(float64(size) / (1 << 30)), Server: "versitygw " + s3test.Version + " (posix backend) on this machine",
		RatePerSec: h.plan.swapRate, SwapShare: pullShare}
	h.report.Pull = f

	// The S3 server, and the AWS environment every child inherits.
	addr, err := load.FreePort()
	if err != nil {
		return err
	}
	dir := filepath.Join(h.work, "s3")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const access, secret = "cardbench", "cardbench-secret-0123456789"
	env := map[string]string{"ROOT_ACCESS_KEY": access, "ROOT_SECRET_KEY": secret,
		"AWS_ACCESS_KEY_ID": access, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": "http://" + addr,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null"}
	for k, v := range env {
		os.Setenv(k, v)
	}
	// The S3 server runs on the load CPU, not the replica's (in a fleet it
	// is another machine), below the load generator's priority (nice 10):
	// serving the fetch must not delay the requests' sending, which counts
	// as latency.
	gw, err := load.Start("versitygw", filepath.Join(h.work, "versitygw.log"), load.Niced(10, load.Pinned(h.cfg.LoadCPU, bin, "--port", addr, "posix", dir)...)...)
	if err != nil {
		return err
	}
	defer gw.Stop(10 * time.Second)
	c, err := snaps3.NewClient(ctx, snaps3.ClientOptions{})
	if err != nil {
		return err
	}
	if err := createBucket(ctx, c, "cardbench"); err != nil {
		return fmt.Errorf("versitygw: %w: %s", err, gw.Tail(500))
	}
	const loc = "s3://cardbench/snapshots"

	h.logf("pull: publishing %s (%.2f GiB) to %s on versitygw", src, f.SizeGiB, loc)
	t := time.Now()
	if err := h.cardbuild(ctx, "publish", srcDir, loc); err != nil {
		return err
	}
	f.PublishSec = round2(time.Since(t).Seconds())

	state := filepath.Join(h.work, "pull-state.bolt")
	key, err := h.createKey(ctx, state, "elite", "cardbench pull")
	if err != nil {
		return err
	}
	h.logf("pull: starting a replica on %s (first fetch at full speed, then open)", loc)
	t = time.Now()
	started := t
	// At log level info the replica logs its fetches and swaps (with the
	// phases of the opening), not its requests; gctrace its collections.
	edge, err := h.start(ctx, "cardedge pull", "/ready", func(a string) []string {
		return []string{"env", "GODEBUG=gctrace=1", filepath.Join(h.cfg.Bin, "cardedge"), "serve", "--snapshots", loc, "--cache-dir", filepath.Join(h.work, "pull-cache"),
			"--state", state, "--addr", a, "--poll", "1s", "--swap-share", strconv.FormatFloat(pullShare, 'f', -1, 64), "--log-level", "info",
			"--warm-entries", strconv.Itoa(h.cfg.WarmEntries), "--swap-gogc", strconv.Itoa(h.cfg.SwapGOGC)}
	})
	if err != nil {
		return err
	}
	defer h.stopServer(edge)
	f.StartToReadySec = round2(time.Since(t).Seconds())
	bytes0, secs0, err := fetchMetrics(edge.addr)
	if err != nil {
		return err
	}
	f.FirstFetchSec = round2(secs0)
	f.FirstFetchSecPerGiB = round2(secs0 / (float64(bytes0) / (1 << 30)))

	// The swap under load.
	auth := []string{"Authorization", "Bearer " + key}
	paths := h.cat.mixPaths(h.plan.listLen, 1)
	if bodies, bad, err := h.warm(ctx, edge.addr, auth, paths); err != nil {
		return err
	} else if paths, err = h.checked("pull mix", paths, bodies, bad); err != nil {
		return err
	}
	clone, err := cloneSnapshot(srcDir, h.work, "pullb")
	if err != nil {
		return err
	}
	span := pullWarm + 2*pullSteady + 5*time.Minute
	n := int(h.plan.swapRate * span.Seconds())
	shots := make([]load.Shot, n)
	for i := range shots {
		shots[i] = load.Shot{At: time.Duration(float64(i) / h.plan.swapRate * float64(time.Second)), Path: paths[i%len(paths)], Headers: auth}
	}
	h.logf("pull: read mix at %.0f req/s (open loop); publishing a copy of %s as pullb after %s", h.plan.swapRate, src, pullWarm+pullSteady)
	genCtx, stopGen := context.WithCancel(ctx)
	defer stopGen()
	t0 := time.Now()
	done := make(chan []load.Sample, 1)
	go func() {
		done <- load.OpenLoop{Addr: edge.addr, MaxConns: 512, Timeout: 5 * time.Second, Grace: 5 * time.Second}.Run(genCtx, shots)
	}()
	procs := make(chan []procSample, 1)
	go func() { procs <- sampleProc(genCtx, edge.proc.Pid(), t0, 50*time.Millisecond) }()
	sleepCtx(ctx, pullWarm+pullSteady)
	pubStart := time.Since(t0)
	err = h.cardbuild(ctx, "publish", clone, loc)
	published := time.Since(t0)
	var served time.Duration
	for err == nil && ctx.Err() == nil && time.Since(t0) < span-pullSteady {
		if d, herr := health(edge.addr); herr == nil && d.SnapshotID == "pullb" {
			served = time.Since(t0)
			break
		}
		sleepCtx(ctx, 50*time.Millisecond)
	}
	if served > 0 {
		sleepCtx(ctx, time.Until(t0.Add(served+time.Second+pullSteady+500*time.Millisecond)))
	}
	stopGen()
	samples, ps := <-done, <-procs
	if err != nil {
		return err
	}
	if served == 0 {
		return fmt.Errorf("pull: the replica did not serve pullb within %s of its publication", (span - pullSteady - published).Round(time.Second))
	}
	bytes1, secs1, err := fetchMetrics(edge.addr)
	if err != nil {
		return err
	}
	swapEnd := served + time.Second
	all := load.Summarize(samples, 0, 0)
	f.Requests, f.Failed, f.FailedKinds = all.Requests, all.Errors, all.ErrorKinds
	f.PublishBSec = round2((published - pubStart).Seconds())
	f.PublishToServeSec = round2((served - published).Seconds())
	f.PacedFetchSec = round2(secs1 - secs0)
	if b := bytes1 - bytes0; b > 0 {
		f.PacedFetchSecPerGiB = round2((secs1 - secs0) / (float64(b) / (1 << 30)))
	}
	f.Before = load.Summarize(samples, pullWarm, pubStart)
	f.Publishing = load.Summarize(samples, pubStart, published)
	f.Swap = load.Summarize(samples, published, swapEnd)
	f.After = load.Summarize(samples, swapEnd, swapEnd+pullSteady)
	f.BumpP99 = round3(load.Ratio(f.Swap.P99Ms, f.Before.P99Ms))
	f.P99BySecond = p99BySecond(samples)
	f.Marks = map[string]float64{"publish_start": round2(pubStart.Seconds()), "published": round2(published.Seconds()),
		"fetched": round2((published + time.Duration((secs1-secs0)*float64(time.Second))).Seconds()), "served": round2(served.Seconds())}
	f.Note = "one replica pinned to the edge CPU; versitygw and cardbuild publish pinned to the load CPU (in a fleet they are other machines): the publishing window shows their cost, " +
		"the swap window starts when CURRENT is replaced in the bucket (the replica then fetches and verifies paced, opens, swaps)"
	if lf, err := os.Open(edge.proc.LogPath); err == nil {
		rl, err := parseReplicaLog(lf, "pullb")
		lf.Close()
		if err != nil {
			return err
		}
		f.Phases = swapPhases(samples, ps, rl, t0, started, pubStart, published, swapEnd+pullSteady)
		f.LongestUnpacedMs, f.Warmed = rl.longestMs, rl.warmed
	}
	return nil
}

// p99BySecond returns the p99 (ms) of the requests scheduled in each second.
func p99BySecond(samples []load.Sample) []float64 {
	var out []float64
	for sec := time.Duration(0); ; sec += time.Second {
		f := load.Summarize(samples, sec, sec+time.Second)
		if f.Requests == 0 {
			return out
		}
		out = append(out, round2(f.P99Ms))
	}
}

// cardbuild runs bin/cardbuild with args.
func (h *harness) cardbuild(ctx context.Context, args ...string) error {
	// On the load CPU below the load generator's priority, as versitygw.
	argv := load.Niced(10, load.Pinned(h.cfg.LoadCPU, append([]string{filepath.Join(h.cfg.Bin, "cardbuild")}, args...)...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("cardbuild %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func createBucket(ctx context.Context, c *awss3.Client, name string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := c.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String(name)})
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cloneSnapshot makes a copy of the snapshot in dir under id (hard links,
// a new manifest) below work/clones.
func cloneSnapshot(dir, work, id string) (string, error) {
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(work, "clones", id)
	for name := range m.Files {
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := os.Link(filepath.Join(dir, filepath.FromSlash(name)), to); err != nil {
			return "", err
		}
	}
	m.SnapshotID = id
	if err := snapshots.WriteManifest(dst, m); err != nil {
		return "", err
	}
	return dst, nil
}

// fetchMetrics reads the bytes fetched and the seconds spent fetching from
// the replica's /metrics.
func fetchMetrics(addr string) (int64, float64, error) {
	st, body, err := load.Get(addr, "/metrics", nil, 5*time.Second)
	if err != nil || st != 200 {
		return 0, 0, fmt.Errorf("GET /metrics: %d %v", st, err)
	}
	var bytes int64
	var secs float64
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "cardedge_snapshot_source_fetched_bytes_total "); ok {
			bytes, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "cardedge_snapshot_source_fetch_seconds_total "); ok {
			secs, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if bytes == 0 {
		return 0, 0, fmt.Errorf("/metrics counts no fetched bytes")
	}
	return bytes, secs, nil
}

func (h *harness) printPull() {
	p := h.report.Pull
	if p == nil || p.Requests == 0 {
		return
	}
	w := h.out
	fmt.Fprintf(w, "\n-- one replica fed from S3 (%s, %.2f GiB; %s): publish %.1fs; first fetch (full speed) %.1fs = %.1f s/GiB; start to ready %.1fs\n",
		p.Snapshot, p.SizeGiB, p.Server, p.PublishSec, p.FirstFetchSec, p.FirstFetchSecPerGiB, p.StartToReadySec)
	fmt.Fprintf(w, "   swap under a %.0f req/s read mix: published in %.1fs, served %.1fs after publication; paced fetch (%.2f of a CPU) %.1fs = %.1f s/GiB; failed %d of %d %v; p99 swap / before x%.2f\n",
		p.RatePerSec, p.PublishBSec, p.PublishToServeSec, p.SwapShare, p.PacedFetchSec, p.PacedFetchSecPerGiB, p.Failed, p.Requests, p.FailedKinds, p.BumpP99)
	for _, x := range []struct {
		name string
		f    load.Figures
	}{{"before", p.Before}, {"publishing", p.Publishing}, {"swap", p.Swap}, {"after", p.After}} {
		fmt.Fprintf(w, "   %-11s %7d req  p50 %6s ms  p99 %6s ms  p99.9 %6s ms  max %6s ms  errors %d\n", x.name, x.f.Requests,
			f2(x.f.P50Ms), f2(x.f.P99Ms), f2(x.f.P999Ms), f2(x.f.MaxMs), x.f.Errors)
	}
	fmt.Fprintf(w, "   p99 ms by second: %v\n   marks (s): %v\n", p.P99BySecond, p.Marks)
	if len(p.Phases) > 0 {
		fmt.Fprintf(w, "   where the swap's p99 goes (phases dated by the replica's log; the opening's longest unpaced stretch %.1f ms; %d response cache entries warmed on the new snapshot):\n", p.LongestUnpacedMs, p.Warmed)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "   phase\tfrom s\tto s\topening cpu ms\tlongest unpaced ms\treplica cpu %\tmajflt\tminflt\treq\tp50 ms\tp99 ms\tmax ms\tGCs\tGC stw ms\tGC mark ms\t")
		for _, x := range p.Phases {
			fmt.Fprintf(tw, "   %s\t%.2f\t%.2f\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t\n", x.Name, x.FromSec, x.ToSec, f2(x.CPUMs), f2(x.LongestMs),
				f2(x.CPUPct), x.MajFaults, x.MinFaults, x.Load.Requests, f2(x.Load.P50Ms), f2(x.Load.P99Ms), f2(x.Load.MaxMs), x.GCs, f2(x.GCPauseMs), f2(x.GCMarkMs))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "   %s\n", p.Note)
}
