package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
)

// publishFlags are the flags of publishing to a bucket, shared by build
// --publish and publish.
type publishFlags struct {
	allowShrink bool
	maxShrink   float64
	concurrency int
}

func (p *publishFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.allowShrink, "allow-shrink", false, "publish even when the card, set or sales count shrank by more than --max-shrink against the published snapshot")
	fs.Float64Var(&p.maxShrink, "max-shrink", 0.10, "the largest fraction by which a count may shrink against the published snapshot")
	fs.IntVar(&p.concurrency, "concurrency", 4, "parallel uploads")
}

// publish uploads the snapshot directory dir to the bucket location url
// (s3://BUCKET/PREFIX) and makes it the live one there.
func publish(ctx context.Context, dir, url string, p publishFlags, stdout, stderr io.Writer) error {
	loc, err := snaps3.ParseURL(url)
	if err != nil {
		return err
	}
	c, err := snaps3.NewClient(ctx, snaps3.ClientOptions{})
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	b := snaps3.New(c, loc, snaps3.Options{Concurrency: p.concurrency, Logger: log})
	res, err := b.Publish(ctx, dir, snaps3.PublishOptions{AllowShrink: p.allowShrink, MaxShrink: p.maxShrink})
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	mib := float64(res.Bytes) / (1 << 20)
	fmt.Fprintf(stdout, "published %s to %s (previous %s): %d files uploaded (%.1f MiB), %d already there, in %.1fs\n",
		res.Manifest.SnapshotID, loc, orNone(res.Previous), res.Uploaded, mib, res.Skipped, res.Elapsed.Seconds())
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// runPublish is cardbuild publish DIR/<id> s3://BUCKET/PREFIX.
func runPublish(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var p publishFlags
	p.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("publish: want DIR/<snapshot_id> s3://BUCKET/PREFIX")
	}
	return publish(ctx, fs.Arg(0), fs.Arg(1), p, stdout, stderr)
}
