// Package bench holds cross-layer benchmarks and the load harness; nothing
// here runs in make test except compile checks and the harness's own tests.
//
// The load harness is bench/cmd/cardbench (make bench, make bench-quick; see
// the README's Benchmarks section) with its machinery in bench/load and two
// helper servers: bench/cmd/ceiling (the minimal fasthttp reference) and
// bench/cmd/benchedge (the edge for the keyed vs keyless comparison).
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
// # Caveats
//
// Figures depend on the machine and on what else runs on it: compare runs of
// one machine with benchstat, never absolute numbers across machines. Peak
// RSS comes from the child's rusage (Linux reports KiB).
package bench
