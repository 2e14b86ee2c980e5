// Package redis is the state store of a fleet: a state.Store in Redis,
// shared by every edge replica and the cardedge CLI (keys, accounts,
// state migrate), so that any replica serves any user. It passes
// statetest.TestStore, the conformance suite state/bolt passes.
//
// It imports the standard library, state and go-redis. Callers import it as
// stateredis.
//
// # Layout
//
// Below a prefix ("cardedge:state:"):
//
//	format            "1"
//	d:<bucket>:<key>  a hash per record {v: bytes, e: expiry} or counter {n: int64, e: expiry}
//	i:<bucket>        the bucket's keys, a sorted set with every score 0: ZRANGEBYLEX
//	                  gives prefix, After, Reverse and Limit in byte order, as bbolt's cursor
//	x                 the data keys that expire, scored by their expiry
//
// Expiries are Unix milliseconds of the store's clock (Options.Now), so that
// the store's clock, not Redis's, decides what has expired (tests move the
// clock by hours). A data key that expires also gets a Redis TTL of its
// remaining time plus an hour, so that Redis reclaims it even if nothing
// sweeps; Update sweeps what expired (up to 200 keys) after each commit.
//
// # Transactions
//
// View runs on plain reads: each sees the latest value (not a snapshot, as
// in bbolt). Update is optimistic: every record its function reads (Get,
// Insert's check, the index and the values of a scan) is WATCHed before it
// is read, writes are buffered (the function reads its own), and the commit
// is one Lua script inside MULTI/EXEC, so all or nothing; a watched key that
// changed meanwhile runs the function again (Options.Attempts, 10), then
// state.ErrConflict. Counters are not watched: Adds commute.
//
// # Redis down
//
// A Redis that does not answer within Options.Timeout (1 s), or that is
// loading or read-only, is state.ErrUnavailable, which names the error code
// "unavailable" (HTTP 503). A failed commit wrote nothing. The edge keeps its
// key table and counts in memory meanwhile (access) and answers writes
// that need the store with 503.
//
// Export and Import (state.Exporter, state.Importer) move a state file into
// an empty Redis exactly: cardedge state migrate.
//
// # Caveats
//
// One Redis (with replicas or Sentinel for failover), not Redis Cluster: a
// commit's keys span hash slots. Keep its data: AOF with appendfsync
// everysec loses at most a second of writes on a crash (see the README).
// Check SCANs every key of the prefix: seconds for a large store.
package redis
