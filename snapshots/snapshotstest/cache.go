package snapshotstest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/snapshots"
)

// The build cache. Every package of the module that tests over a tiny
// snapshot used to build it itself, about 5 s each and 40 s under the race
// detector, a quarter of make test. Build now compiles each (seed, as_of,
// id) once per state of the source tree and copies it into the caller's
// root: the first test binary builds it into the cache (others wait on a
// lock), the rest copy it (a copy, never a link: some tests damage their
// snapshot's files on purpose).
//
// The cache key hashes the parameters, every non-test Go file of the module
// (whatever the builder imports today or tomorrow), go.sum and the shipped
// catalog, so any change of the code or the data builds anew. It lives in
// the user's cache directory (cardedge/snapshotstest), keeps the four
// newest entries, and is off when CARDEDGE_SNAPSHOT_CACHE=off.

// moduleRoot is the module's root directory, from this file's path.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// cacheKey returns the key of a build of (seed, asOf, id) over the source
// tree as it is now.
func cacheKey(seed int64, asOf, id string) (string, error) {
	root := moduleRoot()
	h := sha256.New()
	fmt.Fprintf(h, "seed %d as_of %s id %s\n", seed, asOf, id)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "var" || name == "bin" || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	catalog, err := filepath.Glob(filepath.Join(CatalogDir(), "*"))
	if err != nil {
		return "", err
	}
	files = append(append(files, catalog...), filepath.Join(root, "go.sum"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// cached returns the directory of the cached build of (seed, asOf, id),
// building it when it is missing; "" when the cache is off or unusable (the
// caller then builds into its root as before).
func cached(seed int64, asOf, id string, build func(root string) error) (string, error) {
	if os.Getenv("CARDEDGE_SNAPSHOT_CACHE") == "off" {
		return "", nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", nil
	}
	base = filepath.Join(base, "cardedge", "snapshotstest")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", nil
	}
	key, err := cacheKey(seed, asOf, id)
	if err != nil {
		return "", nil
	}
	dir := filepath.Join(base, key)
	if _, err := os.Stat(filepath.Join(dir, "ok")); err == nil {
		return dir, nil
	}
	lock, err := os.OpenFile(filepath.Join(base, key+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", nil
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(filepath.Join(dir, "ok")); err == nil {
		return dir, nil // another test binary built it while this one waited
	}
	os.RemoveAll(dir)
	tmp := dir + ".tmp." + strconv.Itoa(os.Getpid())
	os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, "ok"), nil, 0o644); err != nil {
		os.RemoveAll(tmp)
		return "", nil
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return "", nil
	}
	prune(base, key)
	return dir, nil
}

// prune removes all but the four newest entries of the cache (keep is the
// one just made).
func prune(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	type entry struct {
		name string
		mod  time.Time
	}
	var dirs []entry
	for _, e := range entries {
		if !e.IsDir() || strings.Contains(e.Name(), ".tmp.") || e.Name() == keep {
			continue
		}
		if info, err := e.Info(); err == nil {
			dirs = append(dirs, entry{e.Name(), info.ModTime()})
		}
	}
	slices.SortFunc(dirs, func(a, b entry) int { return b.mod.Compare(a.mod) })
	for i, d := range dirs {
		if i >= 3 {
			os.RemoveAll(filepath.Join(base, d.name))
			os.Remove(filepath.Join(base, d.name+".lock"))
		}
	}
}

// copySnapshot copies the snapshot id of the cached root src into root and
// publishes it (CURRENT), as a build would have, and returns its manifest.
func copySnapshot(src, root, id string) (*snapshots.Manifest, error) {
	dst := filepath.Join(root, id)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	tmp := dst + ".tmp"
	os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, os.DirFS(filepath.Join(src, id))); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("copy cached snapshot %s: %w", id, err)
	}
	os.RemoveAll(dst)
	if err := os.Rename(tmp, dst); err != nil {
		return nil, err
	}
	if err := snapshots.Publish(root, id); err != nil {
		return nil, err
	}
	return snapshots.ReadManifest(dst)
}
