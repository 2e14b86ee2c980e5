// Package bolt is the embedded state store: a state.Store in one bbolt file
// (the state file, state.bolt), shared by the edge server, its replicas on
// the same node and the cardedge CLI. It is the only package that opens the
// state file; the snapshots' bbolt files are snapshots/bolt's.
//
// It imports the standard library, state and go.etcd.io/bbolt. Callers
// import it as statebolt.
//
// # Sharing one file between processes
//
// bbolt locks a file exclusively while it is open for writing, so no process
// keeps it open: each View, Update and Check opens it, runs one transaction
// and closes it, waiting up to Options.LockTimeout (5 s) for the lock, or
// less when the context's deadline is sooner; waiting longer is ErrLocked
// (state.ErrUnavailable), and nothing was written. The edge syncs once a
// second with a 1 s deadline, the CLI waits 5 s.
//
// # A damaged file is refused, never reset
//
// Open creates a missing file; afterwards a file that disappeared is
// ErrMissing, never recreated (a running server would start an empty key
// table). An existing empty file and a file shorter than its meta page says
// are ErrCorrupt before bbolt opens them (bbolt would initialize the first
// and fault on the second); a memory fault or a bbolt panic reading a damaged
// page is an ErrCorrupt error, not a crash; Check runs bbolt's consistency
// check and decodes every record. The file is left byte for byte as it was.
//
// # Layout and formats
//
// One bbolt bucket per state bucket, each value a 9-byte header (kind,
// expiry) and its payload, an index of expiring records that every Update
// sweeps (at most 1,000 a time), and a format marker: see tx.go. Files of
// format 1 (access's own layout, before this package) are upgraded in
// place by the first transaction that opens them, keeping every key, the
// usage still within 90 days, the key table's revision, previews and cohorts
// that have not expired, and collections; an older binary then refuses the
// file with its format error instead of misreading it.
//
// # Caveats
//
// Values a transaction returns are valid only inside it. A panic of the
// function given to View or Update is that function's and goes on as a
// panic; a panic or fault inside bbolt is ErrCorrupt. Every transaction maps
// the file anew: keep them few (once a second, once per user action), never
// per request on a hot path.
package bolt
