package s3

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cardedge/cardedge/snapshots"
)

// FetchResult says what Fetch did.
type FetchResult struct {
	Manifest *snapshots.Manifest
	// Bytes is what was downloaded (a resumed fetch downloads only what
	// it lacked); Reused counts files found complete in <id>.tmp.
	Bytes   int64
	Reused  int
	Elapsed time.Duration
}

// step is how much of a download one paced step writes and hashes.
const step = 256 << 10

// Fetch downloads snapshot id from the bucket into root/<id>, as a local
// build publishes: into root/<id>.tmp, every file in parallel and hashed as
// it arrives, each checked against the manifest's SHA-256, fsynced, then the
// manifest, and the directory renamed to root/<id>. It does not touch
// root/CURRENT. A fetch that fails part-way leaves root/<id>.tmp: the next
// one keeps its complete files (hashed again) and resumes a partial one
// with a ranged GET. A file whose bytes do not match the manifest is
// deleted and the fetch fails with snapshots.ErrVerify; a manifest this
// build cannot read, with snapshots.ErrFormat. Downloading and hashing are
// paced by Options.Pacer.
//
// When root/<id> exists already it is returned as is, after reading its
// manifest: Fetch only ever renames a verified directory there.
func (b *Bucket) Fetch(ctx context.Context, root, id string) (FetchResult, error) {
	return b.fetch(ctx, root, id, b.opts.Pacer)
}

