package snapshots

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cardedge/cardedge/estimate"
)

// Binary encodings of the per-card rows. They are fixed-size little-endian
// records so that the edge decodes a card's rows with no allocation per row.

const saleSize = 26

// EncodeSales appends the encoding of sales to dst.
func EncodeSales(dst []byte, sales []Sale) []byte {
	for _, s := range sales {
		var b [saleSize]byte
		binary.LittleEndian.PutUint64(b[0:], s.ID)
		binary.LittleEndian.PutUint32(b[8:], uint32(s.Day))
		binary.LittleEndian.PutUint64(b[12:], uint64(s.PriceCents))
		b[20] = byte(s.Marketplace)
		b[21] = byte(s.TradeType)
		b[22] = byte(s.Grade)
		b[23] = byte(s.Confidence)
		b[24] = s.Flags
		b[25] = s.Finish
		dst = append(dst, b[:]...)
	}
	return dst
}

// DecodeSales decodes sales encoded by EncodeSales, appending to dst.
func DecodeSales(dst []Sale, b []byte) ([]Sale, error) {
	if len(b)%saleSize != 0 {
		return nil, fmt.Errorf("decode sales: %d bytes is not a multiple of %d", len(b), saleSize)
	}
	for ; len(b) > 0; b = b[saleSize:] {
		dst = append(dst, Sale{
			ID:          binary.LittleEndian.Uint64(b[0:]),
			Day:         Day(binary.LittleEndian.Uint32(b[8:])),
			PriceCents:  int64(binary.LittleEndian.Uint64(b[12:])),
			Marketplace: Marketplace(b[20]),
			TradeType:   TradeType(b[21]),
			Grade:       Grade(b[22]),
			Confidence:  Confidence(b[23]),
			Flags:       b[24],
			Finish:      b[25],
		})
	}
	return dst, nil
}

// Point head bits of EncodeSeries: which of a point's values follow its
// day and fmv.
const (
	pointTVWAP    = 1 << iota // tvwap differs from fmv
	pointMedian               // median differs from fmv
	pointSales                // sales or sample is not zero
	pointConf                 // confidence or flags differ from the previous point's
	pointHeadBits = pointTVWAP | pointMedian | pointSales | pointConf
)

// minPointSize is the smallest encoded point: head, day, fmv.
const minPointSize = 3

// EncodeSeries appends the encoding of a card's price series to dst (format
// 7; a series of a feed's daily prices takes about 4 bytes a point). Per
// series: the grade (a byte) and the count of points (uvarint); per point, a
// head byte, the day (varint delta from the previous point's, the first
// from 0), fmv (varint delta from the previous point's, the first from 0),
// then what the head says: tvwap - fmv and median - fmv (varints), sales
// and sample (varints), confidence and flags (bytes; else the previous
// point's, the first point's default being 0).
func EncodeSeries(dst []byte, series []PriceSeries) []byte {
	for _, s := range series {
		dst = append(dst, byte(s.Grade))
		dst = binary.AppendUvarint(dst, uint64(len(s.Points)))
		var prev PricePoint
		for _, p := range s.Points {
			head := byte(0)
			if p.TVWAPCents != p.FMVCents {
				head |= pointTVWAP
			}
			if p.MedianCents != p.FMVCents {
				head |= pointMedian
			}
			if p.Sales != 0 || p.Sample != 0 {
				head |= pointSales
			}
			if p.Confidence != prev.Confidence || p.Flags != prev.Flags {
				head |= pointConf
			}
			dst = append(dst, head)
			dst = binary.AppendVarint(dst, int64(p.Day)-int64(prev.Day))
			dst = binary.AppendVarint(dst, p.FMVCents-prev.FMVCents)
			if head&pointTVWAP != 0 {
				dst = binary.AppendVarint(dst, p.TVWAPCents-p.FMVCents)
			}
			if head&pointMedian != 0 {
				dst = binary.AppendVarint(dst, p.MedianCents-p.FMVCents)
			}
			if head&pointSales != 0 {
				dst = binary.AppendVarint(dst, int64(p.Sales))
				dst = binary.AppendVarint(dst, int64(p.Sample))
			}
			if head&pointConf != 0 {
				dst = append(dst, byte(p.Confidence), byte(p.Flags))
			}
			prev = p
		}
	}
	return dst
}

// seriesDecoder reads EncodeSeries' varints, remembering the first error.
type seriesDecoder struct {
	b   []byte
	err error
}

