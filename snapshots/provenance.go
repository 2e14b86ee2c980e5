package snapshots

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cardedge/cardedge/estimate"
)

// Provenance: where the market numbers of a snapshot built from real
// sources come from (cardbuild build --source). A card's CardSources holds
// each source's latest numbers with their provenance (Quote), each source's
// daily history (SourceSeries) and which source made each of the card's
// price series (SeriesSource). The synthetic default has none: its
// manifest's MarketSource says "synthetic".

// Market sources by name, as provenance names them: the marketplaces' feeds,
// the sold listings a collector exported (observed), the service's own
// estimate, and the synthesizer.
const (
	SourceOwn           = "own"
	SourceObserved      = "observed"
	SourceTCGplayer     = "tcgplayer"
	SourceCardmarket    = "cardmarket"
	SourcePriceCharting = "pricecharting"
	SourceSynthetic     = "synthetic"
)

// sourceNames are the provenance sources in stored order: append only.
var sourceNames = []string{SourceOwn, SourceObserved, SourceTCGplayer, SourceCardmarket, SourcePriceCharting, SourceSynthetic}

// StaleAfterDays is how many days a source may go without a file before its
// numbers are stale: a source whose last day is more than this many days
// before as_of is stale (MarketSourceStatus.Stale, Quote.Stale). It is the
// methodology's (estimate.Default.Sources.StaleAfterDays).
const StaleAfterDays = estimate.SourceStaleAfterDays

// MarketSourceStatus is one real source of a snapshot (Manifest.Sources).
type MarketSourceStatus struct {
	Name string `json:"name"`
	// Input is where this build read the source's day from ("" when it
	// was given none: the history store's days serve).
	Input string `json:"input,omitempty"`
	// LastDay is the source's newest day in the snapshot (YYYY-MM-DD; ""
	// when it has none), Days how many days of it the snapshot holds.
	LastDay string `json:"last_day,omitempty"`
	Days    int    `json:"days"`
	// Stale: LastDay is more than StaleAfterDays before as_of, or none.
	Stale bool `json:"stale"`
	// Refused says why this build's input of the source was not used (a
	// bad file, a day already filed with other content, an older
	// createdAt); "" when it was.
	Refused string `json:"refused,omitempty"`
	// Rows, Matched and Observations count the newest day's rows, the rows
	// matched to a card and the numbers they gave.
	Rows         int `json:"rows"`
	Matched      int `json:"matched"`
	Observations int `json:"observations"`
}

// Quote is one number of one source for one printing and grade of a card,
// on the source's latest day, with its provenance.
type Quote struct {
	Source string // SourceTCGplayer, SourceCardmarket, SourcePriceCharting ...
	Finish uint8  // the printing: index into the card's Variants
	Grade  Grade
	// Field is the source's field (TCGplayer market, low, mid, high,
	// direct_low; Cardmarket avg, low, trend, avg1, avg7, avg30;
	// PriceCharting's columns).
	Field string
	Day   Day   // the source's day: as of when the number is
	Cents int64 // in USD
	// Amount and Currency are the number as the source gave it
	// (hundredths of Currency); Rate the USD per unit of Currency applied
	// (1 for USD) and RateDay the ECB day of that rate (0 for USD).
	Amount   int64
	Currency string
	Rate     float64
	RateDay  Day
	// Product is the source's product id, Match how it was matched to the
	// card (id, number_name, title).
	Product string
	Match   string
	// Stale: the source had no file for more than StaleAfterDays days
	// before as_of.
	Stale bool
}

// SourcePoint is one day of a source's series.
type SourcePoint struct {
	Day     Day
	Cents   int64 // USD
	Amount  int64 // as the source gave it, hundredths of the series' Currency
	RateDay Day   // the ECB day of the conversion (0 for USD)
}

// SourceSeries is one source's daily history of one field, printing and
// grade of a card (its headline field: TCGplayer's market, Cardmarket's
// trend, PriceCharting's price of the grade), oldest first.
type SourceSeries struct {
	Source   string
	Field    string
	Finish   uint8
	Grade    Grade
	Currency string
	Points   []SourcePoint
}

