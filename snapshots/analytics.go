package snapshots

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// NoDay stands for an unknown day (an empty date of CardAnalytics).
const NoDay Day = math.MinInt32

// AnalyticsEntry is one key of an analytics breakdown: a Marketplace, Grade or
// TradeType code, as the list says, with its value.
type AnalyticsEntry struct {
	Code  uint8
	Value int64
}

// WindowAnalytics is CardAnalytics as the snapshot stores it: dates as days
// and the breakdowns as lists of codes instead of maps, each list in the
// order of its keys' names (the order JSON objects list them in).
type WindowAnalytics struct {
	Window        string // one of AnalyticsWindows' names
	From, To      Day    // NoDay when unknown
	Sales         int
	VolumeCents   int64
	AvgCents      int64
	MedianCents   int64
	LowCents      int64
	HighCents     int64
	FirstFMVCents int64
	LastFMVCents  int64
	ChangePct     float64
	VolatilityPct float64
	ByMarketplace []AnalyticsEntry // Marketplace: sales
	ByGrade       []AnalyticsEntry // Grade: sales
	GradeMedian   []AnalyticsEntry // Grade: median cents
	TradeTypes    []AnalyticsEntry // TradeType: sales
	Extra         map[string]float64
}

// The breakdown key kinds, in the order a window record lists them.
const (
	kindMarketplace = iota
	kindGrade
	kindGradeMedian
	kindTradeType
	numKinds
)

// keyNames holds the name of every code of each key kind ("" for codes that
// are not defined), keyRanks the position of each code's name in byte order.
var keyNames, keyRanks = func() (names [numKinds][256]string, ranks [numKinds][256]uint8) {
	for c := 0; c < 256; c++ {
		if Marketplace(c) < numMarketplaces {
			names[kindMarketplace][c] = Marketplace(c).String()
		}
		if Grade(c).Valid() {
			names[kindGrade][c] = Grade(c).String()
			names[kindGradeMedian][c] = Grade(c).String()
		}
		if TradeType(c) < numTradeTypes {
			names[kindTradeType][c] = TradeType(c).String()
		}
	}
	for k := range names {
		var codes []int
		for c, n := range names[k] {
			if n != "" {
				codes = append(codes, c)
			}
		}
		sort.Slice(codes, func(i, j int) bool { return names[k][codes[i]] < names[k][codes[j]] })
		for r, c := range codes {
			ranks[k][c] = uint8(r)
		}
	}
	return names, ranks
}()

// MarketplaceName returns the name of a ByMarketplace code.
func MarketplaceName(code uint8) string { return keyNames[kindMarketplace][code] }

// GradeName returns the name of a ByGrade or GradeMedian code.
func GradeName(code uint8) string { return keyNames[kindGrade][code] }

// TradeTypeName returns the name of a TradeTypes code.
func TradeTypeName(code uint8) string { return keyNames[kindTradeType][code] }

// CardAnalytics returns w with maps, as the builder computes it. The four
// breakdown maps are never nil; Extra is nil when empty.
func (w *WindowAnalytics) CardAnalytics() CardAnalytics {
	a := CardAnalytics{
		Window: w.Window, From: dayOrEmpty(w.From), To: dayOrEmpty(w.To), Sales: w.Sales,
		VolumeCents: w.VolumeCents, AvgCents: w.AvgCents, MedianCents: w.MedianCents, LowCents: w.LowCents, HighCents: w.HighCents,
		FirstFMVCents: w.FirstFMVCents, LastFMVCents: w.LastFMVCents, ChangePct: w.ChangePct, VolatilityPct: w.VolatilityPct,
		ByMarketplace: make(map[string]int, len(w.ByMarketplace)), ByGrade: make(map[string]int, len(w.ByGrade)),
		GradeMedianCts: make(map[string]int64, len(w.GradeMedian)), TradeTypes: make(map[string]int, len(w.TradeTypes)),
	}
	for _, e := range w.ByMarketplace {
		a.ByMarketplace[MarketplaceName(e.Code)] = int(e.Value)
	}
	for _, e := range w.ByGrade {
		a.ByGrade[GradeName(e.Code)] = int(e.Value)
	}
	for _, e := range w.GradeMedian {
		a.GradeMedianCts[GradeName(e.Code)] = e.Value
	}
	for _, e := range w.TradeTypes {
		a.TradeTypes[TradeTypeName(e.Code)] = int(e.Value)
	}
	if len(w.Extra) > 0 {
		a.Extra = make(map[string]float64, len(w.Extra))
		for k, v := range w.Extra {
			a.Extra[k] = v
		}
	}
	return a
}

