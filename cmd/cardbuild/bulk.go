package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
)

// runBulk writes the bulk files of an existing snapshot into OUTDIR (the
// builder writes the same files into the snapshot's bulk/ directory).
func runBulk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bulk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workers := fs.Int("workers", 0, "files written at once (default: GOMAXPROCS)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("bulk: want a snapshot directory and an output directory")
	}
	dir, out := fs.Arg(0), fs.Arg(1)
	// A snapshots root is accepted too: the snapshot CURRENT names.
	if id, err := snapshots.ReadCurrent(dir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, snapshots.ManifestFile)); err != nil {
			dir = filepath.Join(dir, id)
		}
	}
	m, err := snapshots.Verify(dir)
	if err != nil {
		return fmt.Errorf("bulk: %w", err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		return fmt.Errorf("bulk: %w", err)
	}
	defer r.Close()
	opts := bulk.Options{Workers: *workers}
	if !*quiet {
		opts.Progress = func(name string, rows int64) { fmt.Fprintf(stderr, "bulk: %s: %d rows\n", name, rows) }
	}
	start := time.Now()
	ix, err := bulk.Write(ctx, r, out, opts)
	if err != nil {
		return err
	}
	if !*quiet {
		for _, f := range ix.Files {
			fmt.Fprintf(stdout, "%s  %s  %d bytes  %d rows\n", f.SHA256, filepath.Join(out, f.Path), f.Size, f.Rows)
		}
		fmt.Fprintf(stderr, "bulk: snapshot %s (as_of %s) in %.1fs\n", m.SnapshotID, m.AsOf, time.Since(start).Seconds())
	}
	return nil
}
