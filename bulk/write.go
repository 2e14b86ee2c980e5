package bulk

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// GzipLevel is the fixed compression level of every file: with the
// standard library's writer, no name and a zero modification time in the
// header, the same rows give the same bytes.
const GzipLevel = 6

// Options configure Write. Zero values are documented per field.
type Options struct {
	// Workers is how many files are written at once (< 1 = GOMAXPROCS).
	// The bytes of each file do not depend on it.
	Workers int
	// Progress receives the name of each file written; nil is quiet.
	Progress func(name string, rows int64)
}

// Write writes the bulk files of the snapshot r reads into dir (created if
// missing): per game of the manifest, in order, <game>-<kind>.jsonl.gz and
// its <game>-<kind>.schema.json for each of Kinds, then index.json. Each
// file is written to a temporary name, fsynced and renamed; the index comes
// last, so a directory with an index is complete. Same snapshot, same
// bytes.
func Write(ctx context.Context, r snapshots.Reader, dir string, opts Options) (*Index, error) {
	m := r.Manifest()
	asOf, err := snapshots.ParseDay(m.AsOf)
	if err != nil {
		return nil, fmt.Errorf("bulk: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bulk: %w", err)
	}
	ix := &Index{Format: FormatVersion, AsOf: m.AsOf, MarketSource: m.MarketSource, Synthetic: m.Synthetic(), MarketSources: m.Sources}
	for _, game := range m.Games {
		for _, k := range Kinds {
			name := FileName(game, k.Name)
			ix.Files = append(ix.Files, File{Name: name, Game: game, Kind: k.Name, Path: name + ".jsonl.gz", Schema: name + ".schema.json"})
		}
	}
	workers := opts.Workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *File)
	errs := make([]error, len(ix.Files))
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(ix.Files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				err := writeFile(ctx, r, dir, f, asOf)
				if err == nil && opts.Progress != nil {
					opts.Progress(f.Name, f.Rows)
				}
				if err != nil {
					errs[fileIndex(ix, f)] = err
					cancel()
				}
			}
		}()
	}
	for i := range ix.Files {
		select {
		case jobs <- &ix.Files[i]:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("bulk: encode index: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, IndexFile), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return nil, err
	}
	if err := snapshots.SyncDir(dir); err != nil {
		return nil, err
	}
	return ix, nil
}

func fileIndex(ix *Index, f *File) int {
	for i := range ix.Files {
		if &ix.Files[i] == f {
			return i
		}
	}
	return 0
}

// rowWriter counts the rows of a file and the catalog sources they draw on.
type rowWriter struct {
	w       *bufio.Writer
	rows    int64
	sources map[string]bool
	buf     []byte
}

// row writes b and a newline.
func (rw *rowWriter) row(b []byte) error {
	rw.rows++
	if _, err := rw.w.Write(b); err != nil {
		return err
	}
	return rw.w.WriteByte('\n')
}

// hashCounter hashes and counts the bytes written to the file.
type hashCounter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *hashCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

func writeFile(ctx context.Context, r snapshots.Reader, dir string, f *File, asOf snapshots.Day) error {
	schema, err := Schema(f.Game, f.Kind)
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, f.Schema), func(w io.Writer) error { _, err := w.Write(schema); return err }); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, f.Path), func(w io.Writer) error {
		hc := &hashCounter{w: w, h: sha256.New()}
		zw, err := gzip.NewWriterLevel(hc, GzipLevel)
		if err != nil {
			return err
		}
		rw := &rowWriter{w: bufio.NewWriterSize(zw, 64<<10), sources: map[string]bool{}}
		if err := writeRows(ctx, r, f.Game, f.Kind, asOf, rw); err != nil {
			return fmt.Errorf("bulk: %s: %w", f.Name, err)
		}
		if err := rw.w.Flush(); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		f.Rows, f.Size, f.SHA256, f.Sources = rw.rows, hc.n, hex.EncodeToString(hc.h.Sum(nil)), sortedKeys(rw.sources)
		return nil
	})
}

// writeAtomic writes path through a temporary file: write, flush, fsync,
// rename.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("bulk: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("bulk: write %s: %w", path, err)
	}
	return nil
}

// writeRows writes the rows of one game's file of one kind, in catalog
// order (sets, cards by ordinal), printings in Variants order, grades in
// grade order, days oldest first.
func writeRows(ctx context.Context, r snapshots.Reader, game, kind string, asOf snapshots.Day, rw *rowWriter) error {
	sets, err := r.Sets(game)
	if err != nil {
		return err
	}
	if kind == "sets" {
		for _, s := range sets {
			rw.sources[s.Source] = true
			if rw.buf, err = appendJSONRow(rw.buf[:0], newSetRow(s)); err != nil {
				return err
			}
			if err := rw.row(rw.buf); err != nil {
				return err
			}
		}
		return nil
	}
	setByID := make(map[string]*snapshots.Set, len(sets))
	for _, s := range sets {
		setByID[s.ID] = s
	}
	cards, err := r.Cards(game)
	if err != nil {
		return err
	}
	from := asOf - HistoryDays + 1
	for i, c := range cards {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rw.sources[c.Source] = true
		ps, err := r.Printings(game, c.ID)
		if err != nil {
			return err
		}
		prov, err := pricing.ReadProvenance(r, c)
		if err != nil {
			return err
		}
		switch kind {
		case "cards":
			if rw.buf, err = appendJSONRow(rw.buf[:0], newCardRow(c, setByID[c.SetID], ps, prov)); err != nil {
				return err
			}
			if err := rw.row(rw.buf); err != nil {
				return err
			}
		case "prices":
			for pi := range ps {
				p := &ps[pi]
				for ei := range p.Estimates {
					e := &p.Estimates[ei]
					rw.buf = appendPriceRow(rw.buf[:0], c, p, e, prov.SeriesOrigin(int(p.Finish), e.Grade))
					if err := rw.row(rw.buf); err != nil {
						return err
					}
				}
			}
		case "price-history":
			for pi := range ps {
				p := &ps[pi]
				series, err := r.PrintingSeries(game, c.ID, int(p.Finish))
				if err != nil {
					return err
				}
				for si := range series {
					if err := writeHistory(rw, c, p, &series[si], from, asOf, prov.SeriesOrigin(int(p.Finish), series[si].Grade)); err != nil {
						return err
					}
				}
			}
		default:
			return fmt.Errorf("unknown kind %q", kind)
		}
	}
	return nil
}

// writeHistory writes the rows of one series from day from to asOf: the
// point in force on from (carried from an earlier day) when the series has
// one and no point falls on from, then every point of the range.
func writeHistory(rw *rowWriter, c *snapshots.Card, p *snapshots.Printing, s *snapshots.PriceSeries, from, asOf snapshots.Day, o pricing.Origin) error {
	pts := s.Points
	i := 0
	for i < len(pts) && pts[i].Day < from {
		i++
	}
	if i > 0 && (i == len(pts) || pts[i].Day > from) {
		rw.buf = appendHistoryRow(rw.buf[:0], c, p, s.Grade, from, &pts[i-1], o)
		if err := rw.row(rw.buf); err != nil {
			return err
		}
	}
	for ; i < len(pts) && pts[i].Day <= asOf; i++ {
		rw.buf = appendHistoryRow(rw.buf[:0], c, p, s.Grade, pts[i].Day, &pts[i], o)
		if err := rw.row(rw.buf); err != nil {
			return err
		}
	}
	return nil
}
