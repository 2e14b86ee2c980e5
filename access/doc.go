// Package access is the one access layer of cardedge: API keys, tiers, daily
// quotas, per-second rate limits, usage accounting and history windows. The
// REST edge (fasthttp) and the MCP server both call it; the edge
// authenticates once per request and passes the Caller on (MCP gets it in the
// request context).
//
// It imports only the standard library, apperr, snapshots and state (the
// state store's interface and the types of its shared counters: it never
// opens the state file or Redis itself; main hands it a state.Store and, in a
// fleet, a Counter: state/redis's, over the state store's one Redis client).
//
// # A request
//
//	c, err := svc.Authenticate(ctx.Request.Header.Peek("Authorization"), addr)
//	// err: EUNAUTHORIZED (401). Keyed route and c is Playground: access.RequireKey(c).
//	// Batch: access.CheckBatch(c, len(ids)); SQL: access.CheckSQL(c).
//	d, err := svc.Charge(c, units) // 1, or the unique resolved ids of a batch
//	buf = access.SetHeaders(&ctx.Response.Header, d, buf)
//	// err: EQUOTA (429, Retry-After set by SetHeaders).
//	since = access.ClampSince(asOf, c.Tier, since, sinceSet)
//	limit = access.CapRows(c.Tier, limit)
//
// # Tiers
//
//	tier        quota/day  rate (burst)  history    rows  batch
//	playground  -          1/s (1)       3 days     50    - (needs a key)
//	free        100        5/s (10)      3 days     -     refused (403)
//	pro         2,000      20/s (40)     7 days     -     50 ids
//	elite       10,000     50/s (100)    unlimited  -     100 ids
//
// Playground's bucket is per client address, the others per key.
//
// Quotas count units per UTC day and reset at 00:00 UTC of the wall clock
// (Options.Now). A request takes one rate token whatever its units; a batch
// (REST or MCP) spends one quota unit per unique resolved id. A refused charge
// spends nothing. 429s carry Retry-After: the seconds to the next token for a
// rate refusal, the seconds to 00:00 UTC for a quota refusal (a quota refusal
// wins when both apply). Unmetered keys are never refused but are counted;
// they keep their tier's history window, row cap and batch rules.
//
// History windows: ClampSince raises since/date_from to as_of - days + 1 (as_of
// is the snapshot's day, not the wall clock); Elite is unclamped.
// X-Service-History-Days says "3", "7", or "unlimited" for Elite (the header
// is the tier's window, not the snapshot's length); in the /keys/usage JSON,
// history_days is null for Elite.
//
// # Keys
//
// A key secret is "ce_<t>_<43 base64url characters>": t is the tier letter (f,
// p, e) and the rest 32 bytes from crypto/rand. It is shown once by
// Keys.Create and stored only as its SHA-256 hash (of the whole string), in
// the state store's bucket state.Keys with a short public id ("k_" + 8 base32
// characters), a name (by default "key-" and the id's 8 characters), the
// tier, the sql and unmetered flags, and the creation and revocation times. Authenticate parses "Bearer <key>" (scheme in any case,
// exactly one space, no whitespace in the key), hashes the key, looks the hash
// up in a map and confirms it with crypto/subtle; an empty header value is a
// Playground caller (an empty or absent header are the same to fasthttp's
// Peek).
//
// # Chat-user tokens
//
// The dashboard's web chat authenticates with a short-lived JWT (package
// chattoken mints and verifies it; Options.Chat). Only the agent chat and
// MCP call AuthenticateChat, which verifies a Bearer credential shaped like
// a JWT (LooksLikeJWT: three base64url segments, the first "eyJ") and
// otherwise is Authenticate; every other route calls Authenticate, which
// answers a token with a 401 saying where it works, from its error path
// only: the key path is unchanged. A token's Caller has Account set and
// KeyID the account id: it is charged to the account's chat quota, its
// tier's quota and rate counted under "<account id>/<day>" beside the keys'
// counters (read back from the store when an account first calls, synced
// like a key's, no last-used time). AppsAccess (Pro, Elite) decides whether
// a token also gets MCP's chat tools. The dashboard's market pages of a
// signed-in account spend the same quota (ChargeAccount).
//
// # Response headers
//
// SetHeaders writes X-Service-Tier, X-Service-History-Days, Retry-After on a
// refusal, and the draft-ietf-httpapi-ratelimit-headers (-08 and later)
// fields, left out for unmetered keys:
//
//	RateLimit-Policy: "daily";q=100;w=86400, "burst";q=10;w=2
//	RateLimit: "daily";r=42;t=3600, "burst";r=9;t=1
//
// "daily" is the quota (t: seconds to 00:00 UTC). "burst" is the token bucket
// written as a window: q requests at once, refilled over w seconds (so q/w is
// the sustained rate); its t is the seconds until the bucket is full again.
// Playground has only "burst";q=1;w=1. The values are precomputed or appended
// into a caller buffer: no allocation.
//
// # Usage and the state store
//
// Usage is counted in memory per key and UTC day, under a per-key mutex, so
// counts are exact under any concurrency. A sync, every Options.SyncInterval
// (1 s) and on Close, adds the new counts to the state store (Options.State,
// counters "<key id>/<YYYY-MM-DD>" of bucket state.Usage, each expiring when
// its day falls out of RetainDays, 90), reads back today's totals (other
// processes on the same store) and reloads the key table when its revision
// (state.MetaKeysRev, moved by every change to a key) changed, so keys created
// or revoked by the CLI take effect within about a second, without a restart.
// Nothing is read or written per request.
//
// A sync waits at most Options.LockTimeout (1 s) for the store (the state
// file's lock); when the store is unavailable (locked, removed: a sync never
// recreates it) or fails, the counts simply wait in memory for the next sync
// and the key table stays as it was. Open fails rather than start with an
// empty table: with the store's error (state.ErrUnavailable) or
// state.ErrCorrupt naming a key record that does not decode. Checking the
// whole store (state/bolt: bbolt's consistency check) is the caller's, before
// Open (cardedge serve does it).
//
// Keys manages the key table (create, list, revoke) for the CLI; InsertKey,
// GetKey, UpdateKey and ScanKeys do the same inside a caller's transaction
// (package account: a key and its audit event commit together). Running
// services see changes at their next sync.
//
// A key may belong to an account (Key.Account), expire (Key.Expires: then a
// 401 with code key_expired, checked by Authenticate and again by Charge,
// which the edge's memo calls without Authenticate; one clock read, only for
// keys that expire) and be suspended (its account disabled: 401).
//
// # Activity
//
// Beside the charged units, each key counts in memory, per UTC day, the calls
// refused with 401 (a known key: revoked, expired, suspended), 403, 422 and
// 429 (Authenticate and Charge count 401s and 429s themselves, the edge calls
// CountRefused and CountRefusedBearer for the others), and its last charge.
// The sync adds the refusals to the state store ("<key id>/<day>/<status>"
// counters, kept RetainDays) and writes a key's last-used time when it moved
// a minute or more (every change at Close). A 401 for a token that names no
// key is not attributable and not counted. Activity reads all of it for the
// dashboard.
//
// Crash bound: a graceful Close flushes everything, so counts survive a
// restart exactly. A hard crash (SIGKILL, power loss) loses the units charged
// since the last sync: at most SyncInterval (1 s) of requests. Keys are
// written by the CLI in their own fsynced transaction and are never lost.
//
// # Several replicas: shared counters
//
// Without a Counter, each process enforces quotas and rates from its own
// memory; processes sharing one state store see each other's counts at every
// sync, so a key may overshoot its quota by what the other processes admit
// within about a second. With Options.Counter (state/redis's Counter), each
// charge of a metered key is applied to a shared token bucket and day
// counter atomically (in Redis, a Lua script run by EVALSHA), so all
// replicas share one quota and one bucket. The Redis counter batches: a
// charge that finds no round trip of its process in flight makes one at
// once; the charges that arrive meanwhile wait for it, then go together in
// one script run (up to 128), the charges of one key in one entry decided in
// turn: under load one command carries many charges, each with its own
// answer. Its calls have short timeouts (50 ms) and sit
// behind this package's circuit breaker (counter.go): the first failure opens
// it, and calls then count locally, with the same limits applied to the
// local counters (which follow the shared ones while they answer), adding no
// latency; charges queued behind the failed round trip fail at once (their
// context, the breaker's epoch, is cancelled). Each sync pings the Counter;
// when it answers, the units admitted meanwhile are added (Reconcile) and
// the breaker closes.
//
// Local admission (grant.go, issue 35): a replica answers a metered charge on
// its own when it holds a grant of the key's day (units the Counter set aside
// for it, on a lease of Redis's clock) and its view of the shared bucket
// holds a batch, and sends what it admitted in the background (sendLoop:
// every Options.SendInterval, 1 s, or at once when a batch fills; every
// key in one Settle), which tops grants up. A charge that finds the grant or
// the batch spent waits for that send (at most maxWaits, and at most a batch
// of a key's charges at once) before it is charged exactly. The bound, per key: past its daily quota by at most the slack (1 %
// of the quota, at least 5 units), since the grants together hold at most the
// slack and are topped up only while the counter plus every grant stays a
// slack below the quota; past its burst by at most one batch (a quarter of
// the burst) per replica. Near the quota (the Counter says so) or with less
// than a batch in the bucket's view, charges are exact. A failed send makes
// what it carried owed, as for a failed charge; the breaker drops every
// grant; Close gives them back. SendInterval < 0 turns local admission off.
//
// Policy: while Redis is
// down, a key may overshoot its quota (and its rate) by what the other
// replicas admit meanwhile, at most one quota per replica; a call that timed
// out after Redis ran it is counted twice (the strict side). A counter Redis
// lost (restart without persistence) is seeded from the state store's count
// of the day, which covers the replicas sharing that store. Unmetered keys and
// Playground callers never touch Redis: Playground's 1 request/s is per client
// address and per replica (route a client to one replica, or accept N/s for N
// replicas). Usage reads per-day history from the state store and today's
// count as the highest of the store, this process and the shared counter.
// A charge answered on a grant allocates nothing and makes no round trip;
// an exact one allocates (go-redis, the counter's keys) and waits for a
// round trip, shared by the charges batched with it. The sync reads every
// key's day total from the store in one Counts (one round trip in Redis).
//
// # Caveats
//
// Authenticate and Charge do not allocate for a valid key without a Counter; keep
// the Caller Authenticate returned (it caches the key's state). ClientAddr
// must be a string that outlives the request, not one aliasing fasthttp's
// buffers. Errors are *apperr.Error with codes EUNAUTHORIZED, EFORBIDDEN,
// EINVALID, ENOTFOUND and EQUOTA; state store errors wrap the sentinels of
// package state.
package access