func (d *seriesDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("decode series: truncated or corrupt varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *seriesDecoder) int32() int32 {
	v := d.varint()
	if d.err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		d.err = fmt.Errorf("decode series: %d is out of range", v)
	}
	return int32(v)
}

func (d *seriesDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.err = fmt.Errorf("decode series: truncated point")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// DecodeSeries decodes price series encoded by EncodeSeries.
func DecodeSeries(b []byte) ([]PriceSeries, error) {
	var out []PriceSeries
	d := &seriesDecoder{b: b}
	for len(d.b) > 0 {
		s := PriceSeries{Grade: Grade(d.byte())}
		n, k := binary.Uvarint(d.b)
		if k <= 0 {
			return nil, fmt.Errorf("decode series: truncated header")
		}
		d.b = d.b[k:]
		if n > uint64(len(d.b)/minPointSize) {
			return nil, fmt.Errorf("decode series: %d points cannot fit in %d bytes", n, len(d.b))
		}
		s.Points = make([]PricePoint, n)
		var prev PricePoint
		for i := range s.Points {
			head := d.byte()
			if head&^pointHeadBits != 0 && d.err == nil {
				d.err = fmt.Errorf("decode series: bad point head %#x", head)
			}
			p := PricePoint{Confidence: prev.Confidence, Flags: prev.Flags}
			p.Day = Day(int64(prev.Day) + d.varint())
			p.FMVCents = prev.FMVCents + d.varint()
			p.TVWAPCents, p.MedianCents = p.FMVCents, p.FMVCents
			if head&pointTVWAP != 0 {
				p.TVWAPCents = p.FMVCents + d.varint()
			}
			if head&pointMedian != 0 {
				p.MedianCents = p.FMVCents + d.varint()
			}
			if head&pointSales != 0 {
				p.Sales, p.Sample = d.int32(), d.int32()
			}
			if head&pointConf != 0 {
				p.Confidence, p.Flags = estimate.Confidence(d.byte()), estimate.Flags(d.byte())
			}
			if d.err != nil {
				return nil, d.err
			}
			s.Points[i] = p
			prev = p
		}
		out = append(out, s)
	}
	return out, nil
}

const trendingSize = 12

// EncodeTrending appends the encoding of a trending ranking to dst.
func EncodeTrending(dst []byte, entries []TrendingEntry) []byte {
	for _, e := range entries {
		dst = binary.LittleEndian.AppendUint32(dst, e.Ordinal)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.Value))
	}
	return dst
}

// DecodeTrending decodes a ranking encoded by EncodeTrending.
func DecodeTrending(b []byte) ([]TrendingEntry, error) {
	if len(b)%trendingSize != 0 {
		return nil, fmt.Errorf("decode trending: %d bytes is not a multiple of %d", len(b), trendingSize)
	}
	out := make([]TrendingEntry, 0, len(b)/trendingSize)
	for ; len(b) > 0; b = b[trendingSize:] {
		out = append(out, TrendingEntry{
			Ordinal: binary.LittleEndian.Uint32(b[0:]),
			Value:   math.Float64frombits(binary.LittleEndian.Uint64(b[4:])),
		})
	}
	return out, nil
}

const dailySize = 16

// EncodeDaily appends the encoding of a daily series to dst.
func EncodeDaily(dst []byte, days []DailyStat) []byte {
	for _, d := range days {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(d.Day))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(d.Sales))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(d.VolumeCents))
	}
	return dst
}

// DecodeDaily decodes a daily series encoded by EncodeDaily.
func DecodeDaily(b []byte) ([]DailyStat, error) {
	if len(b)%dailySize != 0 {
		return nil, fmt.Errorf("decode daily: %d bytes is not a multiple of %d", len(b), dailySize)
	}
	out := make([]DailyStat, 0, len(b)/dailySize)
	for ; len(b) > 0; b = b[dailySize:] {
		out = append(out, DailyStat{
			Day:         Day(binary.LittleEndian.Uint32(b[0:])),
			Sales:       int(binary.LittleEndian.Uint32(b[4:])),
			VolumeCents: int64(binary.LittleEndian.Uint64(b[8:])),
		})
	}
	return out, nil
}

// CumPoint is a running total of a card's verified sales of one grade up to
// and including Day. The difference of two points gives any window's count
// and volume in O(1) (after an O(log n) search for the window's ends).
type CumPoint struct {
	Day   Day
	Count int32
	Cents int64
}

