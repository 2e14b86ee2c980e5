package history

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
)

// Mapped days: derived data kept beside the raw days, so that a build maps
// only the days it has not mapped before. One file per source, day and
// mapping:
//
//	<store>/mapped/<source>/<YYYY-MM-DD>.<raw>.<key>.<sha256>.obs.gz
//
// raw is the first 16 hex digits of the raw day's SHA-256 (Entry.SHA256),
// key the first 16 of the SHA-256 of what the mapping depends on besides
// the raw day (MappedKey: source.MapVersion and the catalog's
// fingerprint), sha256 that of the uncompressed content, checked on every
// read. The content is a JSON header line (format, source, date, the raw
// day's whole SHA-256, the key's parts, the observations' count) and the
// observations in a compact binary form (mappedFormat). A mapped day is
// rebuilt from its raw day whenever it is missing, corrupt, or of another
// raw day, map version or catalog; filing one removes the day's other
// mapped files. Removing mapped/ loses nothing but time.
//
// A day of tcgcsv's archive (prices only) is mapped with the names of the
// newest day's products at the time it is first mapped, and keeps them
// until the map version or the catalog changes: a product keeps its name.

// MappedDir is the directory of the mapped days in a store.
const MappedDir = "mapped"

// mappedFormat is the layout of a mapped day this code writes and reads.
const mappedFormat = 1

// MappedKey is what a mapped day depends on besides its raw day.
type MappedKey struct {
	MapVersion int    `json:"map_version"`
	Catalog    string `json:"catalog"` // source.Catalog.Fingerprint
}

func (k MappedKey) id() string {
	sum := sha256.Sum256([]byte(strconv.Itoa(k.MapVersion) + "|" + k.Catalog))
	return hex.EncodeToString(sum[:8])
}

// KeyOf returns the key of days mapped now onto cat.
func KeyOf(cat *source.Catalog) (MappedKey, error) {
	fp, err := cat.Fingerprint()
	if err != nil {
		return MappedKey{}, fmt.Errorf("catalog fingerprint: %w", err)
	}
	return MappedKey{MapVersion: source.MapVersion, Catalog: fp}, nil
}

// Mapped is one day of one source as mapped onto a catalog: the
// observations a build keeps of it.
type Mapped struct {
	Entry        Entry // the raw day
	Key          MappedKey
	Observations []source.Observation
}

// MappedEntry is one mapped day on file.
type MappedEntry struct {
	Source string
	Date   snapshots.Day
	Raw    string // the first 16 hex digits of the raw day's SHA-256
	Key    string // MappedKey.id
	SHA256 string // of the uncompressed content
	Name   string
}

// Of reports whether me is the mapping of raw day e with key k.
func (me MappedEntry) Of(e Entry, k MappedKey) bool {
	return me.Date == e.Date && me.Raw == e.SHA256[:16] && me.Key == k.id()
}

