// Command benchedge is the edge built for two comparisons only: the cost of
// the access layer on a cached hit (issue 4), keyed vs keyless, in the same
// run; and the cost of shared state (issue 22), a metered key charged in
// the edge's memory (--state FILE) vs in Redis (--redis URL, one round trip
// per charged request). It is the real edge (edge.New, the real access.Service and cache) with
// one change: the access layer's clock moves one second forward on every
// reading, so the Playground limit (1 request/s per client address) never
// refuses the load generator's loopback address, while a keyless request
// still does all its work (Authenticate without a key, the per-address
// bucket under its shard lock, the headers). Keyed requests pay the same
// clock, so the comparison is fair. With --clock-step 10s an Elite key's
// day (10,000 calls) is 8,640 readings long and its bucket full at every
// request, so a metered key is charged and never refused: every request
// does a charge's full work (in Redis, the script). --clock-step 0 is the
// wall clock (cardbench's many-keys comparison, each key within its limits).
// --make-keys N --keys-out FILE creates N metered Elite keys in the store,
// writes their secrets to FILE and exits. Never use it for anything else.
//
//	benchedge --snapshots DIR --state FILE|--redis URL [--addr 127.0.0.1:PORT] [--cache-mb 256] [--clock-step 1s]
//	benchedge --snapshots DIR --state FILE|--redis URL --make-keys N --keys-out FILE
//
// It imports edge, live, pokemontcg (/v2's derivation), collection,
// access, state, state/bolt, state/redis and the standard library.
package main