// CumSeries holds the cumulative points of one card and grade, in day order,
// one point per day with verified sales.
type CumSeries struct {
	Grade  Grade
	Points []CumPoint
}

// At returns the running totals up to and including day d.
func (s CumSeries) At(d Day) (count int32, cents int64) {
	lo, hi := 0, len(s.Points)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.Points[mid].Day <= d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0, 0
	}
	p := s.Points[lo-1]
	return p.Count, p.Cents
}

// Between returns the count and volume of days in [from, to].
func (s CumSeries) Between(from, to Day) (count int32, cents int64) {
	c1, v1 := s.At(to)
	c0, v0 := s.At(from - 1)
	return c1 - c0, v1 - v0
}

const cumSize = 16

// EncodeCum appends the encoding of a card's cumulative series to dst.
func EncodeCum(dst []byte, series []CumSeries) []byte {
	for _, s := range series {
		dst = append(dst, byte(s.Grade))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s.Points)))
		for _, p := range s.Points {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Day))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Count))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.Cents))
		}
	}
	return dst
}

// DecodeCum decodes a cumulative series encoded by EncodeCum.
func DecodeCum(b []byte) ([]CumSeries, error) {
	var out []CumSeries
	for len(b) > 0 {
		if len(b) < 5 {
			return nil, fmt.Errorf("decode cum: truncated header")
		}
		s := CumSeries{Grade: Grade(b[0])}
		n := int(binary.LittleEndian.Uint32(b[1:]))
		b = b[5:]
		if len(b) < n*cumSize {
			return nil, fmt.Errorf("decode cum: %d points need %d bytes, have %d", n, n*cumSize, len(b))
		}
		s.Points = make([]CumPoint, n)
		for i := range s.Points {
			s.Points[i] = CumPoint{
				Day:   Day(binary.LittleEndian.Uint32(b[0:])),
				Count: int32(binary.LittleEndian.Uint32(b[4:])),
				Cents: int64(binary.LittleEndian.Uint64(b[8:])),
			}
			b = b[cumSize:]
		}
		out = append(out, s)
	}
	return out, nil
}

// Per-printing values: the rows of a card's printings other than its base
// printing are stored in one value, a record per printing:
//
//	finish  uint8
//	n       uint32, length of the payload
//	payload n bytes (EncodeSeries, EncodeCum or EncodeAnalytics)

// AppendPrinting appends one printing's record to dst.
func AppendPrinting(dst []byte, finish uint8, payload []byte) []byte {
	dst = append(dst, finish)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// PrintingPayload returns the payload of printing finish in a value made by
// AppendPrinting (aliasing b); ok is false when the value has no record of it.
func PrintingPayload(b []byte, finish uint8) (payload []byte, ok bool, err error) {
	for len(b) > 0 {
		if len(b) < 5 {
			return nil, false, fmt.Errorf("decode printings: truncated record header")
		}
		n := int(binary.LittleEndian.Uint32(b[1:]))
		if len(b)-5 < n {
			return nil, false, fmt.Errorf("decode printings: record of %d bytes in %d", n, len(b)-5)
		}
		if b[0] == finish {
			return b[5 : 5+n], true, nil
		}
		b = b[5+n:]
	}
	return nil, false, nil
}

const estimateSize = 1 + 3*8 + 4 + 4 + 1 + 1

// EncodePrintings appends the encoding of a card's printings to dst:
//
//	n u8, then per printing: finish u8, base u8, sales_all u32, sales_30d u32,
//	volume_30d i64, listings u32, low ask i64, m u8, m estimates (grade u8,
//	fmv, tvwap, median i64, sample u32, last sale day i32, confidence u8,
//	flags u8)
//
// Names are not stored: they are the card's variants.
func EncodePrintings(dst []byte, ps []Printing) ([]byte, error) {
	if len(ps) > 255 {
		return nil, fmt.Errorf("encode printings: %d printings, at most 255", len(ps))
	}
	dst = append(dst, byte(len(ps)))
	for _, p := range ps {
		if len(p.Estimates) > 255 {
			return nil, fmt.Errorf("encode printings: %d estimates, at most 255", len(p.Estimates))
		}
		base := byte(0)
		if p.Base {
			base = 1
		}
		dst = append(dst, p.Finish, base)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.SalesAll))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Sales30d))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(p.Volume30dCents))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Listings))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(p.LowAskCents))
		dst = append(dst, byte(len(p.Estimates)))
		for _, e := range p.Estimates {
			dst = append(dst, byte(e.Grade))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(e.FMVCents))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(e.TVWAPCents))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(e.MedianCents))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(e.SampleSize))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(e.LastSaleDay))
			dst = append(dst, byte(e.Confidence), byte(e.Flags))
		}
	}
	return dst, nil
}

