package edge

import (
	"net"
	"testing"
	"time"
)

// deadlineRecorder is a net.Conn that records the deadlines set on it.
type deadlineRecorder struct {
	net.Conn
	reads, writes []time.Time
}

func (c *deadlineRecorder) SetReadDeadline(t time.Time) error {
	c.reads = append(c.reads, t)
	return nil
}

func (c *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	c.writes = append(c.writes, t)
	return nil
}

// TestLazyDeadlineConn: a deadline later than the armed one by less than the
// slack is skipped; a later one beyond the slack, an earlier one (never fire
// late) and clearing are passed on.
func TestLazyDeadlineConn(t *testing.T) {
	rec := &deadlineRecorder{}
	c := &lazyDeadlineConn{Conn: rec, readSlack: int64(time.Second), writeSlack: int64(2 * time.Second)}
	base := time.Unix(1_000_000, 0)
	steps := []struct {
		at   time.Duration
		pass bool
	}{
		{10 * time.Second, true},                       // first
		{10*time.Second + 500*time.Millisecond, false}, // within the slack
		{10*time.Second + 999*time.Millisecond, false}, // still within
		{11*time.Second + 1, true},                     // beyond: re-armed
		{5 * time.Second, true},                        // earlier: never late
		{5*time.Second + 200*time.Millisecond, false},  // within again
		{-1, true},               // cleared
		{-1, true},               // cleared again: passed on (no armed deadline)
		{20 * time.Second, true}, // after clearing
	}
	want := 0
	for i, s := range steps {
		d := time.Time{}
		if s.at >= 0 {
			d = base.Add(s.at)
		}
		if err := c.SetReadDeadline(d); err != nil {
			t.Fatal(err)
		}
		if s.pass {
			want++
		}
		if len(rec.reads) != want {
			t.Fatalf("step %d (%v): %d deadlines passed on, want %d", i, s.at, len(rec.reads), want)
		}
		if s.pass && !rec.reads[len(rec.reads)-1].Equal(d) {
			t.Fatalf("step %d: passed on %v, want %v", i, rec.reads[len(rec.reads)-1], d)
		}
	}
	// The write side has its own armed deadline and slack.
	c.SetWriteDeadline(base.Add(30 * time.Second))
	c.SetWriteDeadline(base.Add(31 * time.Second))
	c.SetWriteDeadline(base.Add(33 * time.Second))
	if len(rec.writes) != 2 {
		t.Errorf("write deadlines passed on: %v, want the first and the third", rec.writes)
	}
}
