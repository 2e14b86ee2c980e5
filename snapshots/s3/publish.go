package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/cardedge/cardedge/snapshots"
)

// PublishOptions configure Publish.
type PublishOptions struct {
	// AllowShrink publishes a snapshot whose counts shrank by more than
	// MaxShrink against the published one (a catalog deliberately cut).
	AllowShrink bool
	// MaxShrink is the largest fraction by which the cards, sets or sales
	// count may shrink against the published snapshot; 0 means 0.10.
	MaxShrink float64
}

// ShrinkCounts are the counts the validator compares.
var ShrinkCounts = []string{"cards", "sets", "sales"}

// metaSHA256 is the user metadata (x-amz-meta-sha256) holding an uploaded
// file's SHA-256, so that publishing again skips files already there.
const metaSHA256 = "sha256"

// PublishResult says what Publish did.
type PublishResult struct {
	Manifest *snapshots.Manifest
	// Previous is the snapshot CURRENT named before ("" when none).
	Previous string
	// Uploaded and Skipped count the files (the manifest included)
	// uploaded and already there; Bytes is what was uploaded.
	Uploaded, Skipped int
	Bytes             int64
	Elapsed           time.Duration
}

// Publish uploads the snapshot in dir (a directory <root>/<id> that
// verifies) and makes it the bucket's live one, so that no reader ever sees
// a partial snapshot: every file first (in parallel, files larger than
// PartSize in parts, each transfer tried Attempts times; files already in
// the bucket with the same size and SHA-256 are skipped, so that a publish
// that failed half-way resumes), then the manifest, then CURRENT, replaced
// last. Before uploading anything it validates the snapshot against the one
// CURRENT names: counts that shrank by more than MaxShrink are refused with
// ErrShrink unless AllowShrink. Publishing the live snapshot again is
// allowed (it uploads what is missing).
func (b *Bucket) Publish(ctx context.Context, dir string, o PublishOptions) (PublishResult, error) {
	start := time.Now()
	var res PublishResult
	m, err := snapshots.Verify(dir)
	if err != nil {
		return res, fmt.Errorf("publish %s: %w", dir, err)
	}
	res.Manifest = m
	prev, _, err := b.Current(ctx)
	switch {
	case errors.Is(err, ErrNotPublished):
	case err != nil:
		return res, err
	default:
		res.Previous = prev
		pm, _, err := b.Manifest(ctx, prev)
		if err != nil && !errors.Is(err, ErrNotPublished) {
			return res, err
		}
		if pm != nil {
			if err := Validate(pm, m, o); err != nil {
				return res, err
			}
		}
	}
	have, err := b.list(ctx, m.SnapshotID)
	if err != nil {
		return res, err
	}
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	var todo []string
	for _, name := range names {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return res, fmt.Errorf("publish %s: %w", dir, err)
		}
		if obj, ok := have[name]; ok && obj.size == fi.Size() && b.sameSHA(ctx, m.SnapshotID, name, m.Files[name]) {
			res.Skipped++
			continue
		}
		todo = append(todo, name)
		res.Bytes += fi.Size()
	}
	b.log.Info("publishing snapshot", "id", m.SnapshotID, "to", b.loc.String(), "files", len(todo), "skipped", res.Skipped, "bytes", res.Bytes)
	if err := b.uploadFiles(ctx, dir, m, todo); err != nil {
		return res, err
	}
	res.Uploaded = len(todo)
	// The manifest, then CURRENT: a reader that finds CURRENT finds
	// everything it names.
	manifest := filepath.Join(dir, snapshots.ManifestFile)
	if err := b.retry(ctx, "upload the manifest", func() error {
		return b.putFile(ctx, manifest, b.loc.key(m.SnapshotID, snapshots.ManifestFile), "", "application/json")
	}); err != nil {
		return res, err
	}
	res.Uploaded++
	if err := b.retry(ctx, "replace CURRENT", func() error {
		_, err := b.c.PutObject(ctx, &awss3.PutObjectInput{
			Bucket: &b.loc.Bucket, Key: aws.String(b.loc.key(snapshots.CurrentFile)),
			Body: strings.NewReader(m.SnapshotID + "\n"), ContentType: aws.String("text/plain"),
			CacheControl: aws.String("no-cache"),
		})
		return err
	}); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	b.log.Info("published snapshot", "id", m.SnapshotID, "to", b.loc.String(), "previous", res.Previous, "seconds", res.Elapsed.Seconds())
	return res, nil
}

// Validate refuses next when one of its ShrinkCounts shrank by more than
// o.MaxShrink against prev (ErrShrink naming each), unless o.AllowShrink. A
// count prev does not have is not compared.
func Validate(prev, next *snapshots.Manifest, o PublishOptions) error {
	if o.AllowShrink {
		return nil
	}
	max := o.MaxShrink
	if max <= 0 {
		max = 0.10
	}
	var bad []string
	for _, c := range ShrinkCounts {
		p, ok := prev.Counts[c]
		if !ok || p <= 0 {
			continue
		}
		n := next.Counts[c]
		if float64(n) < float64(p)*(1-max) {
			bad = append(bad, fmt.Sprintf("%s %d -> %d (-%.1f %%)", c, p, n, 100*float64(p-n)/float64(p)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: snapshot %s against the published %s: %s; more than %.0f %% (--allow-shrink publishes it anyway)",
			ErrShrink, next.SnapshotID, prev.SnapshotID, strings.Join(bad, ", "), 100*max)
	}
	return nil
}

// sameSHA reports whether the object of file name of snapshot id carries
// the SHA-256 sum (its metadata, set by putFile).
func (b *Bucket) sameSHA(ctx context.Context, id, name, sum string) bool {
	out, err := b.c.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: &b.loc.Bucket, Key: aws.String(b.loc.key(id, name))})
	return err == nil && out.Metadata[metaSHA256] == sum
}

