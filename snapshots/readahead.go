package snapshots

import (
	"os"
	"path/filepath"
	"strings"
)

// Readahead asks the kernel to read the files of snapshot dir that m lists
// into the page cache in the background, but its bulk files (served as
// downloads, not read to answer requests), and returns at once. A snapshot
// opened beside the live one then finds its pages in memory: on a server
// with one processor a page read from the disk on a page fault stops every
// request until it is in (the faulting thread holds the processor), where
// the kernel's readahead reads the files in large sequential reads,
// outside the process. It returns how many files it advised; errors are
// ignored (the pages are read on demand then, as without it).
func Readahead(dir string, m *Manifest) int {
	n := 0
	for name := range m.Files {
		if strings.HasPrefix(name, "bulk/") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			continue
		}
		if willNeed(f) == nil {
			n++
		}
		f.Close()
	}
	return n
}
