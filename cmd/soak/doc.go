// Command soak runs the cardedge binary for a long time under a fixed-rate
// REST read mix plus MCP sessions, and reports whether it stays flat:
// resident memory (RSS) growth, goroutine drift and the count of 5xx.
//
//	soak [--duration 10m] [--rate 200] [--mcp-rate 2] [--edge bin/cardedge]
//	     [--cardbuild bin/cardbuild] [--snapshots DIR] [--sample 10s] [--json FILE]
//
// It builds the tiny snapshot with cardbuild (unless --snapshots names a
// root), creates keys with `cardedge keys create`, starts `cardedge serve`
// as a child process on a free loopback port, warms up, then sends requests
// on a fixed schedule (open loop: a slow server does not slow the
// generator; requests the generator could not hand to a worker in time are
// counted as dropped). Every --sample it reads the edge's VmRSS from
// /proc/<pid>/status and go_goroutines from /metrics.
//
// The mix: card detail with includes, card lists with filters and offsets,
// sales pages following their cursors, price, market and marketplace
// history, analytics, VWAP, trending, market volume, listings, sets and
// their breakdowns, search, lookup, batch (POST) and prices; a slice of it
// with a metered Free key and without a key (Playground), whose 429s are
// expected. MCP sessions (when /api/v3/mcp/ is mounted) initialize, list
// tools, call search and quote, and end with DELETE; one in ten is
// abandoned without DELETE (the per-key session cap must bound them).
//
// Exit status 1 when any response is a 5xx or a transport error, or the
// edge exits. Run it with `make soak` (SOAK_DURATION=2m for a short one).
//
// It imports bench/load and the standard library; the edge and the builder
// run as child processes.
package main
