// Command benchedge is the edge built for one comparison only: the cost of
// the access layer on a cached hit (issue 4), keyed vs keyless, in the same
// run. It is the real edge (edge.New, the real access.Service and cache) with
// one change: the access layer's clock moves one second forward on every
// reading, so the Playground limit (1 request/s per client address) never
// refuses the load generator's loopback address, while a keyless request
// still does all its work (Authenticate without a key, the per-address
// bucket under its shard lock, the headers). Keyed requests pay the same
// clock, so the comparison is fair; never use it for anything else.
//
//	benchedge --snapshots DIR --state FILE [--addr 127.0.0.1:PORT] [--cache-mb 256]
//
// It imports edge, edge/access, state/bolt and the standard library.
package main
