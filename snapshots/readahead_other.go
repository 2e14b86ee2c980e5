//go:build !linux

package snapshots

import "os"

// willNeed does nothing where posix_fadvise is not at hand.
func willNeed(*os.File) error { return nil }
