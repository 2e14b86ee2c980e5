package s3_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cardedge/cardedge/snapshots"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
	"github.com/cardedge/cardedge/snapshots/s3/s3test"
)

// mustSnapshot writes a snapshot directory root/id that verifies: a few
// small files, one nested, and one of big bytes (multipart above 5 MiB
// parts), with the counts given.
func mustSnapshot(tb testing.TB, root, id string, big int, counts map[string]int64) string {
	tb.Helper()
	dir := filepath.Join(root, id)
	files := map[string][]byte{
		"catalog.bolt":             []byte("catalog of " + id),
		"index.bleve/store/000001": []byte("index of " + id),
		"index.bleve/index_meta":   []byte(`{"storage":"scorch"}`),
	}
	if big > 0 {
		b := make([]byte, big)
		rand.Read(b)
		files["market.bolt"] = b
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	sums, err := snapshots.HashFiles(dir)
	if err != nil {
		tb.Fatal(err)
	}
	m := &snapshots.Manifest{SnapshotID: id, FormatVersion: snapshots.FormatVersion, AsOf: "2026-11-20",
		Games: []string{"pokemon"}, Counts: counts, Files: sums}
	if err := snapshots.WriteManifest(dir, m); err != nil {
		tb.Fatal(err)
	}
	return dir
}

var counts = map[string]int64{"cards": 1000, "sets": 50, "sales": 100000}

func TestParseURL(t *testing.T) {
	tests := []struct {
		in   string
		want snaps3.Location
		ok   bool
	}{
		{"s3://bucket/prefix", snaps3.Location{Bucket: "bucket", Prefix: "prefix"}, true},
		{"s3://bucket/a/b/", snaps3.Location{Bucket: "bucket", Prefix: "a/b"}, true},
		{"s3://bucket", snaps3.Location{Bucket: "bucket"}, true},
		{"s3:///prefix", snaps3.Location{}, false},
		{"http://bucket/prefix", snaps3.Location{}, false},
		{"s3://bucket/p?x=1", snaps3.Location{}, false},
		{"/var/snapshots", snaps3.Location{}, false},
	}
	for _, tt := range tests {
		got, err := snaps3.ParseURL(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v", tt.in, got, err)
		}
		if tt.ok && got.String() != strings.TrimSuffix(tt.in, "/") {
			t.Errorf("String() = %q, want %q", got.String(), tt.in)
		}
	}
}

func TestValidate(t *testing.T) {
	prev := &snapshots.Manifest{SnapshotID: "a", Counts: counts}
	tests := []struct {
		name  string
		next  map[string]int64
		o     snaps3.PublishOptions
		wantE bool
	}{
		{"same", counts, snaps3.PublishOptions{}, false},
		{"grew", map[string]int64{"cards": 2000, "sets": 60, "sales": 200000}, snaps3.PublishOptions{}, false},
		{"10 % less", map[string]int64{"cards": 900, "sets": 45, "sales": 90000}, snaps3.PublishOptions{}, false},
		{"cards shrank", map[string]int64{"cards": 899, "sets": 50, "sales": 100000}, snaps3.PublishOptions{}, true},
		{"sales gone", map[string]int64{"cards": 1000, "sets": 50}, snaps3.PublishOptions{}, true},
		{"allowed", map[string]int64{"cards": 10}, snaps3.PublishOptions{AllowShrink: true}, false},
		{"wider bound", map[string]int64{"cards": 600, "sets": 50, "sales": 100000}, snaps3.PublishOptions{MaxShrink: 0.5}, false},
	}
	for _, tt := range tests {
		err := snaps3.Validate(prev, &snapshots.Manifest{SnapshotID: "b", Counts: tt.next}, tt.o)
		if (err != nil) != tt.wantE || (err != nil && !errors.Is(err, snaps3.ErrShrink)) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// newBucket starts a server with a bucket and returns a Bucket of
// s3://fleet/snaps on it.
func newBucket(t *testing.T, o snaps3.Options) (*s3test.Server, *awss3.Client, *snaps3.Bucket) {
	srv := s3test.Start(t)
	c := srv.Client(t)
	srv.MakeBucket(t, c, "fleet")
	loc, err := snaps3.ParseURL("s3://fleet/snaps")
	if err != nil {
		t.Fatal(err)
	}
	return srv, c, snaps3.New(c, loc, o)
}

func getObject(t *testing.T, c *awss3.Client, key string) []byte {
	t.Helper()
	out, err := c.GetObject(context.Background(), &awss3.GetObjectInput{Bucket: aws.String("fleet"), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	defer out.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(out.Body)
	return buf.Bytes()
}

func TestBucket_Publish(t *testing.T) {
	ctx := context.Background()
	_, c, b := newBucket(t, snaps3.Options{PartSize: 5 << 20})
	root := t.TempDir()

	t.Run("OK", func(t *testing.T) {
		dir := mustSnapshot(t, root, "s0001", 12<<20, counts) // 3 parts
		res, err := b.Publish(ctx, dir, snaps3.PublishOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Uploaded != 5 || res.Skipped != 0 || res.Previous != "" {
			t.Fatalf("first publish: %+v", res)
		}
		if got := string(getObject(t, c, "snaps/CURRENT")); got != "s0001\n" {
			t.Fatalf("CURRENT = %q", got)
		}
		want, _ := os.ReadFile(filepath.Join(dir, "market.bolt"))
		if got := getObject(t, c, "snaps/s0001/market.bolt"); !bytes.Equal(got, want) {
			t.Fatalf("multipart object differs (%d bytes, want %d)", len(got), len(want))
		}
		if id, _, err := b.Current(ctx); err != nil || id != "s0001" {
			t.Fatalf("Current = %q, %v", id, err)
		}
		// Again: every file is there already.
		res, err = b.Publish(ctx, dir, snaps3.PublishOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Uploaded != 1 || res.Skipped != 4 || res.Previous != "s0001" {
			t.Fatalf("second publish: %+v", res)
		}
	})

	t.Run("ErrShrink", func(t *testing.T) {
		dir := mustSnapshot(t, root, "s0002", 0, map[string]int64{"cards": 800, "sets": 50, "sales": 100000})
		_, err := b.Publish(ctx, dir, snaps3.PublishOptions{})
		if !errors.Is(err, snaps3.ErrShrink) || !strings.Contains(err.Error(), "cards 1000 -> 800") {
			t.Fatalf("publish of a shrunk snapshot: %v", err)
		}
		if id, _, _ := b.Current(ctx); id != "s0001" {
			t.Fatalf("CURRENT moved to %s", id)
		}
		if ids, err := b.Snapshots(ctx); err != nil || len(ids) != 1 {
			t.Fatalf("a refused snapshot left objects: %v, %v", ids, err)
		}
		if _, err := b.Publish(ctx, dir, snaps3.PublishOptions{AllowShrink: true}); err != nil {
			t.Fatal(err)
		}
		if id, _, _ := b.Current(ctx); id != "s0002" {
			t.Fatalf("CURRENT = %s after --allow-shrink", id)
		}
	})

	t.Run("ErrVerify", func(t *testing.T) {
		dir := mustSnapshot(t, root, "s0003", 0, counts)
		os.WriteFile(filepath.Join(dir, "catalog.bolt"), []byte("damaged"), 0o644)
		if _, err := b.Publish(ctx, dir, snaps3.PublishOptions{}); !errors.Is(err, snapshots.ErrVerify) {
			t.Fatalf("publish of a damaged snapshot: %v", err)
		}
	})
}

func TestPuller(t *testing.T) {
	ctx := context.Background()
	srv, c, b := newBucket(t, snaps3.Options{PartSize: 5 << 20})
	build := t.TempDir()
	cache := t.TempDir()
	var changes []string
	p, err := snaps3.NewPuller(b, cache, snaps3.PullOptions{Poll: 100 * time.Millisecond, Keep: 2, OnChange: func(id string) { changes = append(changes, id) }})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(t *testing.T, id string, big int) {
		t.Helper()
		if _, err := b.Publish(ctx, mustSnapshot(t, build, id, big, counts), snaps3.PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	local := func() string {
		id, _ := snapshots.ReadCurrent(cache)
		return id
	}

	if err := p.Sync(ctx); !errors.Is(err, snaps3.ErrNotPublished) {
		t.Fatalf("sync of an empty bucket: %v", err)
	}
	publish(t, "s0001", 7<<20)
	if err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if local() != "s0001" {
		t.Fatalf("local CURRENT %q", local())
	}
	if _, err := snapshots.Verify(filepath.Join(cache, "s0001")); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Verified("s0001"); !ok {
		t.Fatal("s0001 not reported verified")
	}
	if err := p.Sync(ctx); err != nil { // CURRENT unchanged: a 304
		t.Fatal(err)
	}
	st := p.Status()
	if st.Polls["changed"] != 1 || st.Polls["unchanged"] != 1 || st.Published != "s0001" || st.Local != "s0001" || st.Fetched != 1 {
		t.Fatalf("status: %+v", st)
	}

	t.Run("Resume", func(t *testing.T) {
		publish(t, "s0002", 7<<20)
		// A fetch killed half-way left part of a file and a stray one.
		tmp := filepath.Join(cache, "s0002.tmp")
		os.MkdirAll(tmp, 0o755)
		full, _ := os.ReadFile(filepath.Join(build, "s0002", "market.bolt"))
		os.WriteFile(filepath.Join(tmp, "market.bolt"), full[:3<<20], 0o644)
		os.WriteFile(filepath.Join(tmp, "stray"), []byte("x"), 0o644)
		before := p.Status().FetchedBytes
		if err := p.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if local() != "s0002" {
			t.Fatalf("local CURRENT %q", local())
		}
		if got := p.Status().FetchedBytes - before; got >= int64(len(full)) {
			t.Fatalf("resumed fetch downloaded %d bytes, the file alone is %d", got, len(full))
		}
		if _, err := snapshots.Verify(filepath.Join(cache, "s0002")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ErrVerify", func(t *testing.T) {
		publish(t, "s0003", 0)
		// Damage one object on the server's disk: same size, other bytes.
		path := srv.ObjectPath("fleet", "snaps/s0003/catalog.bolt")
		b, _ := os.ReadFile(path)
		b[0] ^= 0xff
		os.WriteFile(path, b, 0o644)
		err := p.Sync(ctx)
		if !errors.Is(err, snapshots.ErrVerify) {
			t.Fatalf("sync of a damaged snapshot: %v", err)
		}
		st := p.Status()
		if local() != "s0002" || st.Refused != "s0003" || st.LastErrorKind != "refused" || st.Polls["refused"] != 1 {
			t.Fatalf("after a refusal: local %s, status %+v", local(), st)
		}
		if _, err := os.Stat(filepath.Join(cache, "s0003")); err == nil {
			t.Fatal("a refused snapshot was renamed into the cache")
		}
		// Repaired: the next poll takes it.
		b[0] ^= 0xff
		os.WriteFile(path, b, 0o644)
		if err := p.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if local() != "s0003" || p.Status().Refused != "" {
			t.Fatalf("after the repair: local %s, %+v", local(), p.Status())
		}
	})

	t.Run("Unreachable", func(t *testing.T) {
		srv.Stop()
		err := p.Sync(ctx)
		if !errors.Is(err, snaps3.ErrUnreachable) {
			t.Fatalf("sync with the store down: %v", err)
		}
		if st := p.Status(); st.LastErrorKind != "unreachable" || st.Failures != 1 || local() != "s0003" {
			t.Fatalf("status with the store down: %+v", st)
		}
		srv.Restart(t)
		publish(t, "s0004", 0)
		if err := p.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if st := p.Status(); local() != "s0004" || st.Failures != 0 {
			t.Fatalf("after the store came back: local %s, %+v", local(), st)
		}
	})

	t.Run("Prune", func(t *testing.T) {
		entries, _ := os.ReadDir(cache)
		var dirs []string
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		if strings.Join(dirs, ",") != "s0003,s0004" {
			t.Fatalf("cache holds %v, want the 2 newest", dirs)
		}
	})

	t.Run("Pin", func(t *testing.T) {
		pinned, err := snaps3.NewPuller(b, cache, snaps3.PullOptions{Pin: "s0001"})
		if err != nil {
			t.Fatal(err)
		}
		if err := pinned.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if local() != "s0001" {
			t.Fatalf("pinned: local %s", local())
		}
		if st := pinned.Status(); st.Published != "s0004" || st.Pinned != "s0001" {
			t.Fatalf("pinned status: %+v", st)
		}
	})

	if strings.Join(changes, ",") != "s0001,s0002,s0003,s0004" {
		t.Fatalf("OnChange calls: %v", changes)
	}
	_ = c
}

func TestPuller_First(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The pacer would hold a paced fetch of 1 MiB for many seconds: the
	// first fetch (nothing is served yet) must not use it, later ones must.
	pacer := snapshots.NewPacer(0.05)
	_, _, b := newBucket(t, snaps3.Options{Pacer: pacer})
	cache := t.TempDir()
	p, err := snaps3.NewPuller(b, cache, snaps3.PullOptions{Poll: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	build := t.TempDir()
	first := mustSnapshot(t, build, "s0001", 1<<20, counts)
	published := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, err := b.Publish(ctx, first, snaps3.PublishOptions{})
		published <- err
	}()
	if err := p.First(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-published; err != nil {
		t.Fatal(err)
	}
	if id, err := snapshots.ReadCurrent(cache); err != nil || id != "s0001" {
		t.Fatalf("after First: %q, %v", id, err)
	}
	if busy := pacer.Busy(); busy != 0 {
		t.Fatalf("the first fetch ran %s of paced steps, want none (nothing is served yet)", busy)
	}

	if err := p.First(ctx); err != nil { // the root has a snapshot: nothing to do
		t.Fatal(err)
	}
	if _, err := b.Publish(ctx, mustSnapshot(t, build, "s0002", 64<<10, counts), snaps3.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if id, _ := snapshots.ReadCurrent(cache); id != "s0002" {
		t.Fatalf("after Sync: %q", id)
	}
	if pacer.Busy() == 0 {
		t.Fatal("a fetch while serving ran no paced step")
	}
}
