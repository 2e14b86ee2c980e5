package snapshots

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time of the calling thread
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID): nanoseconds, where getrusage's
// RUSAGE_THREAD counts in scheduler ticks).
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return monotonic()
	}
	return time.Duration(ts.Nano())
}