func dayOrEmpty(d Day) string {
	if d == NoDay {
		return ""
	}
	return d.String()
}

// Binary encoding of a card's analytics (the value of analytics/<game> in
// market.bolt), little-endian:
//
//	n            uint8, windows
//	n x          uint8 window (index into AnalyticsWindows), uint32 offset of its record from the value's start
//	records      one per window:
//	    from, to                         int32 days (NoDay: unknown)
//	    sales                            uint32
//	    volume, avg, median, low, high   int64 cents
//	    first fmv, last fmv              int64 cents
//	    change %, volatility %           float64
//	    4 x breakdown                    uint8 n, n x (uint8 code, value): by marketplace, by grade (uint32
//	                                     sales), grade median (int64 cents), trade types (uint32 sales);
//	                                     entries in the byte order of their names
//	    extra                            uint8 n, n x (uint8 len, name, float64), names in byte order
//
// The offsets let a reader decode the one window it needs.

const (
	analyticsFixed = 4 + 4 + 4 + 7*8 + 2*8
	windowEntry    = 5 // uint8 window, uint32 offset
)

// entrySize is the encoded size of one breakdown entry of each kind.
var entrySize = [numKinds]int{1 + 4, 1 + 4, 1 + 8, 1 + 4}

// EncodeAnalytics appends the binary encoding of a card's analytics to dst.
// Every window must be one of AnalyticsWindows (each at most once), dates
// YYYY-MM-DD or empty, and breakdown keys marketplace, grade and trade type
// names.
func EncodeAnalytics(dst []byte, windows []CardAnalytics) ([]byte, error) {
	if len(windows) > len(AnalyticsWindows) {
		return nil, fmt.Errorf("encode analytics: %d windows, at most %d", len(windows), len(AnalyticsWindows))
	}
	start := len(dst)
	dst = append(dst, byte(len(windows)))
	dst = append(dst, make([]byte, len(windows)*windowEntry)...)
	var seen [8]bool
	for i := range windows {
		a := &windows[i]
		wi := windowIndex(a.Window)
		if wi < 0 || seen[wi] {
			return nil, fmt.Errorf("encode analytics: window %q: want one of each of 1w, 1m, 3m, 6m, 1y, all", a.Window)
		}
		seen[wi] = true
		slot := start + 1 + i*windowEntry
		dst[slot] = byte(wi)
		binary.LittleEndian.PutUint32(dst[slot+1:], uint32(len(dst)-start))
		var err error
		if dst, err = appendWindow(dst, a); err != nil {
			return nil, fmt.Errorf("encode analytics: window %s: %w", a.Window, err)
		}
	}
	return dst, nil
}

func windowIndex(name string) int {
	for i, w := range AnalyticsWindows {
		if w.Name == name {
			return i
		}
	}
	return -1
}

