// Command bulkbench measures the download throughput of a bulk file through
// the edge against nginx serving the same file, in the same run: both
// servers pinned to one CPU, wrk on the other, rounds alternating between
// them. It is what the README's bulk data figures come from:
//
//	make bench-bulk   # or: go run ./cmd/bulkbench --snapshots var/snapshots [--file NAME] [--conns 4] [--duration 8s] [--rounds 5]
//
// It prints each round (downloads/s, MB/s, the server's CPU use and CPU
// time per file from /proc, wrk's CPU use) and the medians: throughput
// against nginx's, and the server's CPU per file. Over loopback the server
// hands pages to the kernel (sendfile) while wrk copies every byte out:
// when the servers' CPU use is well under 100%, wrk was the bound and the
// CPU per file is the comparison that says more.
//
// The edge is bin/cardedge (make build) serving --snapshots with a state
// file of its own and an unmetered Elite key (not held to the download
// limit); nginx (/usr/sbin/nginx) serves the snapshot's bulk directory with
// sendfile on. The default file is the snapshot's largest. Everything it
// writes is in a temporary directory it removes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/snapshots"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "bulkbench:", err)
		}
		os.Exit(1)
	}
}

type config struct {
	snapshots, bin, nginx, file string
	conns, rounds               int
	duration                    time.Duration
	serverCPU, loadCPU          int
}

