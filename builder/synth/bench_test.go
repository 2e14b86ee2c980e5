package synth_test

import (
	"testing"

	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/snapshots"
)

// BenchmarkCardMarket generates cards of the default catalog in turn (every
// 17th card, so the mix of popular and tail cards is the catalog's) and
// reports rows (sales and feed rows) per second of wall and of CPU time.
func BenchmarkCardMarket(b *testing.B) {
	cards, sets := catalogFor(b, "default", 1)
	var sample []*snapshots.Card
	for i := 0; i < len(cards); i += 17 {
		sample = append(sample, cards[i])
	}
	g := synth.New(MustPreset(b, "default"), 1, testAsOf)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	rows := 0
	for i := 0; b.Loop(); i++ {
		c := sample[i%len(sample)]
		sales, _ := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
		rows += len(sales)
	}
	// rows/cpu-s counts process CPU time, steadier than wall time on a
	// shared machine (it includes the garbage collector's share).
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
