// Package snapshotstest builds real snapshots for tests: the tiny preset of
// the shipped catalog, compiled by the real builder.
//
// It imports builder (it is a test helper, like net/http/httptest),
// snapshots, snapshots/bolt and index; no production package imports it.
//
// OpenTiny builds the tiny snapshot into a temporary directory and opens its
// reader and index: what a package's TestMain shares (resolve, pricing,
// agent). Shared builds it on a package's first use instead and is closed
// by the TestMain (mcp, web).
//
// # Caveats
//
// A build takes a few seconds (about 40 under -race): build once per
// package (TestMain, or a sync.Once) and only read the snapshot in tests.
package snapshotstest