func run(ctx context.Context) error {
	var c config
	flag.StringVar(&c.snapshots, "snapshots", "var/snapshots", "snapshots root (CURRENT names a snapshot with bulk files)")
	flag.StringVar(&c.bin, "bin", "bin", "directory of the cardedge binary")
	flag.StringVar(&c.nginx, "nginx", "/usr/sbin/nginx", "nginx binary")
	flag.StringVar(&c.file, "file", "", "bulk file to download (default: the largest)")
	flag.IntVar(&c.conns, "conns", 4, "concurrent downloads (wrk connections)")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds per server, alternating")
	flag.DurationVar(&c.duration, "duration", 8*time.Second, "length of one round")
	flag.IntVar(&c.serverCPU, "server-cpu", 1, "CPU the servers are pinned to (-1: unpinned)")
	flag.IntVar(&c.loadCPU, "load-cpu", 0, "CPU wrk is pinned to (-1: unpinned)")
	flag.Parse()

	// nginx resolves a relative root against its prefix: every path absolute.
	var err error
	if c.snapshots, err = filepath.Abs(c.snapshots); err != nil {
		return err
	}
	id, err := snapshots.ReadCurrent(c.snapshots)
	if err != nil {
		return err
	}
	bdir := filepath.Join(c.snapshots, id, bulk.Dir)
	ix, err := bulk.ReadIndex(bdir)
	if err != nil {
		return fmt.Errorf("%w (a snapshot built before bulk files: build it again with cardbuild build)", err)
	}
	var f *bulk.File
	for i := range ix.Files {
		if g := &ix.Files[i]; (c.file == "" && (f == nil || g.Size > f.Size)) || g.Name == c.file {
			f = g
		}
	}
	if f == nil {
		return fmt.Errorf("no bulk file %q in %s", c.file, bdir)
	}
	work, err := os.MkdirTemp("", "bulkbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// The edge, with an unmetered Elite key.
	state := filepath.Join(work, "state.bolt")
	out, err := exec.CommandContext(ctx, filepath.Join(c.bin, "cardedge"), "keys", "create", "--state", state, "--tier", "elite",
		"--name", "bulkbench", "--unmetered").CombinedOutput()
	if err != nil {
		return fmt.Errorf("cardedge keys create: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := strings.TrimSpace(lines[len(lines)-1])
	edgeAddr, err := load.FreePort()
	if err != nil {
		return err
	}
	edge, err := load.Start("cardedge", filepath.Join(work, "cardedge.log"), load.Pinned(c.serverCPU,
		filepath.Join(c.bin, "cardedge"), "serve", "--snapshots", c.snapshots, "--state", state, "--addr", edgeAddr, "--log-level", "warn")...)
	if err != nil {
		return err
	}
	defer edge.Stop(5 * time.Second)
	if err := edge.WaitHTTP(ctx, edgeAddr, "/health", 2*time.Minute); err != nil {
		return err
	}

	// nginx, serving the same file.
	nginxAddr, err := load.FreePort()
	if err != nil {
		return err
	}
	ndir := filepath.Join(work, "nginx")
	if err := os.MkdirAll(filepath.Join(ndir, "tmp"), 0o755); err != nil {
		return err
	}
	conf := filepath.Join(ndir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConf(ndir, bdir, nginxAddr)), 0o644); err != nil {
		return err
	}
	ngx, err := load.Start("nginx", filepath.Join(work, "nginx.log"), load.Pinned(c.serverCPU, c.nginx, "-p", ndir, "-c", conf, "-e", filepath.Join(ndir, "error.log"))...)
	if err != nil {
		return err
	}
	defer ngx.Stop(5 * time.Second)
	if err := ngx.WaitHTTP(ctx, nginxAddr, "/"+f.Path, 30*time.Second); err != nil {
		return err
	}

	type target struct {
		name, addr, path string
		headers          []string
		proc             *load.Proc
	}
	targets := []target{
		{"cardedge", edgeAddr, "/api/v3/bulk/" + f.Name, []string{"Authorization", "Bearer " + key}, edge},
		{"nginx", nginxAddr, "/" + f.Path, nil, ngx},
	}
	// Both answer the file, whole.
	for _, t := range targets {
		status, body, err := load.Get(t.addr, t.path, t.headers, time.Minute)
		if err != nil || status != 200 || int64(len(body)) != f.Size {
			return fmt.Errorf("%s: GET %s: %d, %d bytes, %v", t.name, t.path, status, len(body), err)
		}
	}
	fmt.Printf("file %s: %d bytes (%s); %d connections, %d rounds of %s per server; servers on CPU %d, wrk on CPU %d\n",
		f.Name, f.Size, id, c.conns, c.rounds, c.duration, c.serverCPU, c.loadCPU)
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at start: %s", b)
	}

	type result struct {
		mbps, cpuPct, genPct, cpuMsPerFile float64
	}
	results := map[string][]result{}
	var ratios []float64 // each cardedge round against the nginx round after it
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tserver\tfiles/s\tMB/s\tserver CPU %\tCPU ms per file\twrk CPU %\terrors\t")
	for round := 1; round <= c.rounds; round++ {
		for _, t := range targets {
			paths := filepath.Join(work, t.name+".paths")
			if err := os.WriteFile(paths, []byte(t.path+"\n"), 0o644); err != nil {
				return err
			}
			cpu0, err := procCPU(t.proc.Pid())
			if err != nil {
				return err
			}
			start := time.Now()
			fig, err := load.WrkRun{Addr: t.addr, PathsFile: paths, Headers: t.headers, Conns: c.conns, Duration: c.duration,
				CPU: c.loadCPU, Dir: work, Timeout: 30 * time.Second}.Run(ctx)
			if err != nil {
				return err
			}
			wall := time.Since(start)
			cpu1, err := procCPU(t.proc.Pid())
			if err != nil {
				return err
			}
			if fig.Errors > 0 || fig.Requests == 0 {
				return fmt.Errorf("%s, round %d: %d downloads, errors %v", t.name, round, fig.Requests, fig.ErrorKinds)
			}
			cpu := cpu1 - cpu0
			r := result{mbps: fig.RPS * fig.BytesPerResponse / 1e6, cpuPct: 100 * cpu.Seconds() / wall.Seconds(), genPct: fig.GenCPUPct,
				cpuMsPerFile: cpu.Seconds() * 1000 / float64(fig.Requests)}
			results[t.name] = append(results[t.name], r)
			if t.name == "nginx" {
				ratios = append(ratios, results["cardedge"][round-1].mbps/r.mbps)
			}
			fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.0f\t%.0f\t%.2f\t%.0f\t%d\t\n", round, t.name, fig.RPS, r.mbps, r.cpuPct, r.cpuMsPerFile, r.genPct, fig.Errors)
		}
	}
	tw.Flush()
	med := func(name string, get func(result) float64) float64 {
		var v []float64
		for _, r := range results[name] {
			v = append(v, get(r))
		}
		return median(v)
	}
	e, n := med("cardedge", func(r result) float64 { return r.mbps }), med("nginx", func(r result) float64 { return r.mbps })
	ec, nc := med("cardedge", func(r result) float64 { return r.cpuMsPerFile }), med("nginx", func(r result) float64 { return r.cpuMsPerFile })
	fmt.Printf("median: cardedge %.0f MB/s, nginx %.0f MB/s: cardedge/nginx %.2f (target >= 0.8; rounds %.2f-%.2f); "+
		"server CPU per file %.2f ms vs %.2f ms (%.2fx)\n", e, n, e/n, slices.Min(ratios), slices.Max(ratios), ec, nc, ec/nc)
	fmt.Println("(server CPU % well under 100 means wrk, not the server, was the bound: compare CPU per file then)")
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at end: %s", b)
	}
	return nil
}

// median is the middle value of v (the mean of the two middle ones for an
// even count).
func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// procCPU is the user and system CPU time a process has used.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces, in parens).
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	return time.Duration(utime+stime) * time.Second / 100, nil // USER_HZ
}

// nginxConf serves the bulk directory as static files: one process, no
// access log, sendfile with tcp_nopush (nginx's setup for large files).
func nginxConf(dir, root, addr string) string {
	tmp := filepath.Join(dir, "tmp")
	return strings.NewReplacer("DIR", dir, "ROOT", root, "ADDR", addr, "TMP", tmp).Replace(`# generated by bulkbench
daemon off;
master_process off;
worker_processes 1;
pid DIR/nginx.pid;
error_log DIR/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  open_file_cache max=16 inactive=120s;
  client_body_temp_path TMP;
  proxy_temp_path TMP;
  fastcgi_temp_path TMP;
  uwsgi_temp_path TMP;
  scgi_temp_path TMP;
  default_type application/gzip;
  server {
    listen ADDR;
    root ROOT;
  }
}
`)
}