// SeriesSource says which source made one price series of a card: a
// source's feed (Field: its field), observed (the estimator over verified
// sales), or synthetic (the synthesizer, --synthetic-fill).
type SeriesSource struct {
	Finish uint8
	Grade  Grade
	Source string
	Field  string
}

// CardSources is the provenance of one card's market numbers.
type CardSources struct {
	Quotes  []Quote
	History []SourceSeries
	Series  []SeriesSource
	// Synthetic: the card's market data was synthesized (--synthetic-fill:
	// no source had it); its sales carry SaleSynthetic.
	Synthetic bool
}

// ProvenanceReader reads the provenance of a snapshot's cards; the bolt
// Reader implements it beside Reader.
type ProvenanceReader interface {
	// CardSources returns a card's provenance: nil (no error) when the
	// card has none (the synthetic default, a card no source had).
	// ENOTFOUND.
	CardSources(game, cardID string) (*CardSources, error)
}

// SeriesSourceOf returns the source of a card's price series of printing
// finish and grade g (ok false when none is recorded).
func (cs *CardSources) SeriesSourceOf(finish uint8, g Grade) (SeriesSource, bool) {
	if cs == nil {
		return SeriesSource{}, false
	}
	for _, s := range cs.Series {
		if s.Finish == finish && s.Grade == g {
			return s, true
		}
	}
	return SeriesSource{}, false
}

func sourceIndex(name string) (byte, error) {
	for i, n := range sourceNames {
		if n == name {
			return byte(i), nil
		}
	}
	return 0, fmt.Errorf("unknown source %q", name)
}

func sourceName(b byte) (string, error) {
	if int(b) >= len(sourceNames) {
		return "", fmt.Errorf("unknown source %d", b)
	}
	return sourceNames[b], nil
}

// cardSourcesVersion is the first byte of EncodeCardSources' output.
const cardSourcesVersion = 2

// EncodeCardSources appends the binary encoding of cs to dst: varints; a
// history's days, cents and amounts as deltas from the previous point's,
// and a USD series' amounts (its cents) and rate days (none) not stored
// (version 2).
func EncodeCardSources(dst []byte, cs *CardSources) ([]byte, error) {
	dst = append(dst, cardSourcesVersion)
	flags := byte(0)
	if cs.Synthetic {
		flags |= 1
	}
	dst = append(dst, flags)
	dst = binary.AppendUvarint(dst, uint64(len(cs.Quotes)))
	for _, q := range cs.Quotes {
		si, err := sourceIndex(q.Source)
		if err != nil {
			return nil, err
		}
		var qf byte
		if q.Stale {
			qf |= 1
		}
		dst = append(dst, si, q.Finish, byte(q.Grade), qf)
		dst = appendString(dst, q.Field)
		dst = binary.AppendVarint(dst, int64(q.Day))
		dst = binary.AppendVarint(dst, q.Cents)
		dst = binary.AppendVarint(dst, q.Amount)
		dst = appendString(dst, q.Currency)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(q.Rate))
		dst = binary.AppendVarint(dst, int64(q.RateDay))
		dst = appendString(dst, q.Product)
		dst = appendString(dst, q.Match)
	}
	dst = binary.AppendUvarint(dst, uint64(len(cs.History)))
	for _, s := range cs.History {
		si, err := sourceIndex(s.Source)
		if err != nil {
			return nil, err
		}
		// A series whose amounts are its cents and that has no rate days
		// (a USD source) stores neither.
		plain := true
		for _, p := range s.Points {
			if p.Amount != p.Cents || p.RateDay != 0 {
				plain = false
				break
			}
		}
		var sf byte
		if plain {
			sf |= 1
		}
		dst = append(dst, si, s.Finish, byte(s.Grade), sf)
		dst = appendString(dst, s.Field)
		dst = appendString(dst, s.Currency)
		dst = binary.AppendUvarint(dst, uint64(len(s.Points)))
		var prev SourcePoint
		for _, p := range s.Points {
			dst = binary.AppendVarint(dst, int64(p.Day)-int64(prev.Day))
			dst = binary.AppendVarint(dst, p.Cents-prev.Cents)
			if !plain {
				dst = binary.AppendVarint(dst, p.Amount-prev.Amount)
				rd := int64(0)
				if p.RateDay != 0 {
					rd = int64(p.Day-p.RateDay) + 1 // 0 means none
				}
				dst = binary.AppendVarint(dst, rd)
			}
			prev = p
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(cs.Series)))
	for _, s := range cs.Series {
		si, err := sourceIndex(s.Source)
		if err != nil {
			return nil, err
		}
		dst = append(dst, s.Finish, byte(s.Grade), si)
		dst = appendString(dst, s.Field)
	}
	return dst, nil
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// errCardSources is a value EncodeCardSources did not write.
var errCardSources = errors.New("decode card sources: truncated or corrupt")

