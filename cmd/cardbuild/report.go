package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
)

// runReport prints the realism report of a snapshot (builder.RealismReport).
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reports := fs.String("reports", "", "print the sources' reports of this directory (<source>-<day>.csv) instead")
	day := fs.String("day", "", "with --reports: the day, YYYY-MM-DD (default: each source's newest)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *reports != "" {
		if fs.NArg() != 0 {
			return errors.New("report: --reports takes no snapshot directory")
		}
		return runSourceReports(*reports, *day, stdout)
	}
	if fs.NArg() != 1 {
		return errors.New("report: want one snapshot directory (or --reports DIR)")
	}
	dir := fs.Arg(0)
	// A snapshots root is accepted too: report on the one CURRENT names.
	if id, err := snapshots.ReadCurrent(dir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, snapshots.ManifestFile)); err != nil {
			dir = filepath.Join(dir, id)
		}
	}
	m, err := snapshots.Verify(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer r.Close()
	rr, err := builder.RealismReport(r)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stdout, "snapshot %s (preset %s, seed %d, market %s)\n", m.SnapshotID, m.Preset, m.Seed, m.MarketSource)
	writeSources(stdout, m)
	rr.WriteText(stdout)
	return nil
}
