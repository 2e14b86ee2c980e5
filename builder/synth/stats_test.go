package synth_test

import (
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/snapshots"
)

// stats summarises a generated market.
type stats struct {
	cards, executed, feed, listings, noListings int
	flagged, untrusted                          int
	perCard                                     []int
	byMarket                                    [8]int
	byTrade                                     [4]int
	elapsed, cpu                                time.Duration
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func generate(tb testing.TB, name string, seed int64, workers int) stats {
	cards, sets := catalogFor(tb, name, seed)
	g := synth.New(MustPreset(tb, name), seed, testAsOf)
	var st stats
	st.cards = len(cards)
	st.perCard = make([]int, len(cards))
	var mu sync.Mutex
	start, cpu0 := time.Now(), cpuTime()
	var wg sync.WaitGroup
	next := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local stats
			for {
				mu.Lock()
				i := next
				next += 64
				mu.Unlock()
				if i >= len(cards) {
					break
				}
				for j := i; j < min(i+64, len(cards)); j++ {
					c := cards[j]
					sales, ls := g.CardMarket(synth.GameIndex(c.Game), c, setOf(sets, c))
					n := 0
					for _, s := range sales {
						if s.Flags&snapshots.SalePriceFeed != 0 {
							local.feed++
							continue
						}
						n++
						if s.Flags&snapshots.SaleFlagged != 0 {
							local.flagged++
						}
						if s.Confidence.Untrusted() {
							local.untrusted++
						}
						local.byMarket[s.Marketplace]++
						local.byTrade[s.TradeType]++
					}
					local.executed += n
					st.perCard[j] = n
					local.listings += len(ls)
					if len(ls) == 0 {
						local.noListings++
					}
				}
			}
			mu.Lock()
			st.executed += local.executed
			st.feed += local.feed
			st.flagged += local.flagged
			st.untrusted += local.untrusted
			st.listings += local.listings
			st.noListings += local.noListings
			for i := range st.byMarket {
				st.byMarket[i] += local.byMarket[i]
			}
			for i := range st.byTrade {
				st.byTrade[i] += local.byTrade[i]
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	st.elapsed, st.cpu = time.Since(start), cpuTime()-cpu0
	return st
}

func (st stats) log(tb testing.TB, name string) {
	tb.Helper()
	pc := slices.Clone(st.perCard)
	slices.Sort(pc)
	q := func(f float64) int { return pc[int(math.Min(float64(len(pc)-1), f*float64(len(pc))))] }
	tb.Logf("%s: %d cards, %d executed sales (%.1f/card), %d feed rows, %d listings, %.1f%% cards without listings, %.2f%% flagged, %.2f%% untrusted, in %v (%v CPU, %.2f M rows per CPU second)",
		name, st.cards, st.executed, float64(st.executed)/float64(st.cards), st.feed, st.listings,
		100*float64(st.noListings)/float64(st.cards), 100*float64(st.flagged)/float64(st.executed),
		100*float64(st.untrusted)/float64(st.executed), st.elapsed.Round(time.Millisecond), st.cpu.Round(time.Millisecond),
		float64(st.executed+st.feed)/st.cpu.Seconds()/1e6)
	tb.Logf("sales per card: p10 %d p25 %d p50 %d p75 %d p90 %d p99 %d p99.9 %d max %d",
		q(0.1), q(0.25), q(0.5), q(0.75), q(0.9), q(0.99), q(0.999), pc[len(pc)-1])
	tb.Logf("by marketplace %v, by trade type %v", st.byMarket, st.byTrade)
}

// TestStats measures a whole preset; set SYNTH_STATS to a preset name.
func TestStats(t *testing.T) {
	name := os.Getenv("SYNTH_STATS")
	if name == "" {
		t.Skip("set SYNTH_STATS=tiny|default|large to measure a preset")
	}
	workers := 1
	if os.Getenv("SYNTH_WORKERS") != "" {
		workers = runtime.GOMAXPROCS(0)
	}
	generate(t, name, 1, workers).log(t, name)
	cards, sets := catalogFor(t, name, 1)
	g := synth.New(MustPreset(t, name), 1, testAsOf)
	var pop []float64
	for _, c := range cards {
		if c.Game == "pokemon" {
			pop = append(pop, g.Popularity(c, setOf(sets, c)))
		}
	}
	slices.Sort(pop)
	for _, q := range []float64{0.5, 0.7, 0.8, 0.85, 0.9, 0.94, 0.95, 0.97, 0.99} {
		t.Logf("pokemon popularity quantile %.2f: %.4f sales/day", q, pop[int(q*float64(len(pop)))])
	}
}
