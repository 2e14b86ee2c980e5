package history

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// FormatVersion is the layout of a day file this code writes and reads.
const FormatVersion = 1

// ErrDayFiled is a day that is already filed with other content.
var ErrDayFiled = errors.New("day already filed with other content")

// ErrCorrupt is a day file whose content does not match its checksum.
var ErrCorrupt = errors.New("day file does not match its checksum")

// backend is where the files are: a directory or a bucket.
type backend interface {
	// list returns the names (source/file) under source/, sorted.
	list(ctx context.Context, source string) ([]string, error)
	get(ctx context.Context, name string) ([]byte, error)
	// put creates name; it must not exist.
	put(ctx context.Context, name string, b []byte) error
	remove(ctx context.Context, name string) error
	String() string
}

// Store files and reads the sources' days.
type Store struct{ b backend }

// Open opens the store at loc: a directory (created when missing) or
// s3://BUCKET/PREFIX.
func Open(ctx context.Context, loc string) (*Store, error) {
	if strings.HasPrefix(loc, "s3://") {
		b, err := openBucket(ctx, loc)
		if err != nil {
			return nil, err
		}
		return &Store{b: b}, nil
	}
	b, err := openDir(loc)
	if err != nil {
		return nil, err
	}
	return &Store{b: b}, nil
}

func (s *Store) String() string { return s.b.String() }

// Entry is one filed day.
type Entry struct {
	Source string
	Date   snapshots.Day
	SHA256 string // of the uncompressed content
	Name   string // source/YYYY-MM-DD.<sha256>.jsonl.gz
}

var nameRE = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})\.([0-9a-f]{64})\.jsonl\.gz$`)

// Days lists the days filed for source, oldest first. Two files of one
// day (a replace interrupted) are an error naming both.
func (s *Store) Days(ctx context.Context, src string) ([]Entry, error) {
	names, err := s.b.list(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("history %s: list %s: %w", s.b, src, err)
	}
	var out []Entry
	for _, n := range names {
		base := n[strings.LastIndex(n, "/")+1:]
		m := nameRE.FindStringSubmatch(base)
		if m == nil {
			continue
		}
		d, err := snapshots.ParseDay(m[1])
		if err != nil {
			continue
		}
		out = append(out, Entry{Source: src, Date: d, SHA256: m[2], Name: n})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Date < out[j].Date || (out[i].Date == out[j].Date && out[i].Name < out[j].Name)
	})
	for i := 1; i < len(out); i++ {
		if out[i].Date == out[i-1].Date {
			return nil, fmt.Errorf("history %s: %s is filed twice (%s, %s): remove the wrong one", s.b, out[i].Date, out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}

// header is a day file's first line.
type header struct {
	Format    int       `json:"format"`
	Source    string    `json:"source"`
	Date      string    `json:"date"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	Digest    string    `json:"input_sha256"`
	Rows      int       `json:"rows"`
}

