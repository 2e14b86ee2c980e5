package access

import (
	"fmt"
	"time"

	"github.com/cardedge/cardedge/apperr"
)

// CheckTier reports whether caller c may use something that needs tier min
// (what: its name in the message): EUNAUTHORIZED without a key when min is
// above Playground, EFORBIDDEN for a key of a lower tier.
func CheckTier(c Caller, min Tier, what string) error {
	if c.Tier >= min && c.Tier.Valid() {
		return nil
	}
	if c.KeyID == "" {
		return apperr.Errorf(apperr.EUNAUTHORIZED, "%s needs an API key of the %s tier: send Authorization: Bearer <API_KEY>", what, min)
	}
	return apperr.Errorf(apperr.EFORBIDDEN, "%s needs the %s tier; this key is %s", what, min, c.Tier)
}

// DownloadsPerMinute is how many bulk file downloads a client may start per
// minute (a token bucket refilled at that rate, holding as many): per client
// address without a key, per key with one, on each server.
const DownloadsPerMinute = 6

// Downloads limits bulk file downloads (DownloadsPerMinute), apart from the
// Playground's per-second rule and the keys' quotas: a file is many
// requests' worth of bytes. Safe for concurrent use.
type Downloads struct {
	perMinute int
	now       func() time.Time
	shards    [numAddrShards]addrShard
}

// NewDownloads returns a limiter of perMinute downloads per client (< 1 =
// DownloadsPerMinute); now nil means time.Now.
func NewDownloads(perMinute int, now func() time.Time) *Downloads {
	if perMinute < 1 {
		perMinute = DownloadsPerMinute
	}
	if now == nil {
		now = time.Now
	}
	d := &Downloads{perMinute: perMinute, now: now}
	for i := range d.shards {
		d.shards[i].m = map[string]*bucket{}
	}
	return d
}

// PerMinute is the limiter's rate.
func (d *Downloads) PerMinute() int { return d.perMinute }

// sweepAbove is the number of clients a shard holds before Take drops the
// full buckets from it.
const sweepAbove = 1024

// Take spends one download of caller c: its key, or its client address
// without one; an unmetered key (load tests) is never refused. When none is
// left it returns an EQUOTA *apperr.Error and the seconds until one is
// (Retry-After).
func (d *Downloads) Take(c Caller) (retryAfter int, err error) {
	if c.Unmetered && c.KeyID != "" {
		return 0, nil
	}
	who := "k:" + c.KeyID
	if c.KeyID == "" {
		who = "a:" + c.ClientAddr
	}
	rate, burst := float64(d.perMinute)/60, float64(d.perMinute)
	now := d.now().UnixNano()
	sh := &d.shards[addrHash(who)%numAddrShards]
	sh.mu.Lock()
	if len(sh.m) > sweepAbove {
		for k, b := range sh.m {
			if b.full(now, rate, burst) {
				delete(sh.m, k)
			}
		}
	}
	b := sh.m[who]
	if b == nil {
		b = &bucket{}
		sh.m[who] = b
	}
	b.refill(now, rate, burst)
	if b.tokens < 1 {
		wait := waitSeconds(b.tokens, rate)
		sh.mu.Unlock()
		scope := "client address"
		if c.KeyID != "" {
			scope = "key"
		}
		return wait, &apperr.Error{Code: apperr.EQUOTA,
			Message: fmt.Sprintf("bulk downloads are limited to %d per minute per %s; retry in %d s", d.perMinute, scope, wait)}
	}
	b.tokens--
	sh.mu.Unlock()
	return 0, nil
}
