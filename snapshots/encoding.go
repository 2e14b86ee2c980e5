package snapshots

import (
	"encoding/binary"
	"fmt"
	"math"
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

const pointSize = 32

// EncodeSeries appends the encoding of a card's price series to dst.
func EncodeSeries(dst []byte, series []PriceSeries) []byte {
	for _, s := range series {
		dst = append(dst, byte(s.Grade))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s.Points)))
		for _, p := range s.Points {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Day))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.FMVCents))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.TVWAPCents))
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.MedianCents))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(p.Sales))
		}
	}
	return dst
}

// DecodeSeries decodes price series encoded by EncodeSeries.
func DecodeSeries(b []byte) ([]PriceSeries, error) {
	var out []PriceSeries
	for len(b) > 0 {
		if len(b) < 5 {
			return nil, fmt.Errorf("decode series: truncated header")
		}
		s := PriceSeries{Grade: Grade(b[0])}
		n := int(binary.LittleEndian.Uint32(b[1:]))
		b = b[5:]
		if len(b) < n*pointSize {
			return nil, fmt.Errorf("decode series: %d points need %d bytes, have %d", n, n*pointSize, len(b))
		}
		s.Points = make([]PricePoint, n)
		for i := range s.Points {
			s.Points[i] = PricePoint{
				Day:         Day(binary.LittleEndian.Uint32(b[0:])),
				FMVCents:    int64(binary.LittleEndian.Uint64(b[4:])),
				TVWAPCents:  int64(binary.LittleEndian.Uint64(b[12:])),
				MedianCents: int64(binary.LittleEndian.Uint64(b[20:])),
				Sales:       int32(binary.LittleEndian.Uint32(b[28:])),
			}
			b = b[pointSize:]
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
