// Package sweep runs a job over every record of a state bucket once, in
// chunks, with one process of a fleet at a time: the work a new snapshot
// starts (evaluating every alert rule, recording every collection's value).
//
// A job has an id (say "alerts/<snapshot id>"), a bucket and a Visit
// function. Runner.Run takes the job's lease (a record of state.Leases
// inserted with a TTL, so that in a fleet one replica works while the others
// wait), reads the progress (state.Sweeps: the last key done), and goes
// through the bucket in key order, Chunk records at a time: for each chunk
// Visit computes the chunk's results and returns a function that writes
// them, and the Runner commits that function, the new progress and the
// renewed lease in ONE transaction, which first checks that the lease is
// still this runner's and that nobody recorded progress past the chunk's
// start. So a chunk's results are written exactly once: a runner that dies
// mid-chunk wrote nothing of it, and the next holder (after the lease
// expires) starts at that chunk; a runner that stalled past its lease and
// wakes up finds its commit refused (ErrLeaseLost) and stops.
//
// Runners that find the lease held wait (Options.Poll) until the job is done
// or the lease is free, then carry on from the recorded progress. A runner
// whose context is canceled releases its lease (best effort), so that a
// replica shutting down hands over at once.
//
// It imports the standard library, snapshots (the Pacer that keeps the
// background work to a share of a CPU) and state.
//
// # Caveats
//
// Visit sees the chunk's records as read in a View before the commit: a
// record changed between the two is committed with results computed from its
// older value (the next run sees the new one). Visit's commit function runs
// inside state.Store.Update and may run more than once: it must only write
// through the Tx. The lease's TTL runs on the store's clock; a chunk must
// take well under Options.LeaseTTL, which each commit renews.
package sweep
