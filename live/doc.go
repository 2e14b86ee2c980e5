// Package live holds the snapshot a server answers from: it opens and
// verifies a snapshot, swaps to a new one when CURRENT names it, pins a
// snapshot for each caller that reads it (reference counting) and closes a
// retired one when its last reader is done.
//
// View is the one type every reader of an open snapshot uses: the REST
// front door (edge), the MCP tools, the dashboard (web), the resolver,
// pricing's quotes, collections and the agent. A View carries the
// snapshot's reader (snapshots.Reader over its bbolt files), its Bleve index,
// its gold tables (SQLite), its as_of day and its generation (Gen numbers the
// snapshots one process opened; response caches key on it).
//
// Adapters that keep data of their own per snapshot (edge's encoded cards
// and list orders) register a Derivation: it is built when the snapshot is
// opened, before it serves (so the first requests after a start or a swap
// do not pay for it), and read with View.Derived.
//
// Ready decides a replica's readiness (/ready) from the snapshot it serves
// and its snapshot source's state (fleet mode: published, pinned, fetching,
// refused, unreachable).
//
// It imports apperr, snapshots, snapshots/bolt, snapshots/gold, index and
// the standard library.
//
// # Caveats
//
//   - Acquire returns a pinned View: call Release exactly once when done.
//     Bytes and records read through it stay valid until then (the bbolt
//     reader copies values out of its transactions; see snapshots/bolt).
//   - Never close a View's Reader, Index or Gold: the Live closes them when
//     the retired snapshot's last reader releases it.
//   - A View made by NewView (tests, tools) is not reference counted and not
//     closed by this package: its maker closes what it opened.
//   - A snapshot that does not verify, or whose files make a library panic
//     while opening (Bleve does on a broken segment), is refused: the old
//     one keeps serving and the refused id is not retried until CURRENT
//     names another.
package live