var mappedRE = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})\.([0-9a-f]{16})\.([0-9a-f]{16})\.([0-9a-f]{64})\.obs\.gz$`)

// MappedDays lists the mapped days of source on file, by date (a date may
// have several: of other raw days or keys).
func (s *Store) MappedDays(ctx context.Context, src string) (map[snapshots.Day][]MappedEntry, error) {
	names, err := s.b.list(ctx, MappedDir+"/"+src)
	if err != nil {
		return nil, fmt.Errorf("history %s: list %s/%s: %w", s.b, MappedDir, src, err)
	}
	out := map[snapshots.Day][]MappedEntry{}
	for _, n := range names {
		m := mappedRE.FindStringSubmatch(n[strings.LastIndex(n, "/")+1:])
		if m == nil {
			continue
		}
		d, err := snapshots.ParseDay(m[1])
		if err != nil {
			continue
		}
		out[d] = append(out[d], MappedEntry{Source: src, Date: d, Raw: m[2], Key: m[3], SHA256: m[4], Name: n})
	}
	return out, nil
}

// mappedHeader is a mapped day's first line.
type mappedHeader struct {
	Format       int    `json:"format"`
	Source       string `json:"source"`
	Date         string `json:"date"`
	Raw          string `json:"raw_sha256"`
	MapVersion   int    `json:"map_version"`
	Catalog      string `json:"catalog"`
	Observations int    `json:"observations"`
}

// PutMapped files m (its observations' cards are cat's) and removes the
// other mapped files of its day listed in others. It returns the entry and
// the bytes filed.
func (s *Store) PutMapped(ctx context.Context, m *Mapped, cat *source.Catalog, others []MappedEntry) (MappedEntry, int, error) {
	content, err := EncodeMapped(m, cat)
	if err != nil {
		return MappedEntry{}, 0, fmt.Errorf("history: mapped %s %s: %w", m.Entry.Source, m.Entry.Date, err)
	}
	sum := sha256.Sum256(content)
	me := MappedEntry{Source: m.Entry.Source, Date: m.Entry.Date, Raw: m.Entry.SHA256[:16], Key: m.Key.id(), SHA256: hex.EncodeToString(sum[:])}
	me.Name = fmt.Sprintf("%s/%s/%s.%s.%s.%s.obs.gz", MappedDir, me.Source, me.Date, me.Raw, me.Key, me.SHA256)
	b, err := gzFast(content)
	if err != nil {
		return MappedEntry{}, 0, fmt.Errorf("history: %w", err)
	}
	exists := false
	for _, o := range others {
		if o.Name == me.Name {
			exists = true
		}
	}
	if !exists {
		if err := s.b.put(ctx, me.Name, b); err != nil {
			return MappedEntry{}, 0, fmt.Errorf("history %s: put %s: %w", s.b, me.Name, err)
		}
	}
	for _, o := range others {
		if o.Name != me.Name {
			if err := s.b.remove(ctx, o.Name); err != nil {
				return me, len(b), fmt.Errorf("history %s: remove the stale %s: %w", s.b, o.Name, err)
			}
		}
	}
	return me, len(b), nil
}

// GetMapped reads a mapped day of raw day e, checking its checksum and that
// it is of e and key k; its observations' cards are cat's.
func (s *Store) GetMapped(ctx context.Context, me MappedEntry, e Entry, k MappedKey, cat *source.Catalog) (*Mapped, error) {
	b, err := s.b.get(ctx, me.Name)
	if err != nil {
		return nil, fmt.Errorf("history %s: get %s: %w", s.b, me.Name, err)
	}
	content, err := gunzip(b)
	if err != nil {
		return nil, fmt.Errorf("history %s: %s: %w: %v", s.b, me.Name, ErrCorrupt, err)
	}
	sum := sha256.Sum256(content)
	if hex.EncodeToString(sum[:]) != me.SHA256 {
		return nil, fmt.Errorf("history %s: %s: %w", s.b, me.Name, ErrCorrupt)
	}
	m, err := DecodeMapped(content, cat)
	if err != nil {
		return nil, fmt.Errorf("history %s: %s: %w", s.b, me.Name, err)
	}
	if m.Entry.Source != e.Source || m.Entry.Date != e.Date || m.Entry.SHA256 != e.SHA256 || m.Key != k {
		return nil, fmt.Errorf("history %s: %s is not the mapping of %s with map version %d and this catalog", s.b, me.Name, e.Name, k.MapVersion)
	}
	m.Entry = e
	return m, nil
}

func gzFast(b []byte) ([]byte, error) { return gzLevel(b, gzip.BestSpeed) }

// EncodeMapped writes m's content (uncompressed): the header line, then
// the observations:
//
//	strings   uvarint n, n × (uvarint length, bytes): the fields,
//	          currencies, matches and a sale's URL and title are indexes
//	          into it
//	n records uvarint card (index into the catalog's cards, zigzag delta
//	          from the previous record's), uvarint finish, byte grade,
//	          uvarint field, varint day - the day's date, varint amount,
//	          uvarint currency, product (uvarint id<<1 for a decimal id,
//	          else uvarint len<<1|1 and the bytes), uvarint match, byte
//	          confidence; a sale (field source.FieldSale) adds byte
//	          marketplace, byte trade type, uvarint URL, uvarint title
//
// Records keep the observations' order (the first observation of a
// printing and day keeps it).
func EncodeMapped(m *Mapped, cat *source.Catalog) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	h := mappedHeader{Format: mappedFormat, Source: m.Entry.Source, Date: m.Entry.Date.String(), Raw: m.Entry.SHA256,
		MapVersion: m.Key.MapVersion, Catalog: m.Key.Catalog, Observations: len(m.Observations)}
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	strs := map[string]uint64{}
	var table []string
	str := func(s string) uint64 {
		i, ok := strs[s]
		if !ok {
			i = uint64(len(table))
			strs[s] = i
			table = append(table, s)
		}
		return i
	}
	var rec []byte
	prev := 0
	for i := range m.Observations {
		o := &m.Observations[i]
		ci, ok := cat.Index(o.Card)
		if !ok {
			return nil, fmt.Errorf("observation %d: card %s is not of the catalog", i+1, o.Card.ID)
		}
		if o.Finish < 0 || o.Source != m.Entry.Source {
			return nil, fmt.Errorf("observation %d: finish %d of source %s", i+1, o.Finish, o.Source)
		}
		rec = binary.AppendVarint(rec, int64(ci-prev))
		prev = ci
		rec = binary.AppendUvarint(rec, uint64(o.Finish))
		rec = append(rec, byte(o.Grade))
		rec = binary.AppendUvarint(rec, str(o.Field))
		rec = binary.AppendVarint(rec, int64(o.Day-m.Entry.Date))
		rec = binary.AppendVarint(rec, o.Amount)
		rec = binary.AppendUvarint(rec, str(o.Currency))
		if id, err := strconv.ParseUint(o.Product, 10, 62); err == nil && strconv.FormatUint(id, 10) == o.Product {
			rec = binary.AppendUvarint(rec, id<<1)
		} else {
			rec = binary.AppendUvarint(rec, uint64(len(o.Product))<<1|1)
			rec = append(rec, o.Product...)
		}
		rec = binary.AppendUvarint(rec, str(o.Match))
		rec = append(rec, byte(o.Confidence))
		if o.Field == source.FieldSale {
			rec = append(rec, byte(o.Marketplace), byte(o.TradeType))
			rec = binary.AppendUvarint(rec, str(o.URL))
			rec = binary.AppendUvarint(rec, str(o.Title))
		}
	}
	b := buf.Bytes()
	b = binary.AppendUvarint(b, uint64(len(table)))
	for _, s := range table {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return append(b, rec...), nil
}

// errMapped is a record EncodeMapped did not write.
var errMapped = errors.New("mapped day: truncated or corrupt")

type mappedDecoder struct {
	b   []byte
	err error
}

func (d *mappedDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errMapped
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *mappedDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errMapped
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *mappedDecoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errMapped
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *mappedDecoder) bytes(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errMapped
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

// DecodeMapped reads what EncodeMapped wrote, its cards cat's.
func DecodeMapped(b []byte, cat *source.Catalog) (*Mapped, error) {
	line, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return nil, errors.New("mapped day: no header")
	}
	var h mappedHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("mapped day: header: %w", err)
	}
	if h.Format != mappedFormat {
		return nil, fmt.Errorf("mapped day: format %d: this cardedge reads format %d", h.Format, mappedFormat)
	}
	date, err := snapshots.ParseDay(h.Date)
	if err != nil {
		return nil, fmt.Errorf("mapped day: header: %w", err)
	}
	if len(h.Raw) != 64 || h.Observations < 0 {
		return nil, errors.New("mapped day: header: bad raw_sha256 or observations")
	}
	m := &Mapped{Entry: Entry{Source: h.Source, Date: date, SHA256: h.Raw}, Key: MappedKey{MapVersion: h.MapVersion, Catalog: h.Catalog}}
	d := &mappedDecoder{b: rest}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errMapped
	}
	table := make([]string, n)
	for i := range table {
		table[i] = string(d.bytes(d.uvarint()))
	}
	str := func() string {
		i := d.uvarint()
		if d.err == nil && i >= uint64(len(table)) {
			d.err = errMapped
		}
		if d.err != nil {
			return ""
		}
		return table[i]
	}
	// Each record takes at least 10 bytes.
	if h.Observations > len(d.b)/10 {
		return nil, errMapped
	}
	m.Observations = make([]source.Observation, h.Observations)
	card := 0
	for i := range m.Observations {
		o := &m.Observations[i]
		card += int(d.varint())
		if d.err == nil && (card < 0 || card >= len(cat.Cards)) {
			d.err = fmt.Errorf("mapped day: observation %d: card %d of %d", i+1, card, len(cat.Cards))
		}
		if d.err != nil {
			return nil, d.err
		}
		o.Source, o.Card = h.Source, cat.Cards[card]
		f := d.uvarint()
		if f > 255 {
			d.err = errMapped
		}
		o.Finish = int(f)
		o.Grade = snapshots.Grade(d.byte())
		o.Field = str()
		o.Day = date + snapshots.Day(d.varint())
		o.Amount = d.varint()
		o.Currency = str()
		if p := d.uvarint(); p&1 == 0 {
			o.Product = strconv.FormatUint(p>>1, 10)
		} else {
			o.Product = string(d.bytes(p >> 1))
		}
		o.Match = str()
		o.Confidence = snapshots.Confidence(d.byte())
		if o.Field == source.FieldSale {
			o.Marketplace = snapshots.Marketplace(d.byte())
			o.TradeType = snapshots.TradeType(d.byte())
			o.URL = str()
			o.Title = str()
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("mapped day: %d bytes after the last observation", len(d.b))
	}
	return m, nil
}
