package builder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"

	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/tcgcsv"
	"github.com/cardedge/cardedge/snapshots"
)

// BackfillOptions configure Backfill.
type BackfillOptions struct {
	// History is the store the days are filed in (required).
	History string
	// Sources name the past days to load: a source and a directory of its
	// days (cardmarket: dated price guide files; tcgplayer: tcgcsv's
	// archive layout, a directory of YYYY-MM-DD directories, or one day;
	// pricecharting, soldlistings: files whose names hold their day), or
	// one file or URL (one day).
	Sources []source.Input
	// ReplaceDay replaces a filed day that arrives with other content.
	ReplaceDay bool
	// Fetcher reads the locations (nil: source.NewFetcher(Version,
	// Contact, "")).
	Fetcher          *source.Fetcher
	Version, Contact string
	// Progress receives one line per day (nil: quiet).
	Progress io.Writer
}

// BackfillDay is what Backfill did with one day's input.
type BackfillDay struct {
	Source   string
	Input    string
	Day      snapshots.Day // 0 when the input was refused before its day was known
	Outcome  history.Outcome
	Bytes    int    // the filed file's size
	Refused  string // why the input was not filed
	Rows     int
	Rejected int
}

// dayInName finds a YYYY-MM-DD in a file name.
var dayInName = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}`)

// Backfill files past days of sources into the history store: each input
// is read and validated as a build reads it, and filed; the days of one
// source are filed in the order of their own timestamps (Cardmarket's
// createdAt), so the store's days never go back in time. A refused input
// (a bad file, a day already filed with other content) is reported and
// skipped; an unknown source or a store error fails.
func Backfill(ctx context.Context, o BackfillOptions) ([]BackfillDay, error) {
	if o.History == "" {
		return nil, errors.New("backfill: no history store")
	}
	store, err := history.Open(ctx, o.History)
	if err != nil {
		return nil, fmt.Errorf("backfill: %w", err)
	}
	f := o.Fetcher
	if f == nil {
		f = source.NewFetcher(o.Version, o.Contact, "")
	}
	var out []BackfillDay
	for _, in := range o.Sources {
		src, err := SourceByName(in.Source)
		if err != nil {
			return out, fmt.Errorf("backfill: %w", err)
		}
		inputs, err := backfillInputs(in)
		if err != nil {
			return out, fmt.Errorf("backfill: %w", err)
		}
		type read struct {
			day *source.Day
			res BackfillDay
		}
		var days []read
		for _, one := range inputs {
			res := BackfillDay{Source: in.Source, Input: one.Location}
			d, err := src.Read(ctx, f, one)
			if err != nil {
				if !refusable(err) {
					return out, fmt.Errorf("backfill: %w", err)
				}
				res.Refused = err.Error()
				out = append(out, res)
				o.note(res)
				continue
			}
			res.Day, res.Rows, res.Rejected = d.Date, len(d.Rows), len(d.Rejected)
			days = append(days, read{d, res})
		}
		sort.SliceStable(days, func(i, j int) bool {
			a, b := days[i].day, days[j].day
			if !a.CreatedAt.Equal(b.CreatedAt) {
				return a.CreatedAt.Before(b.CreatedAt)
			}
			return a.Date < b.Date
		})
		for _, x := range days {
			_, outcome, n, err := store.Put(ctx, x.day, o.ReplaceDay)
			switch {
			case errors.Is(err, history.ErrDayFiled):
				x.res.Refused = err.Error()
			case err != nil:
				return out, fmt.Errorf("backfill: %w", err)
			default:
				x.res.Outcome, x.res.Bytes = outcome, n
			}
			out = append(out, x.res)
			o.note(x.res)
		}
	}
	return out, nil
}

func (o BackfillOptions) note(r BackfillDay) {
	if o.Progress == nil {
		return
	}
	if r.Refused != "" {
		fmt.Fprintf(o.Progress, "backfill: %s %s refused: %s\n", r.Source, r.Input, r.Refused)
		return
	}
	fmt.Fprintf(o.Progress, "backfill: %s %s %s: %d rows (%d refused), %d bytes\n", r.Source, r.Day, r.Outcome, r.Rows, r.Rejected, r.Bytes)
}

// backfillInputs expands a directory input into one input per day.
func backfillInputs(in source.Input) ([]source.Input, error) {
	if !source.IsDir(in.Location) {
		return []source.Input{in}, nil
	}
	if in.Source == source.TCGplayer {
		// One day (an archive day or a live mirror), or the archive root.
		if d, err := snapshots.ParseDay(lastPathElem(in.Location)); err == nil && d > 0 {
			return []source.Input{in}, nil
		}
		if source.IsDir(source.Join(in.Location, "tcgplayer")) {
			return []source.Input{in}, nil
		}
		dirs, err := tcgcsv.ArchiveDays(in.Location)
		if err != nil {
			return nil, err
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("%s: no YYYY-MM-DD directories of tcgcsv's archive", in.Location)
		}
		return each(in, dirs, false), nil
	}
	names, err := source.ReadDir(in.Location)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, n := range names {
		p := source.Join(in.Location, n)
		if !source.IsDir(p) && n[0] != '.' {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no files", in.Location)
	}
	// The sources without a date of their own take it from the file name.
	return each(in, paths, in.Source == source.PriceCharting || in.Source == source.SoldListings), nil
}

func each(in source.Input, locations []string, dayFromName bool) []source.Input {
	out := make([]source.Input, 0, len(locations))
	for _, loc := range locations {
		one := source.Input{Source: in.Source, Location: loc, Options: map[string]string{}}
		for k, v := range in.Options {
			one.Options[k] = v
		}
		if _, given := one.Options["day"]; dayFromName && !given {
			if m := dayInName.FindString(lastPathElem(loc)); m != "" {
				one.Options["day"] = m
			}
		}
		out = append(out, one)
	}
	return out
}

func lastPathElem(p string) string {
	for len(p) > 1 && (p[len(p)-1] == '/' || p[len(p)-1] == '\\') {
		p = p[:len(p)-1]
	}
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}