func appendWindow(dst []byte, a *CardAnalytics) ([]byte, error) {
	from, err1 := encodeDate(a.From)
	to, err2 := encodeDate(a.To)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("from %q, to %q: want YYYY-MM-DD or empty", a.From, a.To)
	}
	if a.Sales < 0 || a.Sales > math.MaxUint32 {
		return nil, fmt.Errorf("sales %d out of range", a.Sales)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(from))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(to))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(a.Sales))
	for _, v := range [...]int64{a.VolumeCents, a.AvgCents, a.MedianCents, a.LowCents, a.HighCents, a.FirstFMVCents, a.LastFMVCents} {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
	}
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.ChangePct))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.VolatilityPct))
	var err error
	if dst, err = appendBreakdown(dst, kindMarketplace, intMap(a.ByMarketplace)); err != nil {
		return nil, fmt.Errorf("by_marketplace: %w", err)
	}
	if dst, err = appendBreakdown(dst, kindGrade, intMap(a.ByGrade)); err != nil {
		return nil, fmt.Errorf("by_grade: %w", err)
	}
	if dst, err = appendBreakdown(dst, kindGradeMedian, a.GradeMedianCts); err != nil {
		return nil, fmt.Errorf("grade_median_cents: %w", err)
	}
	if dst, err = appendBreakdown(dst, kindTradeType, intMap(a.TradeTypes)); err != nil {
		return nil, fmt.Errorf("trade_types: %w", err)
	}
	if len(a.Extra) > 255 {
		return nil, fmt.Errorf("extra: %d keys, at most 255", len(a.Extra))
	}
	keys := make([]string, 0, len(a.Extra))
	for k := range a.Extra {
		if len(k) > 255 {
			return nil, fmt.Errorf("extra: key of %d bytes, at most 255", len(k))
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = append(dst, byte(len(keys)))
	for _, k := range keys {
		dst = append(dst, byte(len(k)))
		dst = append(dst, k...)
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.Extra[k]))
	}
	return dst, nil
}

func encodeDate(s string) (Day, error) {
	if s == "" {
		return NoDay, nil
	}
	d, err := ParseDay(s)
	if err != nil || d.String() != s {
		return 0, fmt.Errorf("date %q", s)
	}
	return d, nil
}

func intMap(m map[string]int) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}

// appendBreakdown appends one breakdown, its entries in the order of their
// names.
func appendBreakdown(dst []byte, kind int, m map[string]int64) ([]byte, error) {
	entries := make([]AnalyticsEntry, 0, len(m))
	for name, v := range m {
		code, ok := keyCode(kind, name)
		if !ok {
			return nil, fmt.Errorf("unknown key %q", name)
		}
		if kind != kindGradeMedian && (v < 0 || v > math.MaxUint32) {
			return nil, fmt.Errorf("%s: count %d out of range", name, v)
		}
		entries = append(entries, AnalyticsEntry{Code: code, Value: v})
	}
	sort.Slice(entries, func(i, j int) bool { return keyRanks[kind][entries[i].Code] < keyRanks[kind][entries[j].Code] })
	dst = append(dst, byte(len(entries)))
	for _, e := range entries {
		dst = append(dst, e.Code)
		if kind == kindGradeMedian {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(e.Value))
		} else {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(e.Value))
		}
	}
	return dst, nil
}

func keyCode(kind int, name string) (uint8, bool) {
	if name == "" {
		return 0, false
	}
	for c, n := range keyNames[kind] {
		if n == name {
			return uint8(c), true
		}
	}
	return 0, false
}

// DecodeAnalytics decodes every window of a card's analytics encoded by
// EncodeAnalytics, in the encoded order.
func DecodeAnalytics(b []byte) ([]CardAnalytics, error) {
	n, err := analyticsCount(b)
	if err != nil {
		return nil, err
	}
	out := make([]CardAnalytics, 0, n)
	for i := 0; i < n; i++ {
		w, err := decodeWindowAt(b, i, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, w.CardAnalytics())
	}
	return out, nil
}

// DecodeAnalyticsWindow decodes the named window of a card's analytics
// encoded by EncodeAnalytics; ok is false when the value has no such window.
// It reads only that window's record. The breakdowns are stored in buf when
// it has the capacity for all of them (nil: allocated).
func DecodeAnalyticsWindow(b []byte, window string, buf []AnalyticsEntry) (w WindowAnalytics, ok bool, err error) {
	n, err := analyticsCount(b)
	if err != nil {
		return w, false, err
	}
	wi := windowIndex(window)
	for i := 0; i < n; i++ {
		if int(b[1+i*windowEntry]) == wi {
			w, err = decodeWindowAt(b, i, buf)
			return w, err == nil, err
		}
	}
	return w, false, nil
}

func analyticsCount(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("decode analytics: empty value")
	}
	n := int(b[0])
	if n > len(AnalyticsWindows) || len(b) < 1+n*windowEntry {
		return 0, fmt.Errorf("decode analytics: %d windows in %d bytes", n, len(b))
	}
	return n, nil
}

