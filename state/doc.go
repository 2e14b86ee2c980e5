// Package state is the one state store of cardedge: everything a server
// remembers between requests and restarts that is not the snapshot (API
// keys, daily usage, import previews, collections, MCP cohorts; next,
// accounts, sessions and audit logs). Its users (access, the collection
// imports, mcp, the cardedge command) go through this package and nothing
// else: none of them opens the state file or names a bbolt bucket.
//
// It imports only the standard library. It defines:
//
//   - Store and Tx, the interface every implementation provides: state/bolt
//     (the embedded default, one bbolt file shared by the processes of one
//     node) and state/redis (the shared store of a fleet);
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
// may touch the store: access counts usage in memory and adds it once a
// second.
//
// # The Redis store
//
// state/redis maps the interface onto Redis with no operation that only
// bbolt can do (its package doc has the layout): a record or counter is a
// hash holding its value and its expiry by the store's clock; one sorted set
// per bucket with every score 0 gives ordered prefix scans (ZRANGEBYLEX);
// Update is an optimistic transaction (WATCH what fn reads, buffer its
// writes, commit them in one script inside MULTI/EXEC, run fn again when a
// watched key changed); View runs on plain reads; Redis unreachable is
// ErrUnavailable, and a failed commit wrote nothing. Export and Import
// (Migrate) move a state file into it exactly.
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
