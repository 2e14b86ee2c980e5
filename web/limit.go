package web

import (
	"math"
	"sync"
	"time"
)

// limiter is a token bucket per client address. Buckets that are full again
// are dropped once a minute, so it holds only recent addresses.
type limiter struct {
	rate, burst float64
	mu          sync.Mutex
	m           map[string]*tokens
	lastSweep   time.Time
}

type tokens struct {
	n    float64
	last time.Time
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: burst, m: map[string]*tokens{}}
}

// take takes a token of addr's bucket and returns 0, or the whole seconds to
// wait when it is empty.
func (l *limiter) take(addr string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > time.Minute {
		l.lastSweep = now
		for k, b := range l.m {
			if b.n+now.Sub(b.last).Seconds()*l.rate >= l.burst {
				delete(l.m, k)
			}
		}
	}
	b := l.m[addr]
	if b == nil {
		b = &tokens{n: l.burst, last: now}
		l.m[addr] = b
	}
	if now.After(b.last) {
		b.n = math.Min(l.burst, b.n+now.Sub(b.last).Seconds()*l.rate)
		b.last = now
	}
	if b.n < 1 {
		return int(math.Ceil((1 - b.n) / l.rate))
	}
	b.n--
	return 0
}
