// Package state is the one state store of cardedge: everything a server
// remembers between requests and restarts that is not the snapshot (API
// keys, daily usage, import previews, collections, MCP cohorts; next,
// accounts, sessions and audit logs). Its users (edge/access, the collection
// imports, mcp, the cardedge command) go through this package and nothing
// else: none of them opens the state file or names a bbolt bucket.
//
// It imports only the standard library. It defines:
//
//   - Store and Tx, the interface every implementation provides: state/bolt
//     (the embedded default, one bbolt file shared by the processes of one
//     node) and, for a fleet (#22), a Redis store;
//   - every bucket, with its key layout and lifetime, in buckets.go;
//   - Table, a typed view of a bucket (JSON values);
//   - the sentinel errors (ErrNotFound, ErrConflict, ErrUnavailable,
//     ErrCorrupt, ErrFormat).
//
// state/statetest has MustOpen, which opens a store for a test and checks it
// in the test's Cleanup, and TestStore, the conformance suite every
// implementation passes.
//
// # Model
//
// A store is a set of buckets of records (bytes, JSON by convention) or of
// counters (int64). Everything is expressed as operations on one record (get,
// put, put-if-absent, delete, add to a counter), scans of one bucket by key
// prefix (ascending or descending, from a key, with a limit) and
// transactions (View, Update). Each record and counter may have a TTL: the
// one expiry mechanism. Expired records are invisible at once and swept
// later; nothing else prunes. The store's clock (its Options.Now) decides
// what has expired; callers pass durations, never absolute times, so their
// own clock and the store's may differ.
//
// # Caveats
//
// Values a Tx returns ([]byte from Get and Scan) are valid only inside the
// transaction, as in bbolt: copy them, or use Table, which decodes them.
//
// Update's fn may run more than once (an optimistic store runs it again when
// a record it read changed before its commit). It must not have effects
// outside the transaction (no channel sends, no requests, no caching of what
// it read) and must set its results afresh on each run.
//
// View gives a snapshot in bbolt but not in Redis, where each read sees the
// latest value: when two records must agree, read them in an Update.
//
// Transactions are short: a bbolt store locks the whole file while one
// writes, and other processes wait for it. Nothing per request on a hot path
// may touch the store: edge/access counts usage in memory and adds it once a
// second.
//
// # A Redis store
//
// The interface is meant to map onto Redis (#22) with no operation that only
// bbolt can do:
//
//   - a record is a string key "<prefix><bucket>:<key>" holding the value;
//     its TTL is the key's (SET ... PX ttl; no TTL: plain SET, which also
//     clears an old one). Counters are string keys too (INCRBY, then
//     PEXPIRE when ttl > 0).
//   - scans use one sorted set per bucket, "<prefix><bucket>:_keys", with
//     every member scored 0, so ZRANGEBYLEX / ZREVRANGEBYLEX with LIMIT give
//     prefix, After, Reverse and Limit. Put and Add ZADD the key; Delete
//     ZREMs it; a member whose key has expired is skipped by scans and
//     removed by a sweep (a second sorted set scored by expiry time,
//     trimmed with ZRANGEBYSCORE/ZREM).
//   - Update is an optimistic transaction: every record key fn reads (Get,
//     Insert's check, a scan's sorted set) is WATCHed before it is read;
//     writes are buffered in the Tx (so fn reads its own writes) and sent
//     in one MULTI/EXEC; EXEC failing because a watched key changed runs fn
//     again, a few times, then answers ErrConflict. Counters are not
//     watched (Adds commute): Count inside Update returns the value read
//     plus the transaction's own Adds. Insert is a watched read that finds
//     nothing plus a SET in the MULTI.
//   - View runs fn on plain reads (no WATCH, no MULTI).
//   - Check SCANs the prefix and verifies every value as state/bolt does.
//   - Redis unreachable or timing out is ErrUnavailable: callers keep what
//     they hold in memory (edge/access keeps its key table and counts
//     locally) and writes that need the store (sign-up, key creation)
//     answer 503 with nothing half-written, since a MULTI is all or nothing.
//
// What the next users need, and the operations that give it:
//
//   - accounts unique by email: Insert into AccountEmails and Put into
//     Accounts in one Update;
//   - sessions with idle expiry: Put with the idle TTL, again on use; sign
//     out everywhere: a prefix Scan of the account's sessions, then Deletes;
//   - an audit log newest first: keys ending with a fixed-width time, a
//     Reverse Scan of the account's prefix with a Limit, After to page;
//   - daily usage and refusals by reason kept 90 days: counters in Usage
//     with a TTL, a prefix Scan of the key for its history;
//   - last-used times: a Put per key and sync into LastUsed;
//   - key changes reaching every replica within a second: the MetaKeysRev
//     counter, read once a second.
package state
