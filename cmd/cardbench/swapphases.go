package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

// SwapPhase is one stretch of a swap from S3, as the replica's log dates
// it, with the latency of the requests scheduled in it and the garbage
// collections that started in it (GODEBUG=gctrace=1).
type SwapPhase struct {
	Name    string  `json:"name"`
	FromSec float64 `json:"from_seconds"` // since the load started
	ToSec   float64 `json:"to_seconds"`
	CPUMs   float64 `json:"opening_cpu_ms,omitempty"` // the paced opening's own CPU time
	// LongestMs is the opening's longest unpaced stretch in the phase.
	LongestMs float64      `json:"longest_unpaced_ms,omitempty"`
	Load      load.Figures `json:"load"`
	GCs       int          `json:"gcs"`
	// GCPauseMs is the stop-the-world time of those collections; GCMarkMs
	// their concurrent mark phase (wall), during which requests that
	// allocate assist the collector.
	GCPauseMs float64 `json:"gc_pause_ms"`
	GCMarkMs  float64 `json:"gc_mark_ms"`
	// CPUPct is the replica's CPU time (all threads, user and system) per
	// second of the phase, in percent of one CPU; MajFaults and MinFaults
	// its page faults in the phase (/proc/PID/stat, sampled every 50 ms:
	// phases shorter than that show none).
	CPUPct    float64 `json:"replica_cpu_pct"`
	MajFaults int64   `json:"major_faults"`
	MinFaults int64   `json:"minor_faults"`
}

// procSample is a process's counters at one moment (since the load
// started).
type procSample struct {
	at             time.Duration
	cpu            time.Duration
	minflt, majflt int64
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ: 100 on Linux).
const clockTick = 10 * time.Millisecond

// readProcStat reads pid's CPU time and page faults from /proc/PID/stat.
func readProcStat(pid int) (cpu time.Duration, minflt, majflt int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, err
	}
	// The fields after the command name (in parentheses, which may hold
	// spaces): state is field 3; minflt 10, majflt 12, utime 14, stime 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	num := func(k int) int64 { n, _ := strconv.ParseInt(f[k-3], 10, 64); return n }
	return time.Duration(num(14)+num(15)) * clockTick, num(10), num(12), nil
}

// sampleProc samples pid's counters every interval until ctx ends.
func sampleProc(ctx context.Context, pid int, t0 time.Time, interval time.Duration) []procSample {
	var out []procSample
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if cpu, minf, majf, err := readProcStat(pid); err == nil {
			out = append(out, procSample{time.Since(t0), cpu, minf, majf})
		}
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
		}
	}
}

// procDelta returns the counters' change between the samples nearest to
// from and to.
func procDelta(ps []procSample, from, to time.Duration) (cpuPct float64, majflt, minflt int64) {
	at := func(d time.Duration) int {
		i, _ := slices.BinarySearchFunc(ps, d, func(s procSample, d time.Duration) int { return cmp.Compare(s.at, d) })
		return min(i, len(ps)-1)
	}
	if len(ps) == 0 {
		return 0, 0, 0
	}
	a, b := ps[at(from)], ps[at(to)]
	if b.at <= a.at {
		return 0, 0, 0
	}
	return round2(100 * float64(b.cpu-a.cpu) / float64(b.at-a.at)), b.majflt - a.majflt, b.minflt - a.minflt
}

// replicaLog is what a swap leaves in the replica's log (JSON lines of
// log/slog at level info, and the runtime's gctrace lines).
type replicaLog struct {
	fetched     time.Time // the puller's "fetched snapshot"
	fetchSecs   float64
	opened      time.Time // live's "swapped snapshot": the opening's start
	swapped     time.Time // and the swap
	phases      []logPhase
	longestMs   float64
	gcs         []gcLine
	swappedSeen bool
	warmed      int // entries edge's response cache made on the new snapshot
}

type logPhase struct {
	Name      string  `json:"name"`
	WallMs    float64 `json:"wall_ms"`
	CPUMs     float64 `json:"cpu_ms"`
	LongestMs float64 `json:"longest_ms"`
}

// gcLine is one collection of gctrace: its start (since the process
// started), its stop-the-world and concurrent wall times.
type gcLine struct {
	at            time.Duration
	pause, markMs float64
}

// gctraceRE matches "gc 12 @34.567s 1%: 0.015+38+0.003 ms clock, ...".
var gctraceRE = regexp.MustCompile(`^gc \d+ @([0-9.]+)s [0-9]+%: ([0-9.]+)\+([0-9.]+)\+([0-9.]+) ms clock`)

