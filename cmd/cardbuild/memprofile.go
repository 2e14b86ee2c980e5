package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

// memWatch samples the process's memory while a build runs: resident set
// (anonymous and file-backed, from /proc/self/status where there is one) and
// the Go runtime's own accounting. It keeps the peak of each stage and, when a
// profile path is given, writes a heap profile each time the live Go heap
// reaches a new high (by at least 64 MiB), so the file holds the profile at
// the peak.
type memWatch struct {
	profile string
	every   time.Duration

	mu      sync.Mutex
	stage   string
	stages  []*stageMem // in order of first use
	byName  map[string]*stageMem
	maxLive uint64 // live heap at the last profile written
	err     error

	stop chan struct{}
	done chan struct{}
}

// stageMem is the peak of each measure during one stage, in bytes.
type stageMem struct {
	name                string
	rss, anon, file     uint64
	heapObjects, goHeld uint64
	other               uint64 // anonymous memory the Go runtime does not hold (C memory: SQLite)
	heapLive            uint64
}

// Runtime metrics read at each sample.
const (
	metricHeapObjects = "/memory/classes/heap/objects:bytes"
	metricGoTotal     = "/memory/classes/total:bytes"
	metricHeapLive    = "/gc/heap/live:bytes"
	metricReleased    = "/memory/classes/heap/released:bytes"
)

func startMemWatch(profile string, every time.Duration) *memWatch {
	m := &memWatch{profile: profile, every: every, byName: map[string]*stageMem{},
		stop: make(chan struct{}), done: make(chan struct{})}
	m.setStage("start")
	go m.loop()
	return m
}

// setStage names the stage that later samples are charged to.
func (m *memWatch) setStage(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stage = name
	if m.byName[name] == nil {
		s := &stageMem{name: name}
		m.byName[name] = s
		m.stages = append(m.stages, s)
	}
}

func (m *memWatch) loop() {
	defer close(m.done)
	samples := []metrics.Sample{{Name: metricHeapObjects}, {Name: metricGoTotal}, {Name: metricHeapLive}, {Name: metricReleased}}
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		m.sample(samples)
		select {
		case <-t.C:
		case <-m.stop:
			m.sample(samples)
			return
		}
	}
}

func (m *memWatch) sample(samples []metrics.Sample) {
	metrics.Read(samples)
	heap, live := samples[0].Value.Uint64(), samples[2].Value.Uint64()
	total := samples[1].Value.Uint64() - samples[3].Value.Uint64() // mapped and not returned to the OS
	rss, anon, file := procRSS()
	m.mu.Lock()
	s := m.byName[m.stage]
	s.rss, s.anon, s.file = max(s.rss, rss), max(s.anon, anon), max(s.file, file)
	s.heapObjects, s.goHeld, s.heapLive = max(s.heapObjects, heap), max(s.goHeld, total), max(s.heapLive, live)
	if anon > total {
		s.other = max(s.other, anon-total)
	}
	write := m.profile != "" && m.err == nil && live >= m.maxLive+64<<20
	if write {
		m.maxLive = live
	}
	m.mu.Unlock()
	if write {
		if err := writeHeapProfile(m.profile); err != nil {
			m.mu.Lock()
			m.err = err
			m.mu.Unlock()
		}
	}
}

// finish stops sampling, writes a last profile if none was written, and
// prints the peaks of each stage to w.
func (m *memWatch) finish(w io.Writer) error {
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.profile != "" && m.err == nil && m.maxLive == 0 {
		m.err = writeHeapProfile(m.profile)
	}
	fmt.Fprintf(w, "memory: %-18s %9s %9s %9s %9s %9s %9s (MiB, peaks)\n", "stage", "rss", "anon", "file", "go heap", "live", "go held")
	var all stageMem
	for _, s := range m.stages {
		fmt.Fprintf(w, "memory: %-18s %9d %9d %9d %9d %9d %9d %9d\n", s.name, s.rss>>20, s.anon>>20, s.file>>20, s.heapObjects>>20, s.heapLive>>20, s.goHeld>>20, s.other>>20)
		all.rss, all.anon, all.file = max(all.rss, s.rss), max(all.anon, s.anon), max(all.file, s.file)
		all.heapObjects, all.goHeld, all.heapLive = max(all.heapObjects, s.heapObjects), max(all.goHeld, s.goHeld), max(all.heapLive, s.heapLive)
		all.other = max(all.other, s.other)
	}
	fmt.Fprintf(w, "memory: %-18s %9d %9d %9d %9d %9d %9d %9d\n", "(build)", all.rss>>20, all.anon>>20, all.file>>20, all.heapObjects>>20, all.heapLive>>20, all.goHeld>>20, all.other>>20)
	if hwm := procHWM(); hwm > 0 {
		fmt.Fprintf(w, "memory: peak resident set (VmHWM) %d MiB\n", hwm>>20)
	}
	if m.err != nil {
		return fmt.Errorf("build: --memprofile: %w", m.err)
	}
	return nil
}

// writeHeapProfile writes the heap profile, which shows the heap as of the
// last completed collection (the one that measured the new live high).
func writeHeapProfile(path string) error {
	var buf bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// procRSS returns the resident set size and its anonymous and file-backed
// parts (0 where /proc is missing).
func procRSS() (rss, anon, file uint64) {
	f := procStatus()
	return f["VmRSS"], f["RssAnon"], f["RssFile"] + f["RssShmem"]
}

func procHWM() uint64 { return procStatus()["VmHWM"] }

func procStatus() map[string]uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	out := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			continue
		}
		if n, err := strconv.ParseUint(string(f[0]), 10, 64); err == nil {
			out[string(name)] = n << 10
		}
	}
	return out
}
