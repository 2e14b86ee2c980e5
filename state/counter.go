package state

// Shared counters: the day counters and token buckets that the access layer
// keeps per key (and per account's chat) and that the replicas of a fleet
// share, so that a quota or a rate limit is one across them. A store of
// them (state/redis's Counter) applies a Charge atomically: what the caller
// admitted on its own is recorded, the bucket is refilled, a token taken and
// the units added to the day's counter, or nothing changes and the result
// says which limit refused it; and the caller's grant (the units it may
// admit on its own) is settled and topped up. These are the types it speaks;
// the access layer declares the interface it needs (access.Counter) and
// keeps the policy: the limits, the bound of what replicas admit on their
// own, the local counting while the store cannot be reached, and what is
// owed to it after.

// ChargeStatus is the outcome of a Charge.
type ChargeStatus int8

// Outcomes of a Charge.
const (
	// ChargeQuota: refused, the day's quota would be exceeded.
	ChargeQuota ChargeStatus = 0
	// ChargeRate: refused, the bucket has no token.
	ChargeRate ChargeStatus = 1
	// ChargeAllowed: a token was taken and the units counted (or Units was
	// 0: nothing to decide).
	ChargeAllowed ChargeStatus = 2
)

// A Charge is one call to count against the day counter and the token
// bucket of ID, what the caller admitted on its own since it last said so,
// and its grant: any of the three.
type Charge struct {
	// ID owns the counter and the bucket: a key id or an account id.
	ID string
	// Day is the UTC day of the counter, in days since 1970-01-01.
	Day int
	// NowMs is now in Unix milliseconds: the bucket's clock.
	NowMs int64
	// RatePerSec and Burst are the bucket's refill rate and size.
	RatePerSec, Burst float64
	// Quota is the day's limit; Units what this call costs, 0 for none (a
	// Charge that only records Admitted and settles the grant).
	Quota, Units int64
	// Floor is what the caller knows ID was admitted on Day and the store
	// has (the caller's own unsent admissions left out): a counter that is
	// missing (a store that lost its data) starts from it, never from 0.
	Floor int64

	// Admitted units in Calls calls were answered by the caller on its own:
	// they are added to the counter and Calls tokens taken from the bucket
	// (which may go below zero: a debt that later refills pay) before Units
	// is decided, without a check. With Holder set they came out of its
	// grant.
	Admitted, Calls int64
	// Holder names the caller's grant of ID's Day (a replica's id); empty
	// means the grant is neither read nor changed.
	Holder string
	// Want is the balance the caller asks its grant to hold after the
	// Charge; Return is what it gives back unused. The grants of one ID and
	// Day together hold at most Slack, and are topped up only while the
	// counter plus every grant stays Slack below Quota (Near beyond).
	Want, Return, Slack int64
	// LeaseMs is how long, on the store's clock, a grant lives unless a
	// later Charge of its Holder renews it.
	LeaseMs int64
}

// ChargeResult is what a Charge left: its status, the day's counter and
// the bucket's tokens (times 1,000) after it, and the caller's grant.
type ChargeResult struct {
	Status      ChargeStatus
	Used        int64
	TokensMilli int64
	// Grant is Holder's balance after the Charge: the units it may still
	// admit on its own (less what it admitted since it sent the Charge).
	Grant int64
	// Near says that the counter and the grants are within Slack of the
	// quota (Holder set): no more grants for the day; charge exactly.
	Near bool
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
