package snapshots_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// sampleSeries: a feed's daily prices (fmv = tvwap = median, no sales) and
// an estimate's series (every value set), with extreme values.
func sampleSeries() []snapshots.PriceSeries {
	feed := snapshots.PriceSeries{Grade: snapshots.RawNearMint}
	cents := int64(35000)
	for d := snapshots.Day(20000); d < 20365; d++ {
		if d%3 == 0 {
			cents += int64(d%7) - 3
		}
		feed.Points = append(feed.Points, snapshots.PricePoint{Day: d, FMVCents: cents, TVWAPCents: cents, MedianCents: cents, Confidence: estimate.ConfidenceMedium})
	}
	est := snapshots.PriceSeries{Grade: snapshots.GradedGrade(0, 10), Points: []snapshots.PricePoint{
		{Day: 19000, FMVCents: 120000, TVWAPCents: 118000, MedianCents: 121000, Sales: 3, Sample: 9, Confidence: estimate.ConfidenceHigh, Flags: estimate.Flags(1)},
		{Day: 19007, FMVCents: 119000, TVWAPCents: 119000, MedianCents: 119500, Sales: 0, Sample: 9, Confidence: estimate.ConfidenceHigh, Flags: estimate.Flags(1)},
		{Day: 19008, FMVCents: math.MaxInt64, TVWAPCents: math.MinInt64, MedianCents: 0, Sales: math.MaxInt32, Sample: math.MinInt32, Confidence: estimate.ConfidenceLow},
		{Day: 19009, FMVCents: math.MinInt64, TVWAPCents: math.MaxInt64, MedianCents: -1, Sales: -1, Sample: 0, Confidence: estimate.ConfidenceLow, Flags: estimate.Flags(255)},
	}}
	return []snapshots.PriceSeries{feed, est, {Grade: snapshots.GradedGrade(1, 9.5)}}
}

func TestEncodeSeries_RoundTrip(t *testing.T) {
	in := sampleSeries()
	b := snapshots.EncodeSeries(nil, in)
	got, err := snapshots.DecodeSeries(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// A feed's daily series is about 4 bytes a point.
	feed := snapshots.EncodeSeries(nil, in[:1])
	if per := float64(len(feed)) / float64(len(in[0].Points)); per > 4.5 {
		t.Errorf("a feed's series takes %.1f bytes a point, want at most 4.5", per)
	}
	// Cut anywhere but between two series, the value is an error.
	ends := map[int]bool{0: true, len(snapshots.EncodeSeries(nil, in[:1])): true, len(snapshots.EncodeSeries(nil, in[:2])): true}
	for i := range len(b) {
		if _, err := snapshots.DecodeSeries(b[:i]); err == nil && !ends[i] {
			t.Fatalf("truncated at %d of %d: no error", i, len(b))
		}
	}
}

// FuzzDecodeSeries: no panic; what decodes encodes to a value that decodes
// the same.
func FuzzDecodeSeries(f *testing.F) {
	f.Add(snapshots.EncodeSeries(nil, sampleSeries()))
	f.Add([]byte{0, 1, 0, 2, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := snapshots.DecodeSeries(b)
		if err != nil {
			return
		}
		again, err := snapshots.DecodeSeries(snapshots.EncodeSeries(nil, s))
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(s, again, cmpopts.EquateEmpty()) {
			t.Fatalf("re-encoded series decode otherwise:\n%v\n%v", s, again)
		}
	})
}
