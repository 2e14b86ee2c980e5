package state

// Shared counters: the day counters and token buckets that the access layer
// keeps per key (and per account's chat) and that the replicas of a fleet
// share, so that a quota or a rate limit is one across them. A store of
// them (state/redis's Counter) applies a Charge atomically: the bucket is
// refilled, a token taken and the units added to the day's counter, or
// nothing changes and the result says which limit refused it. These are the
// types it speaks; the access layer declares the interface it needs
// (access.Counter) and keeps the policy: the limits, the local counting
// while the store cannot be reached, and what is owed to it after.

// ChargeStatus is the outcome of a Charge.
type ChargeStatus int8

// Outcomes of a Charge.
const (
	// ChargeQuota: refused, the day's quota would be exceeded.
	ChargeQuota ChargeStatus = 0
	// ChargeRate: refused, the bucket has no token.
	ChargeRate ChargeStatus = 1
	// ChargeAllowed: a token was taken and the units counted.
	ChargeAllowed ChargeStatus = 2
)

// A Charge is one call to count against the day counter and the token
// bucket of ID.
type Charge struct {
	// ID owns the counter and the bucket: a key id or an account id.
	ID string
	// Day is the UTC day of the counter, in days since 1970-01-01.
	Day int
	// NowMs is now in Unix milliseconds: the bucket's clock.
	NowMs int64
	// RatePerSec and Burst are the bucket's refill rate and size.
	RatePerSec, Burst float64
	// Quota is the day's limit; Units what this call costs.
	Quota, Units int64
	// Floor is what the caller knows ID was admitted on Day: a counter that
	// is missing (a store that lost its data) starts from it, never from 0.
	Floor int64
}

// ChargeResult is what a Charge left: its status, the day's counter and
// the bucket's tokens (times 1,000) after it.
type ChargeResult struct {
	Status      ChargeStatus
	Used        int64
	TokensMilli int64
}

// Owed is what a caller admitted on Day while the shared counters could not
// be reached: Units are added to ID's counter of Day, and a missing counter
// becomes max(Floor, Units), Floor being everything the caller knows was
// admitted that day.
type Owed struct {
	ID           string
	Day          int
	Units, Floor int64
}
