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
// Work that cannot be cut into steps is paced by a Meter (Begin, Tick, End)
// against the same budget.
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

// Meter paces, with its Pacer's share and budget, a stretch of work that
// cannot be cut into Steps: a library's callback loop (decoding every card
// of a bbolt bucket), a sort's comparisons or a long computation. The work
// calls Tick often (after each item, or in a sort's comparison function:
// Tick is a counter increment, and every eighth call a monotonic clock
// read, when nothing is owed), and Tick sleeps what the pacing owes for the
// CPU time the thread used since the thread's clock was last read (a system
// call, made at most every tickGap of wall time). Begin locks the goroutine
// to its thread (so that the thread's CPU time is the work's) until End.
//
// A nil Meter (Begin of a nil or zero Pacer) does nothing.
type Meter struct {
	p        *Pacer
	last     time.Duration // the thread's CPU time at the last reading
	lastWall time.Duration // monotonic time of the last reading
	n        int
	// busy is the CPU time accounted so far; longest the longest CPU time
	// between two readings (a stretch the pacing could not cut).
	busy, longest time.Duration
}

// tickEvery is how many Ticks make one reading of the monotonic clock, and
// tickGap the wall time after which a Tick reads the thread's CPU clock (a
// system call) and settles what is owed: items are small, and a sort's
// comparisons smaller still.
const (
	tickEvery = 8
	tickGap   = 100 * time.Microsecond
)

// Begin starts a metered stretch of work on the calling goroutine; call End
// on the same goroutine.
func (p *Pacer) Begin() *Meter {
	if p == nil || p.Share <= 0 || p.Share >= 1 {
		return nil
	}
	runtime.LockOSThread()
	return &Meter{p: p, last: threadCPU(), lastWall: monotonic()}
}

// Tick accounts for the work done since the last reading and sleeps what
// the pacing owes.
func (m *Meter) Tick() {
	if m == nil {
		return
	}
	if m.n++; m.n%tickEvery != 0 || monotonic()-m.lastWall < tickGap {
		return
	}
	m.settle()
}

// Yield is Tick after an item that takes tens of microseconds or more (a
// response rendered): it settles as soon as tickGap passed since the last
// reading, without waiting for Tick's count.
func (m *Meter) Yield() {
	if m == nil || monotonic()-m.lastWall < tickGap {
		return
	}
	m.settle()
}

// settle reads the thread's CPU clock, accounts for the work since the last
// reading and sleeps what is owed.
func (m *Meter) settle() {
	now := threadCPU()
	d := now - m.last
	m.last = now
	m.busy += d
	m.longest = max(m.longest, d)
	p := m.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy += d
	p.debt += time.Duration(float64(d) * (1 - p.Share) / p.Share)
	if p.debt >= minSleep {
		s := time.Now()
		time.Sleep(p.debt)
		p.debt -= time.Since(s)
		m.last = threadCPU() // the sleep itself is not work
	}
	m.lastWall = monotonic()
}

// End accounts for the last of the work and unlocks the goroutine from its
// thread.
func (m *Meter) End() {
	if m == nil {
		return
	}
	m.settle()
	runtime.UnlockOSThread()
}

// Busy returns the CPU time of the work metered so far (0 for a nil
// Meter). Call it on the Meter's goroutine.
func (m *Meter) Busy() time.Duration {
	if m == nil {
		return 0
	}
	return m.busy + threadCPU() - m.last
}

// Longest returns the longest CPU time the work ran between two readings
// of the thread's clock since the last call: a stretch the pacing could
// not cut, during which requests on the same processor waited (a library
// call that never Ticks). Call it on the Meter's goroutine.
func (m *Meter) Longest() time.Duration {
	if m == nil {
		return 0
	}
	d := max(m.longest, threadCPU()-m.last)
	m.longest = 0
	return d
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