// Encode writes d's file content (uncompressed) and its SHA-256.
func Encode(d *source.Day) ([]byte, string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	h := header{Format: FormatVersion, Source: d.Source, Date: d.Date.String(), CreatedAt: d.CreatedAt.UTC(), Digest: d.Digest, Rows: len(d.Rows)}
	if d.CreatedAt.IsZero() {
		h.CreatedAt = time.Time{}
	}
	if err := enc.Encode(h); err != nil {
		return nil, "", err
	}
	for i := range d.Rows {
		if err := enc.Encode(&d.Rows[i]); err != nil {
			return nil, "", fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(sum[:]), nil
}

// Decode reads a day file's content (uncompressed) back.
func Decode(b []byte) (*source.Day, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if !sc.Scan() {
		return nil, errors.New("empty day file")
	}
	var h header
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.Format != FormatVersion {
		return nil, fmt.Errorf("format %d: this cardedge reads format %d", h.Format, FormatVersion)
	}
	date, err := snapshots.ParseDay(h.Date)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	d := &source.Day{Source: h.Source, Date: date, CreatedAt: h.CreatedAt, Digest: h.Digest, Rows: make([]source.Row, 0, h.Rows)}
	line := 1
	for sc.Scan() {
		line++
		var r source.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		d.Rows = append(d.Rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if len(d.Rows) != h.Rows {
		return nil, fmt.Errorf("%d rows, the header says %d", len(d.Rows), h.Rows)
	}
	return d, nil
}

func gz(b []byte) ([]byte, error) { return gzLevel(b, gzip.BestCompression) }

// gzLevel compresses b at level.
func gzLevel(b []byte, level int) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gunzip(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 4<<30))
}

// Outcome says what Put did.
type Outcome string

// Outcomes of Put.
const (
	Filed     Outcome = "filed"     // a new day
	Unchanged Outcome = "unchanged" // the day was filed with the same content
	Replaced  Outcome = "replaced"  // the day was filed with other content, replaced on purpose
)

// Put files day d of its source. The same content filed again is
// Unchanged; other content for a filed day is ErrDayFiled unless replace.
// It returns the entry of the day's file and how many bytes it holds.
func (s *Store) Put(ctx context.Context, d *source.Day, replace bool) (Entry, Outcome, int, error) {
	content, sum, err := Encode(d)
	if err != nil {
		return Entry{}, "", 0, fmt.Errorf("history: %s %s: %w", d.Source, d.Date, err)
	}
	days, err := s.Days(ctx, d.Source)
	if err != nil {
		return Entry{}, "", 0, err
	}
	e := Entry{Source: d.Source, Date: d.Date, SHA256: sum, Name: d.Source + "/" + d.Date.String() + "." + sum + ".jsonl.gz"}
	var old *Entry
	for i := range days {
		if days[i].Date == d.Date {
			old = &days[i]
		}
	}
	if old != nil && old.SHA256 == sum {
		return *old, Unchanged, 0, nil
	}
	if old != nil && !replace {
		return Entry{}, "", 0, fmt.Errorf("history: %s %s: %w (filed %s, now %s; --replace-day replaces it)", d.Source, d.Date, ErrDayFiled, old.SHA256[:12], sum[:12])
	}
	b, err := gz(content)
	if err != nil {
		return Entry{}, "", 0, fmt.Errorf("history: %w", err)
	}
	if err := s.b.put(ctx, e.Name, b); err != nil {
		return Entry{}, "", 0, fmt.Errorf("history %s: put %s: %w", s.b, e.Name, err)
	}
	if old != nil {
		if err := s.b.remove(ctx, old.Name); err != nil {
			return Entry{}, "", 0, fmt.Errorf("history %s: replaced %s but cannot remove %s: %w", s.b, e.Name, old.Name, err)
		}
		return e, Replaced, len(b), nil
	}
	return e, Filed, len(b), nil
}

// Get reads one filed day, checking its checksum.
func (s *Store) Get(ctx context.Context, e Entry) (*source.Day, error) {
	b, err := s.b.get(ctx, e.Name)
	if err != nil {
		return nil, fmt.Errorf("history %s: get %s: %w", s.b, e.Name, err)
	}
	content, err := gunzip(b)
	if err != nil {
		return nil, fmt.Errorf("history %s: %s: %w: %v", s.b, e.Name, ErrCorrupt, err)
	}
	sum := sha256.Sum256(content)
	if hex.EncodeToString(sum[:]) != e.SHA256 {
		return nil, fmt.Errorf("history %s: %s: %w", s.b, e.Name, ErrCorrupt)
	}
	d, err := Decode(content)
	if err != nil {
		return nil, fmt.Errorf("history %s: %s: %w", s.b, e.Name, err)
	}
	if d.Source != e.Source || d.Date != e.Date {
		return nil, fmt.Errorf("history %s: %s holds %s %s", s.b, e.Name, d.Source, d.Date)
	}
	d.Input = s.b.String() + "/" + e.Name
	return d, nil
}

// Header reads a filed day's header only (its rows not decoded).
func (s *Store) Header(ctx context.Context, e Entry) (*source.Day, error) {
	d, err := s.Get(ctx, e)
	if err != nil {
		return nil, err
	}
	d.Rows = nil
	return d, nil
}

// Load reads the days of source filed from from to to (inclusive), oldest
// first.
func (s *Store) Load(ctx context.Context, src string, from, to snapshots.Day) ([]*source.Day, error) {
	days, err := s.Days(ctx, src)
	if err != nil {
		return nil, err
	}
	var out []*source.Day
	for _, e := range days {
		if e.Date < from || e.Date > to {
			continue
		}
		d, err := s.Get(ctx, e)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
