//go:build !linux

package snapshots

import "time"

// threadCPU is the wall clock where a thread's CPU time is not at hand.
func threadCPU() time.Duration { return monotonic() }
