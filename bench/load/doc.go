// Package load is the machinery of the load harness (cmd/cardbench):
// child processes pinned to a CPU, wrk runs driven by a generated Lua
// script, an open-loop (fixed-schedule) HTTP generator, latency figures and
// a Zipf sampler.
//
// Allowed imports: the standard library and fasthttp (its client). It knows
// nothing about cardedge's routes: scenarios live in the command.
//
// # Two generators, on purpose
//
// Throughput (requests/s at 16/64/256 connections) is measured with wrk, a
// closed-loop C generator that needs about a third of a core for 100k+
// requests/s: a Go generator on the one core the harness leaves to the load
// side would saturate first and hide the server's ceiling. wrk's latencies
// are those of a saturated closed loop (they include queueing behind the
// connection's previous request), which is what a capacity figure is.
//
// Latency under a given load (typeahead keystrokes, the snapshot swap) is
// measured by the open-loop generator (Run): every request has a scheduled
// send time fixed in advance, and its latency is counted from that time, not
// from when it was actually sent, so a stalled server is charged for the
// requests it delayed (no coordinated omission).
//
// # Caveats
//
// Every run is bounded in time and in count; a run that cannot finish in its
// bound reports the requests it could not send as errors. Addresses are the
// caller's: the harness passes only loopback ones.
package load