// errAnalyticsShort is the error of a record that ends early.
var errAnalyticsShort = fmt.Errorf("decode analytics: truncated record")

// decodeWindowAt decodes the i-th window record of b, its breakdowns in buf
// when it has the capacity.
func decodeWindowAt(b []byte, i int, buf []AnalyticsEntry) (WindowAnalytics, error) {
	var w WindowAnalytics
	slot := b[1+i*windowEntry:]
	wi := int(slot[0])
	off := binary.LittleEndian.Uint32(slot[1:])
	if wi >= len(AnalyticsWindows) || uint64(off)+analyticsFixed > uint64(len(b)) {
		return w, fmt.Errorf("decode analytics: bad window %d at offset %d of %d bytes", wi, off, len(b))
	}
	w.Window = AnalyticsWindows[wi].Name
	r := b[off:]
	w.From = Day(int32(binary.LittleEndian.Uint32(r[0:])))
	w.To = Day(int32(binary.LittleEndian.Uint32(r[4:])))
	w.Sales = int(binary.LittleEndian.Uint32(r[8:]))
	w.VolumeCents = int64(binary.LittleEndian.Uint64(r[12:]))
	w.AvgCents = int64(binary.LittleEndian.Uint64(r[20:]))
	w.MedianCents = int64(binary.LittleEndian.Uint64(r[28:]))
	w.LowCents = int64(binary.LittleEndian.Uint64(r[36:]))
	w.HighCents = int64(binary.LittleEndian.Uint64(r[44:]))
	w.FirstFMVCents = int64(binary.LittleEndian.Uint64(r[52:]))
	w.LastFMVCents = int64(binary.LittleEndian.Uint64(r[60:]))
	w.ChangePct = math.Float64frombits(binary.LittleEndian.Uint64(r[68:]))
	w.VolatilityPct = math.Float64frombits(binary.LittleEndian.Uint64(r[76:]))
	r = r[analyticsFixed:]

	// The four breakdowns share one backing array.
	var counts [numKinds]int
	total := 0
	for k, p := 0, 0; k < numKinds; k++ {
		if p >= len(r) {
			return w, errAnalyticsShort
		}
		counts[k] = int(r[p])
		total += counts[k]
		p += 1 + counts[k]*entrySize[k]
	}
	all := buf[:0]
	if cap(all) < total {
		all = make([]AnalyticsEntry, total)
	}
	all = all[:total]
	lists := [numKinds]*[]AnalyticsEntry{&w.ByMarketplace, &w.ByGrade, &w.GradeMedian, &w.TradeTypes}
	for k := 0; k < numKinds; k++ {
		n := counts[k]
		r = r[1:]
		if len(r) < n*entrySize[k] {
			return w, errAnalyticsShort
		}
		list := all[:n:n]
		all = all[n:]
		for j := range list {
			code := r[0]
			if keyNames[k][code] == "" || (j > 0 && keyRanks[k][code] <= keyRanks[k][list[j-1].Code]) {
				return w, fmt.Errorf("decode analytics: breakdown %d: code %d unknown or out of order", k, code)
			}
			list[j].Code = code
			if k == kindGradeMedian {
				list[j].Value = int64(binary.LittleEndian.Uint64(r[1:]))
			} else {
				list[j].Value = int64(binary.LittleEndian.Uint32(r[1:]))
			}
			r = r[entrySize[k]:]
		}
		*lists[k] = list
	}
	if len(r) < 1 {
		return w, errAnalyticsShort
	}
	n := int(r[0])
	r = r[1:]
	if n > 0 {
		w.Extra = make(map[string]float64, n)
	}
	for j := 0; j < n; j++ {
		if len(r) < 1 || len(r) < 1+int(r[0])+8 {
			return w, errAnalyticsShort
		}
		kl := int(r[0])
		w.Extra[string(r[1:1+kl])] = math.Float64frombits(binary.LittleEndian.Uint64(r[1+kl:]))
		r = r[1+kl+8:]
	}
	return w, nil
}