// fetch is Fetch paced by pacer (nil: full speed).
func (b *Bucket) fetch(ctx context.Context, root, id string, pacer *snapshots.Pacer) (FetchResult, error) {
	start := time.Now()
	var res FetchResult
	final := filepath.Join(root, id)
	if m, err := snapshots.ReadManifest(final); err == nil {
		res.Manifest = m
		return res, nil
	}
	m, raw, err := b.Manifest(ctx, id)
	if err != nil {
		return res, err
	}
	if err := snapshots.CheckManifest(final, m); err != nil {
		return res, err
	}
	objs, err := b.list(ctx, id)
	if err != nil {
		return res, err
	}
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		if _, ok := objs[name]; !ok {
			return res, fmt.Errorf("%w: %s/%s: %s: listed in the manifest, missing in the bucket", snapshots.ErrVerify, b.loc, id, name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	tmp := final + ".tmp"
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return res, fmt.Errorf("fetch %s: %w", id, err)
	}
	if err := removeUnlisted(tmp, m); err != nil {
		return res, fmt.Errorf("fetch %s: %w", id, err)
	}
	var got, reused atomic.Int64
	err = b.parallel(ctx, len(names), func(ctx context.Context, i int) error {
		name := names[i]
		n, fresh, err := b.fetchFile(ctx, id, name, filepath.Join(tmp, filepath.FromSlash(name)), objs[name].size, m.Files[name], pacer)
		got.Add(n)
		if !fresh {
			reused.Add(1)
		}
		return err
	})
	res.Bytes, res.Reused = got.Load(), int(reused.Load())
	if err != nil {
		return res, err
	}
	if err := writeSync(filepath.Join(tmp, snapshots.ManifestFile), raw); err != nil {
		return res, fmt.Errorf("fetch %s: %w", id, err)
	}
	if err := syncDirs(tmp); err != nil {
		return res, fmt.Errorf("fetch %s: %w", id, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return res, fmt.Errorf("fetch %s: %w", id, err)
	}
	if err := snapshots.SyncDir(root); err != nil {
		return res, err
	}
	res.Manifest, res.Elapsed = m, time.Since(start)
	return res, nil
}

// fetchFile makes path hold the object of file name of snapshot id (size
// bytes, SHA-256 sum): a complete file already there is hashed and kept when
// it matches, a shorter one resumed from where it stops. It returns the
// bytes downloaded and whether it downloaded anything.
func (b *Bucket) fetchFile(ctx context.Context, id, name, path string, size int64, sum string, pacer *snapshots.Pacer) (int64, bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, true, err
	}
	h := sha256.New()
	var have int64
	if fi, err := os.Stat(path); err == nil && fi.Size() <= size {
		// Hash what is there: a complete file may be kept, a partial one
		// resumed.
		if err := hashPrefix(path, h, pacer); err != nil {
			return 0, true, err
		}
		have = fi.Size()
		if have == size {
			if hex.EncodeToString(h.Sum(nil)) == sum {
				return 0, false, nil
			}
			h.Reset()
			have = 0
		}
	}
	flags := os.O_WRONLY | os.O_CREATE
	if have == 0 {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return 0, true, err
	}
	defer f.Close()
	if _, err := f.Seek(have, io.SeekStart); err != nil {
		return 0, true, err
	}
	var got int64
	if have < size {
		err := b.retry(ctx, "download "+name, func() error {
			n, err := b.download(ctx, id, name, f, h, have+got, pacer)
			got += n
			return err
		})
		if err != nil {
			return got, true, err
		}
	}
	if err := f.Sync(); err != nil {
		return got, true, err
	}
	if have+got != size || hex.EncodeToString(h.Sum(nil)) != sum {
		f.Close()
		os.Remove(path)
		return got, true, fmt.Errorf("%w: %s/%s: %s: the object does not match its manifest (%d bytes of %d, or a different sha256)",
			snapshots.ErrVerify, b.loc, id, name, have+got, size)
	}
	return got, true, nil
}

// download appends the object from offset off to f and h, in paced steps.
func (b *Bucket) download(ctx context.Context, id, name string, f *os.File, h hash.Hash, off int64, pacer *snapshots.Pacer) (int64, error) {
	in := &awss3.GetObjectInput{Bucket: &b.loc.Bucket, Key: aws.String(b.loc.key(id, name))}
	if off > 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", off))
	}
	out, err := b.c.GetObject(ctx, in)
	if err != nil {
		if notFound(err) {
			return 0, permanent(fmt.Errorf("%w: %s/%s: %s: missing in the bucket", snapshots.ErrVerify, b.loc, id, name))
		}
		return 0, err
	}
	defer out.Body.Close()
	buf := make([]byte, step)
	var got int64
	for {
		n, rerr := io.ReadFull(out.Body, buf) // a network wait: not a paced step
		if n > 0 {
			if err := pacer.Step(func() error {
				h.Write(buf[:n])
				_, err := f.Write(buf[:n])
				return err
			}); err != nil {
				return got, permanent(err)
			}
			got += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return got, nil
		}
		if rerr != nil {
			return got, rerr
		}
	}
}

// hashPrefix feeds the file at path to h, in paced steps.
func hashPrefix(path string, h hash.Hash, pacer *snapshots.Pacer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, step)
	for done := false; !done; {
		if err := pacer.Step(func() error {
			n, err := io.ReadFull(f, buf)
			h.Write(buf[:n])
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				done, err = true, nil
			}
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// removeUnlisted removes the files below dir that m does not list (left by
// an older attempt), so that the directory verifies.
func removeUnlisted(dir string, m *snapshots.Manifest) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if _, ok := m.Files[filepath.ToSlash(rel)]; !ok {
			return os.Remove(path)
		}
		return nil
	})
}

func writeSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDirs fsyncs every directory below dir (its files were fsynced as
// they were written).
func syncDirs(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return snapshots.SyncDir(path)
	})
}

// errorKind classifies an error of a fetch for status and metrics:
// "refused" (the bucket's snapshot does not verify or cannot be read by
// this build), "unreachable" (the store) or "local" (the cache directory).
func errorKind(err error) string {
	switch {
	case errors.Is(err, snapshots.ErrVerify), errors.Is(err, snapshots.ErrFormat):
		return "refused"
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrNotPublished):
		return "unreachable"
	}
	return "local"
}
