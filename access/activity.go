package access

import (
	"context"
	"errors"
	"time"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// Refusal is a kind of refused call that is counted per key and day: the
// HTTP status it was answered with.
type Refusal uint8

// Refusals counted. A 401 is counted for a key the service knows (revoked,
// expired, suspended): a 401 for a token that names no key cannot be
// attributed to anyone and is not counted.
const (
	Refused401 Refusal = iota // known key, revoked, expired or suspended
	Refused403                // the tier or the SQL allowlist refused the call
	Refused422                // the call's parameters or body were invalid
	Refused429                // quota or rate limit
	numRefusals
)

// NumRefusals is the number of Refusal kinds.
const NumRefusals = int(numRefusals)

var refusalNames = [numRefusals]string{"401", "403", "422", "429"}

// String returns the status: "401", "403", "422" or "429".
func (r Refusal) String() string {
	if r < numRefusals {
		return refusalNames[r]
	}
	return "invalid"
}

// RefusalOf returns the Refusal of an HTTP status, and false for a status
// that is not counted.
func RefusalOf(status int) (Refusal, bool) {
	switch status {
	case 401:
		return Refused401, true
	case 403:
		return Refused403, true
	case 422:
		return Refused422, true
	case 429:
		return Refused429, true
	}
	return 0, false
}

// refusedKey is the Usage counter of key id's refusals r on day d (the
// layout state.Usage reserves: "<key id>/<YYYY-MM-DD>/<reason>").
func refusedKey(id string, d snapshots.Day, r Refusal) string {
	return id + "/" + d.String() + "/" + refusalNames[r]
}

// LastUsedResolution is how coarse the stored last-used times are: a sync
// writes a key's last use when it moved by at least this much since the
// stored one (and Close writes every change).
const LastUsedResolution = time.Minute

// lastUsedTable holds the last-used times (state.LastUsed).
var lastUsedTable = state.NewTable[time.Time](state.LastUsed)

// refuse counts one refusal of st at now. It takes st.mu.
func (s *Service) refuse(st *keyState, r Refusal, now time.Time) {
	st.mu.Lock()
	st.refused[r].add(dayOf(now), 1)
	st.mu.Unlock()
}

// CountRefused counts a call of caller c that the edge refused with status
// (403 by the tier or the SQL allowlist, 422 invalid parameters). 401s and
// 429s are counted by Authenticate and Charge themselves; other statuses,
// Playground callers and unknown keys are ignored. It never touches the state
// store (the sync flushes the counts).
func (s *Service) CountRefused(c Caller, status int) {
	r, ok := RefusalOf(status)
	if !ok || c.KeyID == "" || r == Refused401 || r == Refused429 {
		return
	}
	st := c.st
	if st == nil {
		e := s.keys.Load().byID[c.KeyID]
		if e == nil {
			return
		}
		st = e.st
	}
	s.refuse(st, r, s.now())
}

// CountRefusedBearer counts a call refused with status before it was
// authenticated (a 422 for its parameters) against the key its Authorization
// value names, when that is a key the service knows, and returns the tier
// the call's headers say (X-Service-Tier): the key's when it is active and
// not suspended, else Playground (no key, or one Authenticate would refuse).
// It charges nothing. It costs a hash of the key: call it on refusals only.
func (s *Service) CountRefusedBearer(authorization []byte, status int) Tier {
	if len(authorization) == 0 {
		return Playground
	}
	tok, msg := parseBearer(authorization)
	if msg != "" {
		return Playground
	}
	e := s.keys.Load().byHash[hashSecret(tok)]
	if e == nil {
		return Playground
	}
	if r, ok := RefusalOf(status); ok {
		s.refuse(e.st, r, s.now())
	}
	if !e.key.Active() || e.key.Suspended {
		return Playground
	}
	return e.key.Tier
}

// Activity is what the dashboard shows of one key's use.
type Activity struct {
	KeyID string
	// LastUsed is the last charged call (coarse: LastUsedResolution for
	// calls served by other processes); zero when never used.
	LastUsed time.Time
	Today    TodayUsage
	// Days has one entry per day of the range asked for, oldest first, today
	// last, zeros included.
	Days []ActivityDay
}

// ActivityDay is one UTC day of a key's activity.
type ActivityDay struct {
	Day     snapshots.Day
	Calls   int64              // charged units (a batch counts its ids)
	Refused [NumRefusals]int64 // by Refusal
}

// Date returns the day as YYYY-MM-DD.
func (d ActivityDay) Date() string { return d.Day.String() }

// RefusedTotal returns the day's refusals of every kind.
func (d ActivityDay) RefusedTotal() int64 {
	var n int64
	for _, r := range d.Refused {
		n += r
	}
	return n
}

// Activity returns the activity of keys over the last days days (today
// included; at most the retained days): the state store's counts (every
// process sharing it) plus what this process has not flushed yet, and today's
// quota from the highest count known (this process, the store, Redis). It
// reads the store once, waiting up to LockTimeout. Keys this service has not
// loaded yet (just created elsewhere) get the store's counts.
func (s *Service) Activity(ctx context.Context, keys []Key, days int) ([]Activity, error) {
	days = min(max(days, 1), s.opts.RetainDays)
	now := s.now()
	today := dayOf(now)
	from := today - snapshots.Day(days) + 1

	type stored struct {
		calls   map[snapshots.Day]int64
		refused map[snapshots.Day]*[NumRefusals]int64
		last    time.Time
	}
	out := make([]Activity, len(keys))
	got := make([]stored, len(keys))

	s.syncMu.Lock() // no flush between reading the store and the pending counts
	defer s.syncMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.opts.LockTimeout)
	defer cancel()
	err := s.store.View(ctx, func(tx state.Tx) error {
		for i, k := range keys {
			g := stored{calls: map[snapshots.Day]int64{}, refused: map[snapshots.Day]*[NumRefusals]int64{}}
			prefix := k.ID + "/"
			err := tx.ScanCounts(state.Usage, state.ScanOptions{Prefix: prefix}, func(key string, n int64) error {
				rest := key[len(prefix):]
				ds, reason, isRefusal := rest, "", false
				if len(rest) > 10 && rest[10] == '/' {
					ds, reason, isRefusal = rest[:10], rest[11:], true
				}
				d, err := snapshots.ParseDay(ds)
				if err != nil || d < from || d > today {
					return nil
				}
				if !isRefusal {
					g.calls[d] += n
					return nil
				}
				for r, name := range refusalNames {
					if name == reason {
						if g.refused[d] == nil {
							g.refused[d] = new([NumRefusals]int64)
						}
						g.refused[d][r] += n
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			t, err := lastUsedTable.Get(tx, k.ID)
			if err != nil && !errors.Is(err, state.ErrNotFound) {
				return err
			}
			g.last = t
			got[i] = g
		}
		return nil
	})
	if errors.Is(err, state.ErrNotFound) { // the state file was removed: no history
		err = nil
	}
	if err != nil {
		return nil, err
	}
	table := s.keys.Load()
	for i, k := range keys {
		g := got[i]
		a := Activity{KeyID: k.ID, LastUsed: g.last, Days: make([]ActivityDay, days)}
		for j := range a.Days {
			d := from + snapshots.Day(j)
			a.Days[j].Day = d
			a.Days[j].Calls = g.calls[d]
			if r := g.refused[d]; r != nil {
				a.Days[j].Refused = *r
			}
		}
		var live int64
		if e := table.byID[k.ID]; e != nil {
			st := e.st
			st.mu.Lock()
			for _, c := range append([]dayCount{st.pend.cur}, st.pend.older...) {
				if c.n != 0 && c.day >= from && c.day <= today {
					a.Days[c.day-from].Calls += c.n
				}
			}
			for r := range st.refused {
				for _, c := range append([]dayCount{st.refused[r].cur}, st.refused[r].older...) {
					if c.n != 0 && c.day >= from && c.day <= today {
						a.Days[c.day-from].Refused[r] += c.n
					}
				}
			}
			if st.day == today {
				live = st.used
			}
			if st.last != 0 && time.Unix(0, st.last).After(a.LastUsed) {
				a.LastUsed = time.Unix(0, st.last)
			}
			st.mu.Unlock()
			if s.shared != nil {
				if n, ok := s.shared.dayCount(st, today); ok && n > live {
					live = n
				}
			}
		}
		t := &a.Days[len(a.Days)-1]
		t.Calls = max(t.Calls, live)
		lim := LimitsOf(k.Tier)
		a.Today = TodayUsage{
			Date: today.String(), Used: t.Calls, Limit: int64(lim.DailyQuota),
			Remaining: max(0, int64(lim.DailyQuota)-t.Calls), ResetSeconds: secondsToMidnight(now),
		}
		if !a.LastUsed.IsZero() {
			a.LastUsed = a.LastUsed.UTC()
		}
		out[i] = a
	}
	return out, nil
}

// refusalDelta is a key's refusals taken for a flush.
type refusalDelta struct {
	st     *keyState
	counts [numRefusals][]dayCount
}

// takeRefusals takes the refusals of states not yet flushed. Callers hold
// syncMu.
func takeRefusals(states []*keyState) []refusalDelta {
	var out []refusalDelta
	for _, st := range states {
		var d refusalDelta
		any := false
		st.mu.Lock()
		for r := range st.refused {
			if c := st.refused[r].take(); c != nil {
				d.counts[r], any = c, true
			}
		}
		st.mu.Unlock()
		if any {
			d.st = st
			out = append(out, d)
		}
	}
	return out
}

// giveBack returns refusals a failed flush took, for the next sync.
func (d refusalDelta) giveBack() {
	d.st.mu.Lock()
	for r, cs := range d.counts {
		for _, c := range cs {
			d.st.refused[r].add(c.day, c.n)
		}
	}
	d.st.mu.Unlock()
}

// lastUsedDelta is a last-used time to write.
type lastUsedDelta struct {
	st *keyState
	t  int64
}

// takeLastUsed returns the keys whose last use moved by LastUsedResolution
// or more since the stored one (every move when all is set: Close). Callers
// hold syncMu.
func takeLastUsed(states []*keyState, all bool) []lastUsedDelta {
	var out []lastUsedDelta
	for _, st := range states {
		if st.account {
			continue
		}
		st.mu.Lock()
		last := st.last
		st.mu.Unlock()
		if last > st.lastSaved && (all || last-st.lastSaved >= int64(LastUsedResolution)) {
			out = append(out, lastUsedDelta{st, last})
		}
	}
	return out
}
