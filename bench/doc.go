// Package bench holds cross-layer benchmarks and the load harness; nothing
// here runs in make test except compile checks and the harness's own tests.
//
// The load harness is cmd/cardbench (make bench, make bench-quick; see
// the README's Benchmarks section) with its machinery in bench/load and two
// helper servers: cmd/ceiling (the minimal fasthttp reference) and
// cmd/benchedge (the edge for the keyed vs keyless comparison).
//
// BenchmarkBuild runs the real cardbuild binary per preset and reports wall
// time, peak RSS, snapshot size and sales. The tiny preset runs by default;
// default and large only when CARDEDGE_BENCH_PRESETS names them:
//
//	go test ./bench -run '^$' -bench Build -benchtime 1x
//	CARDEDGE_BENCH_PRESETS=tiny,default go test ./bench -run '^$' -bench Build -benchtime 1x -timeout 30m
//
// BenchmarkBuild uses only the standard library and drives the cardbuild
// binary it compiles from this module.
//
// BenchmarkLookup, BenchmarkLookupHTTP and BenchmarkSearch (issue 5) open
// the benchmark snapshots make bench builds (var/bench/default, and
// var/bench/large when present; CARDEDGE_BENCH_SNAPSHOTS=name=root,...
// names others) and report p50/p99/p99.9 per call: Index.Lookup over
// 10,000 prefixes of 1-6 characters, GET /api/v3/lookup through the whole
// uncached edge over an in-memory listener (with CPU per request), and
// Index.Search over 1,000 drawn queries. They skip without a snapshot:
//
//	go test ./bench -run '^$' -bench Lookup -benchtime 20000x
//	go test ./bench -run '^$' -bench 'Search$' -benchtime 3000x
//
// BenchmarkREST_CardLists (issue 8) runs the kinds of card-list request
// (by set, name fragment, card number, rarity, marketplace, the default
// and price orders) and the other routes of the REST read mix through the
// same uncached edge over the same snapshots, one at a time: p50/p99,
// allocations and CPU per request of each kind.
//
//	go test ./bench -run '^$' -bench REST_CardLists -benchtime 200x
//
// # Caveats
//
// Figures depend on the machine and on what else runs on it: compare runs of
// one machine with benchstat, never absolute numbers across machines. Peak
// RSS comes from the child's rusage (Linux reports KiB).
package bench
