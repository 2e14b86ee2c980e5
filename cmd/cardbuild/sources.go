package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// sourceFlags is the repeatable --source NAME=LOCATION[,key=value...].
type sourceFlags []source.Input

func (s *sourceFlags) String() string {
	parts := make([]string, len(*s))
	for i, in := range *s {
		parts[i] = in.Source + "=" + in.Location
	}
	return strings.Join(parts, " ")
}

func (s *sourceFlags) Set(v string) error {
	in, err := source.ParseInput(v)
	if err != nil {
		return err
	}
	if err := builder.CheckInput(in); err != nil {
		return err
	}
	*s = append(*s, in)
	return nil
}

// writeSources prints the per-source summary of a snapshot built from
// sources (nothing for another).
func writeSources(w io.Writer, m *snapshots.Manifest) {
	if m.MarketSource != snapshots.MarketSources {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tlast day\tdays\tstale\trows\tmatched\tobservations\trefused")
	for _, s := range m.Sources {
		matched := "-"
		if s.Rows > 0 {
			matched = fmt.Sprintf("%d (%.1f %%)", s.Matched, 100*float64(s.Matched)/float64(s.Rows))
		}
		last := s.LastDay
		if last == "" {
			last = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%v\t%d\t%s\t%d\t%s\n", s.Name, last, s.Days, s.Stale, s.Rows, matched, s.Observations, oneLine(s.Refused))
	}
	tw.Flush()
	if m.SyntheticFill {
		fmt.Fprintln(w, "synthetic fill: the cards no source has carry synthesized, flagged market data")
	}
}

func oneLine(s string) string {
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// runBackfill files past days of sources into the history store.
func runBackfill(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backfill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o builder.BackfillOptions
	var srcs sourceFlags
	fs.StringVar(&o.History, "history", "", "the history store, a directory or s3://BUCKET/PREFIX (required)")
	fs.Var(&srcs, "source", "NAME=DIR|FILE|URL[,key=value...] of past days (repeatable)")
	fs.BoolVar(&o.ReplaceDay, "replace-day", false, "replace a day already filed with other content")
	fs.StringVar(&o.Contact, "contact", "", "the operator's URL or email, sent in the User-Agent")
	fetchCache := fs.String("fetch-cache", "", "keep downloads here for conditional requests")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.History == "" || len(srcs) == 0 {
		return errors.New("backfill: want --history and at least one --source")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("backfill: unexpected argument %q", fs.Arg(0))
	}
	o.Sources, o.Version, o.Progress = srcs, version, stderr
	o.Fetcher = source.NewFetcher(version, o.Contact, *fetchCache)
	res, err := builder.Backfill(ctx, o)
	filed, refused := 0, 0
	for _, r := range res {
		if r.Refused != "" {
			refused++
		} else {
			filed++
		}
	}
	fmt.Fprintf(stdout, "backfill: %d days filed or already there, %d inputs refused\n", filed, refused)
	return err
}

// runSourceReports prints the summaries of the sources' report files.
func runSourceReports(dir, day string, stdout io.Writer) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*-????-??-??.csv"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("report: no <source>-<day>.csv in %s", dir)
	}
	sort.Strings(paths)
	latest := map[string]string{} // source -> newest path
	for _, p := range paths {
		base := strings.TrimSuffix(filepath.Base(p), ".csv")
		src, d := base[:len(base)-11], base[len(base)-10:]
		if day != "" && d != day {
			continue
		}
		if latest[src] < p {
			latest[src] = p
		}
	}
	if len(latest) == 0 {
		return fmt.Errorf("report: no report of %s in %s", day, dir)
	}
	names := make([]string, 0, len(latest))
	for n := range latest {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := os.Open(latest[n])
		if err != nil {
			return err
		}
		rep, err := source.ReadReportCSV(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", latest[n], err)
		}
		rep.Input = latest[n]
		fmt.Fprint(stdout, rep.Summary())
	}
	return nil
}
