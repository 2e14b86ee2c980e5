package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Main(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "v2bench: FAILED:", err)
		os.Exit(1)
	}
}

// Config is what v2bench runs with.
type Config struct {
	Snapshots string        // snapshots root (CURRENT names the one served)
	Bin       string        // directory of cardedge
	Queries   []string      // the q of each series
	Rate      float64       // requests per second offered to each series
	Duration  time.Duration // of each series
	EdgeCPU   int           // CPU the edges are pinned to (-1: none)
	LoadCPU   int           // CPU of this process (-1: none)
}

// ParseFlags reads the command line.
func ParseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("v2bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := Config{}
	q := fs.String("q", "set.id:sv3pt5|types:fire hp:[100 TO *]|name:pikachu|supertype:trainer|nationalPokedexNumbers:[1 TO 151]",
		"the q of each series, separated by |")
	fs.StringVar(&c.Snapshots, "snapshots", "var/snapshots", "snapshots root (make snapshot builds the default one)")
	fs.StringVar(&c.Bin, "bin", "bin", "directory of the cardedge binary (make build)")
	fs.Float64Var(&c.Rate, "rate", 40, "requests per second offered to each series (open loop)")
	fs.DurationVar(&c.Duration, "duration", 15*time.Second, "duration of each series")
	fs.IntVar(&c.EdgeCPU, "edge-cpu", 1, "CPU the edges are pinned to (-1: no pinning)")
	fs.IntVar(&c.LoadCPU, "load-cpu", 0, "CPU this process is pinned to (-1: no pinning)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.Queries = strings.Split(*q, "|")
	if fs.NArg() > 0 || c.Rate <= 0 || c.Duration <= 0 {
		return c, fmt.Errorf("usage: v2bench [--snapshots DIR] [--bin DIR] [--q 'q1|q2'] [--rate N] [--duration D]")
	}
	return c, nil
}

// Main runs the benchmark: a cached and an uncached edge over the
// snapshots, then, for each q, /v2/cards?q=..&pageSize=250 and
// /api/v3/cards?q=..&limit=200 (its largest page) on each edge, open loop,
// and prints p50, p99 and the server's CPU per request.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := ParseFlags(args, stderr)
	if err != nil {
		return err
	}
	if c.LoadCPU >= 0 {
		if err := load.PinSelf(c.LoadCPU); err != nil {
			fmt.Fprintln(stderr, "v2bench: not pinned:", err)
		}
	}
	work, err := os.MkdirTemp("", "v2bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	type edge struct {
		name string
		addr string
		key  string
		proc *load.Proc
	}
	var edges []*edge
	defer func() {
		for _, e := range edges {
			e.proc.Stop(10 * time.Second)
		}
	}()
	bin := filepath.Join(c.Bin, "cardedge")
	for _, e := range []struct {
		name    string
		cacheMB int
	}{{"cached", 256}, {"uncached", 0}} {
		state := filepath.Join(work, e.name+".bolt")
		out, err := exec.Command(bin, "keys", "create", "--state", state, "--tier", "elite", "--name", "v2bench", "--unmetered").Output()
		if err != nil {
			return fmt.Errorf("keys create: %w", err)
		}
		key := ""
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, "ce_") {
				key = f
			}
		}
		addr, err := load.FreePort()
		if err != nil {
			return err
		}
		argv := []string{bin, "serve", "--snapshots", c.Snapshots, "--state", state, "--addr", addr, "--cache-mb", strconv.Itoa(e.cacheMB), "--log-level", "error"}
		if c.EdgeCPU >= 0 {
			argv = load.Pinned(c.EdgeCPU, argv...)
		}
		p, err := load.Start(e.name, filepath.Join(work, e.name+".log"), argv...)
		if err != nil {
			return err
		}
		edges = append(edges, &edge{name: e.name, addr: addr, key: key, proc: p})
		if err := p.WaitHTTP(ctx, addr, "/ready", 5*time.Minute); err != nil {
			return fmt.Errorf("%s edge: %w\n%s", e.name, err, p.Tail(20))
		}
		if key == "" {
			return fmt.Errorf("keys create printed no key: %s", out)
		}
	}
	la, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(stdout, "v2bench: %s, %.0f requests/s for %s per series, open loop; load average %s\n", c.Snapshots, c.Rate, c.Duration, strings.Join(strings.Fields(string(la))[:3], " "))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "q\troute\tedge\titems\tbody KB\tp50 ms\tp99 ms\tserver CPU µs/req\terrors\t")
	for _, q := range c.Queries {
		for _, route := range []string{"/v2/cards?pageSize=250&q=", "/api/v3/cards?limit=200&q="} {
			path := route + url.QueryEscape(q)
			for _, e := range edges {
				hdr := []string{"Authorization", "Bearer " + e.key}
				if strings.HasPrefix(route, "/v2/") {
					hdr = []string{"X-Api-Key", e.key} // as pokemontcg.io's SDKs send it
				}
				status, body, err := load.Get(e.addr, path, hdr, 30*time.Second) // the warm-up: fills the cache
				if err != nil || status != 200 {
					return fmt.Errorf("%s %s: %d %v %.200s", e.name, path, status, err, body)
				}
				n := int(c.Rate * c.Duration.Seconds())
				shots := make([]load.Shot, n)
				for i := range shots {
					shots[i] = load.Shot{At: time.Duration(float64(i) / c.Rate * float64(time.Second)), Path: path, Headers: hdr}
				}
				before := cpuOf(e.proc.Pid())
				samples := load.OpenLoop{Addr: e.addr, MaxConns: 16, Timeout: 10 * time.Second}.Run(ctx, shots)
				cpu := cpuOf(e.proc.Pid()) - before
				f := load.Summarize(samples, 0, 0)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.0f\t%.2f\t%.2f\t%.0f\t%d\t\n", q, strings.SplitN(route, "?", 2)[0], e.name, items(body),
					float64(len(body))/1024, f.P50Ms, f.P99Ms, float64(cpu.Microseconds())/float64(max(f.Requests, 1)), f.Errors)
			}
		}
	}
	return tw.Flush()
}

// items counts the cards of a list body: /v2's data, /api/v3's
// data.items.
func items(body []byte) int {
	var m struct{ Data json.RawMessage }
	if json.Unmarshal(body, &m) != nil {
		return 0
	}
	var list []json.RawMessage
	if json.Unmarshal(m.Data, &list) == nil {
		return len(list)
	}
	var page struct{ Items []json.RawMessage }
	json.Unmarshal(m.Data, &page)
	return len(page.Items)
}

// cpuOf is a process's CPU time so far (user and system), 0 when unknown.
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}
