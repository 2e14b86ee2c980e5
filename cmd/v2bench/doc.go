// Command v2bench measures /v2/cards (pokemontcg.io's v2 API) beside
// /api/v3/cards with the same filter, over HTTP on loopback: it starts a
// cached and an uncached cardedge (bin/cardedge serve, --cache-mb 256 and 0)
// over a snapshots root, each with an unmetered Elite key, pinned to one
// CPU, and for each q offers /v2/cards?q=..&pageSize=250 (the key in
// X-Api-Key) and /api/v3/cards?q=..&limit=200 (its largest page; Bearer)
// at a fixed rate, open loop, and prints p50, p99 and the server's CPU per
// request. The cached edge answers a repeated keyed request from its
// front-door memo; the uncached one matches, sorts and writes every page.
//
//	make snapshot && make build
//	go run ./cmd/v2bench [--snapshots var/snapshots] [--bin bin] [--q 'q1|q2'] [--rate 40] [--duration 15s]
//
// It imports bench/load and the standard library, and runs bin/cardedge as
// processes.
package main