// parseReplicaLog reads the lines of the snapshot id's swap.
func parseReplicaLog(r io.Reader, id string) (replicaLog, error) {
	var out replicaLog
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if m := gctraceRE.FindSubmatch(line); m != nil {
			at, _ := strconv.ParseFloat(string(m[1]), 64)
			stw1, _ := strconv.ParseFloat(string(m[2]), 64)
			mark, _ := strconv.ParseFloat(string(m[3]), 64)
			stw2, _ := strconv.ParseFloat(string(m[4]), 64)
			out.gcs = append(out.gcs, gcLine{at: time.Duration(at * float64(time.Second)), pause: stw1 + stw2, markMs: mark})
			continue
		}
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var e struct {
			Time    time.Time  `json:"time"`
			Msg     string     `json:"msg"`
			ID      string     `json:"id"`
			Seconds float64    `json:"seconds"`
			Opened  time.Time  `json:"opened"`
			Phases  []logPhase `json:"phases"`
			Longest float64    `json:"longest_unpaced_ms"`
			Entries int        `json:"entries"`
			Snap    string     `json:"snapshot"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		if e.Msg == "response cache warmed" && e.Snap == id {
			out.warmed = e.Entries
		}
		if e.ID != id {
			continue
		}
		switch e.Msg {
		case "fetched snapshot":
			out.fetched, out.fetchSecs = e.Time, e.Seconds
		case "swapped snapshot":
			out.swapped, out.opened, out.phases, out.longestMs, out.swappedSeen = e.Time, e.Opened, e.Phases, e.Longest, true
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	if !out.swappedSeen {
		return out, fmt.Errorf("the replica's log has no \"swapped snapshot\" line for %s (is it at --log-level info?)", id)
	}
	return out, nil
}

// swapPhases cuts the run into the swap's phases: before (steady), the
// publication, the wait for the replica's next poll, the paced fetch (and
// verification), each phase of the opening from the replica's log, and
// the seconds after the swap. t0 is when the load started, started when
// the replica's process started (gctrace dates collections from it).
func swapPhases(samples []load.Sample, ps []procSample, rl replicaLog, t0, started time.Time, pubStart, published, end time.Duration) []SwapPhase {
	rel := func(t time.Time) time.Duration { return t.Sub(t0) }
	type cut struct {
		name          string
		from, to      time.Duration
		cpuMs, longMs float64
	}
	cuts := []cut{{"before (steady)", pullWarm, pubStart, 0, 0}, {"publishing", pubStart, published, 0, 0}}
	fetchStart := rel(rl.fetched) - time.Duration(rl.fetchSecs*float64(time.Second))
	if !rl.fetched.IsZero() {
		cuts = append(cuts, cut{"until the poll", published, fetchStart, 0, 0}, cut{"fetch + verify (paced)", fetchStart, rel(rl.fetched), 0, 0},
			cut{"until the watcher", rel(rl.fetched), rel(rl.opened), 0, 0})
	} else {
		cuts = append(cuts, cut{"until the opening", published, rel(rl.opened), 0, 0})
	}
	at := rel(rl.opened)
	for _, p := range rl.phases {
		d := time.Duration(p.WallMs * float64(time.Millisecond))
		cuts = append(cuts, cut{"open: " + p.Name, at, at + d, p.CPUMs, p.LongestMs})
		at += d
	}
	sw := rel(rl.swapped)
	for _, a := range []struct {
		name     string
		from, to time.Duration
	}{{"after: 0-1 s", 0, time.Second}, {"after: 1-3 s", time.Second, 3 * time.Second}, {"after: 3-10 s", 3 * time.Second, 10 * time.Second}} {
		if sw+a.from < end {
			cuts = append(cuts, cut{a.name, sw + a.from, min(sw+a.to, end), 0, 0})
		}
	}
	var out []SwapPhase
	for _, c := range cuts {
		if c.to <= c.from {
			continue
		}
		p := SwapPhase{Name: c.name, FromSec: round2(c.from.Seconds()), ToSec: round2(c.to.Seconds()), CPUMs: c.cpuMs, LongestMs: c.longMs, Load: load.Summarize(samples, c.from, c.to)}
		for _, g := range rl.gcs {
			if t := started.Add(g.at).Sub(t0); t >= c.from && t < c.to {
				p.GCs++
				p.GCPauseMs += g.pause
				p.GCMarkMs += g.markMs
			}
		}
		p.GCPauseMs, p.GCMarkMs = round2(p.GCPauseMs), round2(p.GCMarkMs)
		p.CPUPct, p.MajFaults, p.MinFaults = procDelta(ps, c.from, c.to)
		out = append(out, p)
	}
	return out
}
