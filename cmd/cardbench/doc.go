// Command cardbench is the load harness of cardedge (make bench, make
// bench-quick): it builds or reuses a snapshot, starts the edge (cached and
// uncached) on loopback pinned to one CPU, the references (a minimal
// fasthttp handler and nginx serving the same bytes) on the same CPU, drives
// them from the other CPU, and prints a table and writes a JSON report with
// the commit, the machine and every figure to bench/out/.
//
//	cardbench [--mode quick|full] [--only carddetail,access,shared,mix,typeahead,lookup,search,mcp,swap,pull,build] [--no-nginx] [--large]
//
// Workloads: card detail (cached, uncached, access layer keyed vs keyless,
// shared state: a metered key charged in memory vs in Redis),
// the REST read mix at 16/64/256 connections, typeahead keystrokes, HTTP
// lookup at a fixed rate (5,000/s over 64 connections, open loop), HTTP
// search with plain words and with the search syntax's terms (the uncached
// edge at a fixed rate, open loop, p50/p99 and CPU per request), MCP
// agents, a snapshot swap under load, one replica fed from S3 (publish,
// first fetch, a swap under load: needs versitygw, make fleet-test installs
// it), the nightly build. Run from the repository root after make build
// (make bench does both).
//
// It imports bench/load, bench/queries, snapshots, snapshots/bolt,
// snapshots/s3 and snapshots/s3/s3test (the swap workload's bucket), go-redis
// and the standard library, and runs the other binaries (bin/cardedge,
// bin/cardbuild, bin/ceiling, bin/benchedge) as processes.
package main
