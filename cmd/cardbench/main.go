package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Main(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "cardbench: FAILED:", err)
		os.Exit(1)
	}
}

// workloads in the order they run.
var workloads = []string{"carddetail", "access", "shared", "mix", "typeahead", "lookup", "search", "mcp", "swap", "pull", "build"}

// Config is what cardbench runs with.
type Config struct {
	Mode      string // quick or full
	Root      string // repository root
	Bin       string // directory of cardedge, cardbuild, ceiling, benchedge
	Snapshots string // snapshots root of the benchmark (built when missing)
	Preset    string
	Out       string // report directory
	EdgeCPU   int    // CPU of every server (-1: no pinning)
	LoadCPU   int    // CPU of the generators and of this process
	Nice      int    // nice value of the servers, wrk and this process
	NoNginx   bool
	NoInstall bool
	Large     bool
	KeepWork  bool
	Only      map[string]bool
	Budget    time.Duration
	Rounds    int
	RoundDur  time.Duration
	// WarmEntries is the pull replica's --warm-entries (0: serve's
	// default; negative: none, the swap with a cold response cache).
	WarmEntries int
	// SwapGOGC is the pull replica's --swap-gogc (0: GOGC left alone).
	SwapGOGC int
}

// ParseFlags reads the command line.
func ParseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("cardbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Config
	var only string
	fs.StringVar(&c.Mode, "mode", "full", "quick (tiny snapshot, short runs, < 2 min) or full (default snapshot, < 15 min)")
	fs.StringVar(&c.Root, "root", ".", "repository root")
	fs.StringVar(&c.Bin, "bin", "", "binaries (default ROOT/bin)")
	fs.StringVar(&c.Snapshots, "snapshots", "", "snapshots root of the benchmark (default ROOT/var/bench/PRESET; built when it has no CURRENT, reused otherwise)")
	fs.StringVar(&c.Preset, "preset", "", "snapshot preset (default: tiny in quick mode, default in full mode)")
	fs.StringVar(&c.Out, "out", "", "report directory (default ROOT/bench/out)")
	fs.IntVar(&c.EdgeCPU, "edge-cpu", 1, "CPU the servers are pinned to (-1: no pinning)")
	fs.IntVar(&c.LoadCPU, "load-cpu", 0, "CPU the load generators are pinned to")
	fs.IntVar(&c.Nice, "nice", 0, "nice value of the servers, wrk and the harness (negative, as root: take the two CPUs from other work on a shared machine)")
	fs.BoolVar(&c.NoNginx, "no-nginx", false, "run without the nginx reference")
	fs.BoolVar(&c.NoInstall, "no-install", false, "never apt-get install wrk or nginx (fail instead)")
	fs.BoolVar(&c.Large, "large", false, "full mode: also time the nightly build of the large preset when the budget allows")
	fs.BoolVar(&c.KeepWork, "keep-work", false, "keep the work directory (state, logs, request lists)")
	fs.StringVar(&only, "only", "", "comma list of workloads to run: "+strings.Join(workloads, ","))
	fs.DurationVar(&c.Budget, "budget", 0, "wall-time budget (default 1m40s quick, 13m30s full); work that would overrun it is skipped with a line saying so; the run is stopped a minute after it")
	fs.IntVar(&c.Rounds, "rounds", 0, "interleaved rounds per throughput comparison (default 1 quick, 3 full)")
	fs.DurationVar(&c.RoundDur, "round", 0, "duration of one wrk run (default 1s quick, 4s full)")
	fs.IntVar(&c.WarmEntries, "warm-entries", 0, "the pull replica's --warm-entries (0: cardedge serve's default; -1: a swap with a cold response cache, to compare)")
	fs.IntVar(&c.SwapGOGC, "swap-gogc", 0, "the pull replica's --swap-gogc (0: GOGC left alone while the new snapshot opens; 800: no collection during the opening, to compare)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.Mode != "quick" && c.Mode != "full" {
		return c, fmt.Errorf("--mode must be quick or full, not %q", c.Mode)
	}
	if c.Preset == "" {
		c.Preset = map[string]string{"quick": "tiny", "full": "default"}[c.Mode]
	}
	if c.Bin == "" {
		c.Bin = filepath.Join(c.Root, "bin")
	}
	if c.Snapshots == "" {
		c.Snapshots = filepath.Join(c.Root, "var", "bench", c.Preset)
	}
	if c.Out == "" {
		c.Out = filepath.Join(c.Root, "bench", "out")
	}
	for _, p := range []*string{&c.Root, &c.Bin, &c.Snapshots, &c.Out} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return c, err
		}
		*p = abs
	}
	c.Only = map[string]bool{}
	for _, w := range strings.Split(only, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !slices.Contains(workloads, w) {
			return c, fmt.Errorf("--only: unknown workload %q (want %s)", w, strings.Join(workloads, ","))
		}
		c.Only[w] = true
	}
	if len(c.Only) == 0 {
		for _, w := range workloads {
			c.Only[w] = true
		}
	}
	if c.EdgeCPU >= 0 && c.EdgeCPU == c.LoadCPU {
		return c, errors.New("--edge-cpu and --load-cpu must differ")
	}
	return c, nil
}

// Main runs the harness.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := ParseFlags(args, stderr)
	if err != nil {
		return err
	}
	h, err := newHarness(cfg, stdout)
	if err != nil {
		return err
	}
	// The hard bound: whatever happens, stop a minute after the budget.
	ctx, cancel := context.WithDeadline(ctx, h.deadline.Add(time.Minute))
	defer cancel()
	err = h.Run(ctx)
	h.Close()
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("%w (the run overran its budget of %s by a minute and was stopped)", err, h.plan.budget)
	}
	return err
}
