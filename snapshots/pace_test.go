package snapshots_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

func TestPacer_Step(t *testing.T) {
	busy := func() error {
		for s := time.Now(); time.Since(s) < 200*time.Microsecond; {
		}
		return nil
	}
	run := func(p *snapshots.Pacer) time.Duration {
		start := time.Now()
		for range 50 {
			if err := p.Step(busy); err != nil {
				t.Fatal(err)
			}
		}
		return time.Since(start)
	}
	full := run(nil)
	paced := snapshots.NewPacer(0.25)
	d := run(paced)
	// 50 steps of 0.2 ms at a quarter of a CPU take at least 40 ms.
	if d < 3*paced.Busy() || d < 30*time.Millisecond {
		t.Fatalf("paced run took %s for %s of steps (unpaced %s): not paced", d, paced.Busy(), full)
	}
	if (&snapshots.Pacer{}).Step(busy) != nil {
		t.Fatal("zero Pacer")
	}
}

func TestPacer_Meter(t *testing.T) {
	work := func(m *snapshots.Meter) time.Duration {
		start := time.Now()
		for range 400 { // 400 items of 50 us: 20 ms of work
			for s := time.Now(); time.Since(s) < 50*time.Microsecond; {
			}
			m.Tick()
		}
		m.End()
		return time.Since(start)
	}
	work(nil) // a nil Meter does nothing
	if m := (&snapshots.Pacer{}).Begin(); m != nil {
		t.Fatal("the zero Pacer's Meter is not nil")
	}
	paced := snapshots.NewPacer(0.25)
	d := work(paced.Begin())
	// At a quarter of a CPU, the work's CPU time is at most a quarter of
	// the wall time (less the last sleep owed, under 1 ms).
	if paced.Busy() <= 0 || d < 3*paced.Busy() {
		t.Fatalf("metered work took %s for %s of CPU: not paced", d, paced.Busy())
	}
}

// TestReadahead advises a snapshot's files but its bulk files, and skips a
// file the manifest names that is not there.
func TestReadahead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.bolt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bulk"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bulk", "x.json.gz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &snapshots.Manifest{Files: map[string]string{"a.bolt": "", "missing.bolt": "", "bulk/x.json.gz": ""}}
	if got, want := snapshots.Readahead(dir, m), 1; got != want {
		t.Errorf("Readahead advised %d files, want %d (a.bolt)", got, want)
	}
}
