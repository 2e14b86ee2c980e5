package access

import (
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
)

// Tier is an access tier. The zero value is Playground, the keyless tier.
type Tier uint8

// Tiers, from the keyless one up.
const (
	Playground Tier = iota
	Free
	Pro
	Elite
	numTiers
)

var tierNames = [numTiers]string{"playground", "free", "pro", "elite"}

// String returns the tier's name as sent in X-Service-Tier: playground, free,
// pro or elite. An unknown tier is "invalid".
func (t Tier) String() string {
	if t < numTiers {
		return tierNames[t]
	}
	return "invalid"
}

// Valid reports whether t is one of the four tiers.
func (t Tier) Valid() bool { return t < numTiers }

// ParseTier parses a tier name (playground, free, pro, elite; lower case).
// It returns an EINVALID *apperr.Error for anything else.
func ParseTier(s string) (Tier, error) {
	for i, n := range tierNames {
		if n == s {
			return Tier(i), nil
		}
	}
	return 0, apperr.Errorf(apperr.EINVALID, "unknown tier %q: want playground, free, pro or elite", s)
}

// MarshalText encodes t as its name.
func (t Tier) MarshalText() ([]byte, error) {
	if !t.Valid() {
		return nil, apperr.Errorf(apperr.EINVALID, "invalid tier %d", uint8(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText decodes a tier name.
func (t *Tier) UnmarshalText(b []byte) error {
	v, err := ParseTier(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Limits are the rules of one tier.
type Limits struct {
	// DailyQuota is the number of units a key may spend per UTC day; 0 means
	// no daily quota (Playground, which is limited by rate only).
	DailyQuota int
	// RatePerSec and Burst describe the token bucket: RatePerSec tokens are
	// added per second up to Burst; each request takes one token. For
	// Playground the bucket is per client address, otherwise per key.
	RatePerSec, Burst float64
	// HistoryDays is the history window in days, counted back from the
	// snapshot's as_of; 0 means unlimited.
	HistoryDays int
	// RowCap caps every list (a larger limit is lowered, not refused); 0 means
	// no cap beyond each endpoint's own maximum.
	RowCap int
	// BatchMax is the most ids one batch call may carry; 0 means the tier
	// may not call batch endpoints.
	BatchMax int
	// AlertRules is the most want-list entries and alert rules an account
	// may keep, AlertSetRules how many of them may watch a whole set, and
	// WebhookEndpoints the most webhook endpoints (package alert's and
	// webhook's Limits); 0 means none.
	AlertRules, AlertSetRules, WebhookEndpoints int
}

var tierLimits = [numTiers]Limits{
	Playground: {RatePerSec: 1, Burst: 1, HistoryDays: 3, RowCap: 50},
	Free:       {DailyQuota: 100, RatePerSec: 5, Burst: 10, HistoryDays: 3, AlertRules: 10},
	Pro:        {DailyQuota: 2000, RatePerSec: 20, Burst: 40, HistoryDays: 7, BatchMax: 50, AlertRules: 200, AlertSetRules: 10, WebhookEndpoints: 3},
	Elite:      {DailyQuota: 10000, RatePerSec: 50, Burst: 100, HistoryDays: 0, BatchMax: 100, AlertRules: 5000, AlertSetRules: 100, WebhookEndpoints: 10},
}

// LimitsOf returns the rules of tier t. An invalid tier gets Playground's.
func LimitsOf(t Tier) Limits {
	if t >= numTiers {
		t = Playground
	}
	return tierLimits[t]
}

// MaxJSONIDs is the most ids a keyed JSON body (POST /prices, MCP tools) may
// carry, whatever the tier.
const MaxJSONIDs = 1000

// WindowStart returns the first day of tier t's history window for a
// snapshot whose "today" is asOf: asOf - HistoryDays + 1. ok is false when the
// tier's window is unlimited (Elite).
func WindowStart(asOf snapshots.Day, t Tier) (start snapshots.Day, ok bool) {
	w := LimitsOf(t).HistoryDays
	if w == 0 {
		return 0, false
	}
	return asOf - snapshots.Day(w) + 1, true
}

// ClampSince applies tier t's history window to a since (or date_from)
// parameter. It raises since to the window's first day, asOf - HistoryDays + 1;
// when sinceSet is false the caller gave no since and the window's first day
// is returned. Elite is unclamped: since is returned unchanged.
//
// ClampSince never lowers since and is idempotent:
// ClampSince(a, t, ClampSince(a, t, s, set), true) == ClampSince(a, t, s, set).
// A since after asOf is left alone (the query is then empty, not an error).
func ClampSince(asOf snapshots.Day, t Tier, since snapshots.Day, sinceSet bool) snapshots.Day {
	start, ok := WindowStart(asOf, t)
	if !ok {
		return since
	}
	if !sinceSet || since < start {
		return start
	}
	return since
}

// CapRows lowers a requested list limit to tier t's row cap (50 for
// Playground); other tiers get limit unchanged.
func CapRows(t Tier, limit int) int {
	if c := LimitsOf(t).RowCap; c > 0 && limit > c {
		return c
	}
	return limit
}

// CheckBatch reports whether caller c may send a batch of n ids. It returns an
// EUNAUTHORIZED error for Playground (batch routes need a key), EFORBIDDEN for
// Free, and EINVALID when n exceeds the tier's BatchMax (50 Pro, 100 Elite).
func CheckBatch(c Caller, n int) error {
	switch c.Tier {
	case Playground:
		return apperr.Errorf(apperr.EUNAUTHORIZED, "batch lookup requires an API key")
	case Free:
		return apperr.Errorf(apperr.EFORBIDDEN, "batch lookup is not available to the free tier; it needs a pro or elite key")
	}
	if m := LimitsOf(c.Tier).BatchMax; n > m {
		return apperr.Errorf(apperr.EINVALID, "too many ids: %d, the %s tier allows at most %d per batch", n, c.Tier, m)
	}
	return nil
}

// CheckSQL reports whether caller c may use POST /api/v3/sql: only keys with
// the sql flag may. It returns EUNAUTHORIZED for Playground and EFORBIDDEN for
// keys not on the allowlist.
func CheckSQL(c Caller) error {
	if c.KeyID == "" {
		return apperr.Errorf(apperr.EUNAUTHORIZED, "SQL requires an API key")
	}
	if !c.SQL {
		return apperr.Errorf(apperr.EFORBIDDEN, "SQL is restricted to an internal allowlist")
	}
	return nil
}

// RequireKey returns an EUNAUTHORIZED error for a keyless (Playground) caller,
// for routes and MCP, which are not keyless.
func RequireKey(c Caller) error {
	if c.KeyID == "" {
		return apperr.Errorf(apperr.EUNAUTHORIZED, "this route requires an API key: send Authorization: Bearer <API_KEY>")
	}
	return nil
}
