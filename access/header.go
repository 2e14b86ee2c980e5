package access

import (
	"math"
	"strconv"
)

// Response header names.
const (
	HeaderTier            = "X-Service-Tier"
	HeaderHistoryDays     = "X-Service-History-Days"
	HeaderRateLimitPolicy = "RateLimit-Policy"
	HeaderRateLimit       = "RateLimit"
	HeaderRetryAfter      = "Retry-After"
)

// HistoryUnlimited is the X-Service-History-Days value of a tier without a
// history window (Elite).
const HistoryUnlimited = "unlimited"

var (
	hdrTier        = []byte(HeaderTier)
	hdrHistoryDays = []byte(HeaderHistoryDays)
	hdrPolicy      = []byte(HeaderRateLimitPolicy)
	hdrRateLimit   = []byte(HeaderRateLimit)
	hdrRetryAfter  = []byte(HeaderRetryAfter)

	tierValues    [numTiers][]byte
	historyValues [numTiers][]byte
	policyValues  [numTiers][]byte
)

func init() {
	for t := Playground; t < numTiers; t++ {
		l := LimitsOf(t)
		tierValues[t] = []byte(t.String())
		if l.HistoryDays == 0 {
			historyValues[t] = []byte(HistoryUnlimited)
		} else {
			historyValues[t] = strconv.AppendInt(nil, int64(l.HistoryDays), 10)
		}
		var p []byte
		if l.DailyQuota > 0 {
			p = append(p, `"daily";q=`...)
			p = strconv.AppendInt(p, int64(l.DailyQuota), 10)
			p = append(p, ";w=86400, "...)
		}
		p = append(p, `"burst";q=`...)
		p = strconv.AppendInt(p, int64(l.Burst), 10)
		p = append(p, ";w="...)
		p = strconv.AppendInt(p, int64(math.Ceil(l.Burst/l.RatePerSec)), 10)
		policyValues[t] = p
	}
}

// TierValue returns the X-Service-Tier value of t (playground, free, pro,
// elite). The slice is shared: do not modify it.
func TierValue(t Tier) []byte { return tierValues[tierIndex(t)] }

// HistoryDaysValue returns the X-Service-History-Days value of t: the window
// in days ("3", "7"), or "unlimited" for Elite. The slice is shared.
func HistoryDaysValue(t Tier) []byte { return historyValues[tierIndex(t)] }

// PolicyValue returns the RateLimit-Policy value of t, in the structured-field
// syntax of draft-ietf-httpapi-ratelimit-headers (-08 and later):
//
//	"daily";q=100;w=86400, "burst";q=10;w=2
//
// "daily" is the day quota (q units per UTC day; a batch spends one unit per
// id). "burst" is the token bucket: q requests at once, refilled over w
// seconds, which is also the sustained rate (q/w per second). Playground has
// only "burst";q=1;w=1. The slice is shared: do not modify it.
func PolicyValue(t Tier) []byte { return policyValues[tierIndex(t)] }

// tierIndex maps an invalid tier to Playground, as LimitsOf does.
func tierIndex(t Tier) Tier {
	if t >= numTiers {
		return Playground
	}
	return t
}

// AppendRateLimit appends the RateLimit value of d to dst:
//
//	"daily";r=42;t=3600, "burst";r=9;t=1
//
// r is what is left, t the seconds until it is whole again (the next 00:00 UTC
// for "daily", a full bucket for "burst"). It does not allocate when dst has
// room (64 bytes is enough).
func AppendRateLimit(dst []byte, d Decision) []byte {
	if LimitsOf(d.Tier).DailyQuota > 0 {
		dst = append(dst, `"daily";r=`...)
		dst = strconv.AppendInt(dst, int64(max(0, d.Remaining)), 10)
		dst = append(dst, ";t="...)
		dst = strconv.AppendInt(dst, int64(d.Reset), 10)
		dst = append(dst, ", "...)
	}
	dst = append(dst, `"burst";r=`...)
	dst = strconv.AppendInt(dst, int64(max(0, d.RateRemaining)), 10)
	dst = append(dst, ";t="...)
	dst = strconv.AppendInt(dst, int64(d.RateReset), 10)
	return dst
}

// HeaderSetter is the part of a response header the access layer writes to;
// *fasthttp.ResponseHeader implements it. SetBytesKV must copy its arguments.
type HeaderSetter interface {
	SetBytesKV(key, value []byte)
}

// SetHeaders writes the access headers of decision d: X-Service-Tier,
// X-Service-History-Days, RateLimit-Policy and RateLimit (both left out for
// unmetered keys), and Retry-After when d refused the request. buf is scratch
// space, returned (possibly grown) for reuse; SetHeaders does not allocate when
// buf has 64 bytes of capacity.
func SetHeaders(h HeaderSetter, d Decision, buf []byte) []byte {
	h.SetBytesKV(hdrTier, TierValue(d.Tier))
	h.SetBytesKV(hdrHistoryDays, HistoryDaysValue(d.Tier))
	if !d.Unmetered {
		h.SetBytesKV(hdrPolicy, PolicyValue(d.Tier))
		buf = AppendRateLimit(buf[:0], d)
		h.SetBytesKV(hdrRateLimit, buf)
	}
	if !d.Allowed && d.RetryAfter > 0 {
		buf = strconv.AppendInt(buf[:0], int64(d.RetryAfter), 10)
		h.SetBytesKV(hdrRetryAfter, buf)
	}
	return buf
}