// DecodePrintings decodes printings encoded by EncodePrintings, naming them
// from variants.
func DecodePrintings(b []byte, variants []string) ([]Printing, error) {
	if len(b) < 1 {
		return nil, fmt.Errorf("decode printings: empty value")
	}
	n := int(b[0])
	b = b[1:]
	out := make([]Printing, n)
	const head = 2 + 4 + 4 + 8 + 4 + 8 + 1
	for i := range out {
		if len(b) < head {
			return nil, fmt.Errorf("decode printings: truncated printing %d", i)
		}
		p := Printing{Finish: b[0], Base: b[1] == 1,
			SalesAll:       int(binary.LittleEndian.Uint32(b[2:])),
			Sales30d:       int(binary.LittleEndian.Uint32(b[6:])),
			Volume30dCents: int64(binary.LittleEndian.Uint64(b[10:])),
			Listings:       int(binary.LittleEndian.Uint32(b[18:])),
			LowAskCents:    int64(binary.LittleEndian.Uint64(b[22:])),
		}
		if int(p.Finish) < len(variants) {
			p.Name = variants[p.Finish]
		}
		m := int(b[30])
		b = b[head:]
		if len(b) < m*estimateSize {
			return nil, fmt.Errorf("decode printings: %d estimates need %d bytes, have %d", m, m*estimateSize, len(b))
		}
		p.Estimates = make([]Estimate, m)
		for j := range p.Estimates {
			p.Estimates[j] = Estimate{
				Grade:       Grade(b[0]),
				FMVCents:    int64(binary.LittleEndian.Uint64(b[1:])),
				TVWAPCents:  int64(binary.LittleEndian.Uint64(b[9:])),
				MedianCents: int64(binary.LittleEndian.Uint64(b[17:])),
				SampleSize:  int32(binary.LittleEndian.Uint32(b[25:])),
				LastSaleDay: Day(int32(binary.LittleEndian.Uint32(b[29:]))),
				Confidence:  estimate.Confidence(b[33]),
				Flags:       estimate.Flags(b[34]),
			}
			b = b[estimateSize:]
		}
		out[i] = p
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("decode printings: %d bytes left over", len(b))
	}
	return out, nil
}

const trendingRowSize = 4 + 1 + 1 + 8 + 4 + 8

// trendingRowFeed is the bit of a trending row's flags byte that says
// TrendingRow.Feed (the estimate flags use the low bits; older snapshots
// never set it).
const trendingRowFeed = 0x80

// EncodeTrendingRows appends the encoding of a ranking's rows to dst.
func EncodeTrendingRows(dst []byte, rows []TrendingRow) []byte {
	for _, r := range rows {
		dst = binary.LittleEndian.AppendUint32(dst, r.Ordinal)
		flags := byte(r.Flags)
		if r.Feed {
			flags |= trendingRowFeed
		}
		dst = append(dst, r.Finish, flags)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(r.Value))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(r.SampleSize))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(r.PriceCents))
	}
	return dst
}

// DecodeTrendingRows decodes rows encoded by EncodeTrendingRows, appending
// those keep accepts (nil: all) to dst.
func DecodeTrendingRows(dst []TrendingRow, b []byte, keep func(*TrendingRow) bool) ([]TrendingRow, error) {
	if len(b)%trendingRowSize != 0 {
		return nil, fmt.Errorf("decode trending rows: %d bytes is not a multiple of %d", len(b), trendingRowSize)
	}
	for ; len(b) > 0; b = b[trendingRowSize:] {
		r := TrendingRow{
			Ordinal:    binary.LittleEndian.Uint32(b[0:]),
			Finish:     b[4],
			Flags:      estimate.Flags(b[5] &^ trendingRowFeed),
			Feed:       b[5]&trendingRowFeed != 0,
			Value:      math.Float64frombits(binary.LittleEndian.Uint64(b[6:])),
			SampleSize: int32(binary.LittleEndian.Uint32(b[14:])),
			PriceCents: int64(binary.LittleEndian.Uint64(b[18:])),
		}
		if keep == nil || keep(&r) {
			dst = append(dst, r)
		}
	}
	return dst, nil
}
