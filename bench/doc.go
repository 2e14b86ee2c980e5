// Package bench holds cross-layer benchmarks and the load harness; nothing
// here runs in make test except compile checks.
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
