package snapshots

import (
	"os"
	"syscall"
)

// willNeed asks the kernel to read f into the page cache in the
// background (posix_fadvise POSIX_FADV_WILLNEED): the call returns at
// once, the reading is the kernel's, in large sequential reads.
func willNeed(f *os.File) error {
	const fadvWillNeed = 3 // POSIX_FADV_WILLNEED
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvWillNeed, 0, 0); e != 0 {
		return e
	}
	return nil
}