// job is one transfer of an upload: a whole file, or one part of a
// multipart upload.
type job struct {
	name   string
	path   string
	key    string
	sum    string
	off, n int64
	mp     *multipart // nil: a whole file
	part   int32
}

type multipart struct {
	key, id string
	mu      sync.Mutex
	parts   []types.CompletedPart
}

// uploadFiles uploads the files names of the snapshot in dir.
func (b *Bucket) uploadFiles(ctx context.Context, dir string, m *snapshots.Manifest, names []string) (err error) {
	var jobs []job
	var mps []*multipart
	defer func() {
		if err != nil {
			for _, mp := range mps { // leave no parts behind
				actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				b.c.AbortMultipartUpload(actx, &awss3.AbortMultipartUploadInput{Bucket: &b.loc.Bucket, Key: &mp.key, UploadId: &mp.id})
				cancel()
			}
		}
	}()
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		key := b.loc.key(m.SnapshotID, name)
		if fi.Size() <= b.opts.PartSize {
			jobs = append(jobs, job{name: name, path: path, key: key, sum: m.Files[name], n: fi.Size()})
			continue
		}
		var out *awss3.CreateMultipartUploadOutput
		if err := b.retry(ctx, "start the upload of "+name, func() (err error) {
			out, err = b.c.CreateMultipartUpload(ctx, &awss3.CreateMultipartUploadInput{
				Bucket: &b.loc.Bucket, Key: &key, ContentType: aws.String("application/octet-stream"),
				Metadata: map[string]string{metaSHA256: m.Files[name]},
			})
			return err
		}); err != nil {
			return err
		}
		mp := &multipart{key: key, id: aws.ToString(out.UploadId)}
		mps = append(mps, mp)
		for off, part := int64(0), int32(1); off < fi.Size(); off, part = off+b.opts.PartSize, part+1 {
			jobs = append(jobs, job{name: name, path: path, key: key, off: off, n: min(b.opts.PartSize, fi.Size()-off), mp: mp, part: part})
		}
	}
	if err := b.parallel(ctx, len(jobs), func(ctx context.Context, i int) error {
		j := jobs[i]
		what := "upload " + j.name
		if j.mp != nil {
			what = fmt.Sprintf("upload part %d of %s", j.part, j.name)
		}
		return b.retry(ctx, what, func() error { return b.upload(ctx, j) })
	}); err != nil {
		return err
	}
	for _, mp := range mps {
		sort.Slice(mp.parts, func(i, j int) bool { return *mp.parts[i].PartNumber < *mp.parts[j].PartNumber })
		if err := b.retry(ctx, "complete the upload of "+mp.key, func() error {
			_, err := b.c.CompleteMultipartUpload(ctx, &awss3.CompleteMultipartUploadInput{
				Bucket: &b.loc.Bucket, Key: &mp.key, UploadId: &mp.id,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: mp.parts},
			})
			return err
		}); err != nil {
			return err
		}
	}
	mps = nil
	return nil
}

// upload runs one job.
func (b *Bucket) upload(ctx context.Context, j job) error {
	if j.mp == nil {
		return b.putFile(ctx, j.path, j.key, j.sum, "application/octet-stream")
	}
	f, err := os.Open(j.path)
	if err != nil {
		return permanent(err)
	}
	defer f.Close()
	out, err := b.c.UploadPart(ctx, &awss3.UploadPartInput{
		Bucket: &b.loc.Bucket, Key: &j.key, UploadId: &j.mp.id, PartNumber: &j.part,
		Body: io.NewSectionReader(f, j.off, j.n), ContentLength: &j.n,
	})
	if err != nil {
		return err
	}
	j.mp.mu.Lock()
	j.mp.parts = append(j.mp.parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(j.part)})
	j.mp.mu.Unlock()
	return nil
}

// putFile uploads the file at path as key in one request.
func (b *Bucket) putFile(ctx context.Context, path, key, sum, contentType string) error {
	f, err := os.Open(path)
	if err != nil {
		return permanent(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return permanent(err)
	}
	in := &awss3.PutObjectInput{
		Bucket: &b.loc.Bucket, Key: &key, ContentType: &contentType,
		Body: io.NewSectionReader(f, 0, fi.Size()), ContentLength: aws.Int64(fi.Size()),
	}
	if sum != "" {
		in.Metadata = map[string]string{metaSHA256: sum}
	}
	_, err = b.c.PutObject(ctx, in)
	return err
}

// permanentError marks an error retrying cannot fix (a local file).
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return permanentError{err} }

// retry runs fn up to Attempts times, backing off between tries, while the
// error is not permanent and ctx lives.
func (b *Bucket) retry(ctx context.Context, what string, fn func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = fn(); err == nil {
			return nil
		}
		var p permanentError
		if errors.As(err, &p) || ctx.Err() != nil || attempt >= b.opts.Attempts {
			break
		}
		wait := time.Duration(attempt*attempt) * 200 * time.Millisecond
		b.log.Warn("snapshots/s3: retrying", "what", what, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	var p permanentError
	if errors.As(err, &p) {
		return fmt.Errorf("%s: %w", what, p.err)
	}
	return b.unreachable(what, err)
}

// parallel runs fn(0..n-1) on Concurrency goroutines; the first error
// cancels the others and is returned.
func (b *Bucket) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(b.opts.Concurrency, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}
