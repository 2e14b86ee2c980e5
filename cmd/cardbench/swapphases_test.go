package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

func TestSwapPhases(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	started := t0.Add(-10 * time.Second) // the replica started 10 s before the load
	at := func(sec float64) string {
		return t0.Add(time.Duration(sec * float64(time.Second))).Format(time.RFC3339Nano)
	}
	log := strings.Join([]string{
		`{"time":"` + at(1) + `","level":"INFO","msg":"serving snapshot","id":"old"}`,
		`gc 7 @31.000s 1%: 0.5+40+0.25 ms clock, 0.5+1/2/0+0.25 ms cpu, 900->950->800 MB, 4000 MB goal, 0 MB stacks, 0 MB globals, 1 P`,
		`{"time":"` + at(20) + `","level":"INFO","msg":"fetched snapshot","id":"pullb","bytes":100,"seconds":4}`,
		`{"time":"` + at(20) + `","level":"INFO","msg":"fetched snapshot","id":"other","bytes":100,"seconds":9}`,
		`{"time":"` + at(24) + `","level":"INFO","msg":"swapped snapshot","id":"pullb","opened":"` + at(21) +
			`","phases":[{"name":"verify","wall_ms":0},{"name":"reader","wall_ms":2000,"cpu_ms":500},{"name":"derive edge","wall_ms":1000,"cpu_ms":250}],"longest_unpaced_ms":12.5}`,
	}, "\n")
	rl, err := parseReplicaLog(strings.NewReader(log), "pullb")
	if err != nil {
		t.Fatal(err)
	}
	if rl.fetchSecs != 4 || rl.longestMs != 12.5 || len(rl.phases) != 3 || len(rl.gcs) != 1 || rl.gcs[0].pause != 0.75 || rl.gcs[0].markMs != 40 {
		t.Fatalf("parsed %+v", rl)
	}
	var samples []load.Sample
	for ms := 0; ms < 30000; ms += 10 {
		samples = append(samples, load.Sample{At: time.Duration(ms) * time.Millisecond, Lat: time.Millisecond, Status: 200})
	}
	ph := swapPhases(samples, nil, rl, t0, started, 10*time.Second, 14*time.Second, 30*time.Second)
	var names []string
	for _, p := range ph {
		names = append(names, p.Name)
	}
	got := strings.Join(names, "|")
	want := "before (steady)|publishing|until the poll|fetch + verify (paced)|until the watcher|open: reader|open: derive edge|after: 0-1 s|after: 1-3 s|after: 3-10 s"
	if got != want {
		t.Fatalf("phases %s, want %s", got, want)
	}
	// The fetch ran from 16 s to 20 s; the opening's reader from 21 s to
	// 23 s, with the collection at 21 s (31 s after the replica started).
	if p := ph[3]; p.FromSec != 16 || p.ToSec != 20 || p.Load.Requests != 400 {
		t.Errorf("fetch phase %+v", p)
	}
	if p := ph[5]; p.FromSec != 21 || p.ToSec != 23 || p.GCs != 1 || p.CPUMs != 500 {
		t.Errorf("reader phase %+v", p)
	}
	if p := ph[9]; p.FromSec != 27 || p.ToSec != 30 {
		t.Errorf("last phase %+v (cut at the end of the run)", p)
	}
	if _, err := parseReplicaLog(strings.NewReader(log), "missing"); err == nil {
		t.Error("a log without the swap parsed")
	}
}

func TestProcStat(t *testing.T) {
	cpu, minflt, _, err := readProcStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if minflt <= 0 || cpu < 0 {
		t.Errorf("this process: cpu %s, %d minor faults", cpu, minflt)
	}
	ps := []procSample{{0, 0, 10, 1}, {time.Second, 500 * time.Millisecond, 30, 4}, {2 * time.Second, 600 * time.Millisecond, 35, 4}}
	pct, maj, min := procDelta(ps, 0, time.Second)
	if pct != 50 || maj != 3 || min != 20 {
		t.Errorf("procDelta = %v %d %d, want 50 3 20", pct, maj, min)
	}
	if pct, _, _ := procDelta(ps, time.Second, 5*time.Second); pct != 10 {
		t.Errorf("procDelta past the last sample = %v%%, want 10", pct)
	}
}