type sourcesDecoder struct {
	b   []byte
	err error
}

func (d *sourcesDecoder) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.err = errCardSources
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *sourcesDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCardSources
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *sourcesDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCardSources
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length no larger than the bytes left (each element takes
// at least one byte).
func (d *sourcesDecoder) count() int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = errCardSources
		return 0
	}
	return int(n)
}

func (d *sourcesDecoder) string() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *sourcesDecoder) source() string {
	s, err := sourceName(d.byte())
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("decode card sources: %w", err)
	}
	return s
}

// DecodeCardSources decodes what EncodeCardSources wrote.
func DecodeCardSources(b []byte) (*CardSources, error) {
	d := &sourcesDecoder{b: b}
	if v := d.byte(); d.err == nil && v != cardSourcesVersion {
		return nil, fmt.Errorf("decode card sources: version %d, want %d", v, cardSourcesVersion)
	}
	cs := &CardSources{Synthetic: d.byte()&1 != 0}
	if n := d.count(); n > 0 {
		cs.Quotes = make([]Quote, 0, n)
		for range n {
			var q Quote
			q.Source = d.source()
			q.Finish = d.byte()
			q.Grade = Grade(d.byte())
			q.Stale = d.byte()&1 != 0
			q.Field = d.string()
			q.Day = Day(d.varint())
			q.Cents = d.varint()
			q.Amount = d.varint()
			q.Currency = d.string()
			if d.err == nil && len(d.b) < 8 {
				d.err = errCardSources
			}
			if d.err != nil {
				return nil, d.err
			}
			q.Rate = math.Float64frombits(binary.LittleEndian.Uint64(d.b))
			d.b = d.b[8:]
			q.RateDay = Day(d.varint())
			q.Product = d.string()
			q.Match = d.string()
			cs.Quotes = append(cs.Quotes, q)
		}
	}
	if n := d.count(); n > 0 {
		cs.History = make([]SourceSeries, 0, n)
		for range n {
			s := SourceSeries{Source: d.source(), Finish: d.byte(), Grade: Grade(d.byte())}
			plain := d.byte()&1 != 0
			s.Field = d.string()
			s.Currency = d.string()
			np := d.count()
			if d.err != nil {
				return nil, d.err
			}
			s.Points = make([]SourcePoint, np)
			var prev SourcePoint
			for i := range s.Points {
				p := &s.Points[i]
				p.Day = Day(int64(prev.Day) + d.varint())
				p.Cents = prev.Cents + d.varint()
				p.Amount = p.Cents
				if !plain {
					p.Amount = prev.Amount + d.varint()
					if rd := d.varint(); rd != 0 {
						p.RateDay = p.Day - Day(rd-1)
					}
				}
				prev = *p
			}
			cs.History = append(cs.History, s)
		}
	}
	if n := d.count(); n > 0 {
		cs.Series = make([]SeriesSource, 0, n)
		for range n {
			s := SeriesSource{Finish: d.byte(), Grade: Grade(d.byte())}
			s.Source = d.source()
			s.Field = d.string()
			cs.Series = append(cs.Series, s)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("decode card sources: %d bytes left over", len(d.b))
	}
	return cs, nil
}
