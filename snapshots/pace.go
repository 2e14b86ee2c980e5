package snapshots

import (
	"runtime"
	"sync"
	"time"
)

// Pacer keeps background work on a snapshot (downloading, verifying and
// opening one beside the live snapshot) to a share of one CPU, so that the
// requests served meanwhile barely notice it. Go has no goroutine priorities:
// a goroutine that hashes a gigabyte holds its processor until the scheduler
// preempts it (every 10 ms), and on a server with one processor (GOMAXPROCS
// 1, an edge pinned to one core) every request arriving meanwhile waits. So
// the work runs in short steps (Step, each well under a millisecond), and
// the pacer sleeps between them long enough that the steps take at most
// Share of the time. A step is measured in the CPU time of its thread
// (Linux; wall time elsewhere), not in wall time: on a busy machine a step's
// wall time includes the time other processes held the CPU, and pacing by it
// would slow the work far below its share. Steps of every goroutine sharing
// a Pacer run one at a time, so parallel downloads together stay within the
// share.
//
// The zero Pacer, and a nil one, do not pace: steps run at full speed.
type Pacer struct {
	// Share is the fraction of one CPU the steps may take, in (0, 1);
	// 0 or 1 and above mean no pacing.
	Share float64

	mu   sync.Mutex
	debt time.Duration // sleep owed by the steps so far
	busy time.Duration // total time of the steps (for reports)
}

// NewPacer returns a Pacer that keeps its steps to share of one CPU.
func NewPacer(share float64) *Pacer { return &Pacer{Share: share} }

// minSleep is the shortest sleep the pacer takes: shorter debts accumulate,
// since a timer's resolution makes tiny sleeps overshoot.
const minSleep = time.Millisecond

// Step runs fn, one short piece of the work (a read of a few hundred KiB
// and its hash), then sleeps what the pacing owes. Steps of one Pacer never
// overlap.
func (p *Pacer) Step(fn func() error) error {
	if p == nil || p.Share <= 0 || p.Share >= 1 {
		return fn()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	runtime.LockOSThread()
	start := threadCPU()
	err := fn()
	d := threadCPU() - start
	runtime.UnlockOSThread()
	p.busy += d
	p.debt += time.Duration(float64(d) * (1 - p.Share) / p.Share)
	if p.debt >= minSleep {
		s := time.Now()
		time.Sleep(p.debt)
		p.debt -= time.Since(s) // overshoot is credit
	}
	return err
}

// Busy returns the total CPU time the steps took (without the sleeps).
func (p *Pacer) Busy() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.busy
}

var clockStart = time.Now()

// monotonic is the monotonic clock as a duration.
func monotonic() time.Duration { return time.Since(clockStart) }
