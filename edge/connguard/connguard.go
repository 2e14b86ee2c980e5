package connguard

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Timeouts bound each phase of a connection; zero disables that bound.
type Timeouts struct {
	Read, Write, Idle time.Duration
}

// Listener wraps a net.Listener: every accepted connection is guarded.
type Listener struct {
	net.Listener
	timeouts Timeouts
	tick     time.Duration
	// clock counts ticks since the listener was made; phases record the
	// tick they began on.
	clock atomic.Uint64

	mu    sync.Mutex
	conns map[*conn]struct{}

	stop      chan struct{}
	closeOnce sync.Once
}

// Listen guards ln's connections and starts the sweeper; Close stops it.
func Listen(ln net.Listener, t Timeouts) *Listener {
	l := &Listener{Listener: ln, timeouts: t, tick: tickFor(t), conns: make(map[*conn]struct{}), stop: make(chan struct{})}
	if l.tick > 0 {
		go l.sweep()
	}
	return l
}

// tickFor is the clock's resolution: an eighth of the shortest timeout,
// between 5 ms and 250 ms; 0 (no clock, no sweeper) without timeouts.
func tickFor(t Timeouts) time.Duration {
	shortest := time.Duration(0)
	for _, d := range []time.Duration{t.Read, t.Write, t.Idle} {
		if d > 0 && (shortest == 0 || d < shortest) {
			shortest = d
		}
	}
	if shortest == 0 {
		return 0
	}
	return min(max(shortest/8, 5*time.Millisecond), 250*time.Millisecond)
}

// Accept returns the next connection, guarded; its first request must
// arrive within the read timeout.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	gc := &conn{Conn: c, l: l}
	gc.state.Store(l.mark(phaseReading))
	l.mu.Lock()
	l.conns[gc] = struct{}{}
	l.mu.Unlock()
	return gc, nil
}

// Close closes the listener and stops the sweeper; accepted connections
// stay guarded by nothing from then on and are closed by their server.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.stop) })
	return l.Listener.Close()
}

// Conns is the number of open guarded connections.
func (l *Listener) Conns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// Phases of a connection, in the low two bits of its state word; the tick
// the phase began on is in the rest.
const (
	phaseIdle uint64 = iota
	phaseReading
	phaseWriting
	phaseBits = 2
	phaseMask = 1<<phaseBits - 1
)

func (l *Listener) mark(phase uint64) uint64 { return l.clock.Load()<<phaseBits | phase }

func (l *Listener) sweep() {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	var expired []*conn
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		now := l.clock.Add(1)
		expired = expired[:0]
		l.mu.Lock()
		for c := range l.conns {
			if l.overdue(c.state.Load(), now) {
				expired = append(expired, c)
			}
		}
		l.mu.Unlock()
		past := time.Now().Add(-time.Second)
		for _, c := range expired {
			c.expire(past)
		}
	}
}

// overdue reports whether a connection in state has overstayed its phase at
// tick now.
func (l *Listener) overdue(state, now uint64) bool {
	var limit time.Duration
	switch state & phaseMask {
	case phaseReading:
		limit = l.timeouts.Read
	case phaseWriting:
		limit = l.timeouts.Write
	default:
		limit = l.timeouts.Idle
	}
	if limit <= 0 {
		return false
	}
	began := state >> phaseBits
	return time.Duration(now-began)*l.tick > limit
}

func (l *Listener) forget(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// conn is a guarded connection. Its reads and writes keep state current;
// only the sweeper sets its deadlines.
type conn struct {
	net.Conn
	l         *Listener
	state     atomic.Uint64
	closeOnce sync.Once
}

// Read ends a response (the server reads only once it is written): the
// connection is idle until bytes arrive, which start the reading phase.
func (c *conn) Read(p []byte) (int, error) {
	if c.state.Load()&phaseMask == phaseWriting {
		c.state.Store(c.l.mark(phaseIdle))
	}
	n, err := c.Conn.Read(p)
	if n > 0 && c.state.Load()&phaseMask == phaseIdle {
		c.state.Store(c.l.mark(phaseReading))
	}
	return n, err
}

// Write starts the writing phase at a response's first write.
func (c *conn) Write(p []byte) (int, error) {
	if c.state.Load()&phaseMask != phaseWriting {
		c.state.Store(c.l.mark(phaseWriting))
	}
	return c.Conn.Write(p)
}

// fileStep is how many bytes of a body ReadFrom sends per step; each step
// restarts the writing phase.
const fileStep = 256 << 10

// ReadFrom sends a streamed body: fasthttp hands file bodies (bulk
// downloads) here through bufio.Writer.ReadFrom, and the TCP connection
// underneath sends them with sendfile. It sends fileStep bytes at a time and
// restarts the writing phase after each, so a long download is bounded by
// its progress (Write per fileStep bytes), not its whole duration.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	rf, ok := c.Conn.(io.ReaderFrom)
	if !ok {
		return io.Copy(writerOnly{c}, r)
	}
	// A LimitedReader's own reader goes below, so that the connection
	// still sees an *os.File (sendfile) inside the step's LimitedReader.
	src, left := r, int64(-1)
	lr, limited := r.(*io.LimitedReader)
	if limited {
		src, left = lr.R, lr.N
	}
	var total int64
	for left != 0 {
		step := int64(fileStep)
		if left > 0 && left < step {
			step = left
		}
		c.state.Store(c.l.mark(phaseWriting))
		n, err := rf.ReadFrom(&io.LimitedReader{R: src, N: step})
		total += n
		if limited {
			left -= n
			lr.N = left
		}
		if err != nil {
			return total, err
		}
		if n < step { // the end of src
			break
		}
	}
	return total, nil
}

// writerOnly hides a conn's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

func (c *conn) Close() error {
	c.closeOnce.Do(func() { c.l.forget(c) })
	return c.Conn.Close()
}

// expire makes the blocked read or write fail with a timeout error now.
func (c *conn) expire(past time.Time) {
	if c.state.Load()&phaseMask == phaseWriting {
		_ = c.Conn.SetWriteDeadline(past)
		return
	}
	_ = c.Conn.SetReadDeadline(past)
}
