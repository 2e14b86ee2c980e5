// Package snapshotstest builds real snapshots for tests: the tiny preset of
// the shipped catalog, compiled by the real builder.
//
// It imports builder (it is a test helper, like net/http/httptest),
// snapshots, snapshots/bolt, snapshots/gold and index; no production package
// imports it.
//
// What a package's tests share, built once:
//
//   - OpenTiny builds the tiny snapshot into a temporary directory and
//     opens its reader and index; RunTiny and RunView are a TestMain's
//     body over it (RunView hands the tests a view of it, a live.View:
//     resolve, pricing, agent, collection).
//   - Shared builds and opens it on the package's first use instead, closed
//     by the TestMain (mcp, web); SharedRoot builds a snapshots root on
//     first use, with the tiny snapshot or what its Build makes (edge,
//     live).
//   - MustOpen verifies and opens a snapshot directory for one test; Day
//     parses a fixture's day.
//
// # Caveats
//
// A build takes a few seconds (about 40 under -race). Build compiles each
// (seed, as_of, id) once per state of the source tree and copies it from a
// cache in the user's cache directory afterwards (cache.go; off with
// CARDEDGE_SNAPSHOT_CACHE=off): make test's packages share one build
// instead of one each. Still build once per package and only read the
// snapshot in tests.
package snapshotstest
