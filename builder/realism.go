package builder

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// The report checks leaderboard rows against the liquidity rule of
// estimate.Default, and calls a series thin by its thin rule.
const (
	reportTop = 50
	// reportPairSales: a grade takes part in a ladder pair with at least
	// this many verified sales in the last year.
	reportPairSales = 5
)

// Realism is the realism report of one snapshot: figures a collector would
// check first. See RealismReport.
type Realism struct {
	AsOf   string
	Games  []RealismGame
	Chases []ChaseRank
}

// RealismGame holds one game's figures.
type RealismGame struct {
	Game string

	// Leaderboards: every TrendingMetrics x TrendingWindows ranking of
	// language "all", top reportTop rows.
	Boards, FullBoards int // rankings, and those with reportTop rows
	Rows, LiquidRows   int // rows, and those meeting the liquidity rule
	WorstBoards        []BoardShare

	// Graded ladders: adjacent grades of one grader (and printing), each
	// with >= reportPairSales verified sales in the last year.
	Pairs, RisingPairs int

	// Single-sale moves: fmv changes on a day with one verified sale of the
	// series, in a series thin on that day (estimate.Default.Thin).
	ThinMoves int
	// BeyondBound counts moves beyond estimate.Default.FMV's bound, rounding
	// to whole cents aside (1 -> 2 cents is +100 %).
	BeyondBound int
	MoveP99     float64
	// MaxMove is the largest move from an fmv of at least the liquidity
	// rule's price.
	MaxMove      SingleMove
	movesScratch []float64

	// Printings: cards whose 1st-edition printing and base printing both
	// have a raw near-mint price, those where the 1st edition is dearer,
	// and the median ratio of the two.
	FirstEdCards, FirstEdAbove int
	FirstEdMedianRatio         float64
	firstEdRatios              []float64
}

// BoardShare is one leaderboard's share of liquid rows.
type BoardShare struct {
	Metric, Window string
	Rows, Liquid   int
}

// SingleMove is one fmv move caused by a single sale.
type SingleMove struct {
	CardID, Grade, Printing string
	Day                     snapshots.Day
	FromCents, ToCents      int64
	Ratio                   float64 // |to/from - 1|
}

// ChaseRank is a chase card's price rank in its set (1 = the most valuable).
type ChaseRank struct {
	synth.Chase
	Name       string
	Rank       int // 0: unpriced or not in the snapshot
	Priced     int // priced cards of the set
	PriceCents int64
	TopCardID  string
	TopName    string
	TopCents   int64
	// Printings: each printing's raw near-mint estimate, when the card has
	// more than one.
	Printings []snapshots.Printing
}

// RealismReport computes the realism report of an open snapshot.
func RealismReport(r snapshots.Reader) (*Realism, error) {
	m := r.Manifest()
	asOf := m.AsOfDay()
	out := &Realism{AsOf: m.AsOf}
	for _, game := range m.Games {
		g := RealismGame{Game: game}
		cards, err := r.Cards(game)
		if err != nil {
			return nil, err
		}
		if err := g.leaderboards(r, cards, asOf); err != nil {
			return nil, err
		}
		if err := g.cardFigures(r, cards, asOf); err != nil {
			return nil, err
		}
		out.Games = append(out.Games, g)
	}
	for _, ch := range synth.Chases {
		if !m.HasGame(ch.Game) {
			continue
		}
		cr, err := chaseRank(r, ch)
		if err != nil {
			return nil, err
		}
		out.Chases = append(out.Chases, cr)
	}
	return out, nil
}

func (g *RealismGame) leaderboards(r snapshots.Reader, cards []*snapshots.Card, asOf snapshots.Day) error {
	type rowKey struct {
		ord  uint32
		slab bool
		days int
	}
	liquid := map[rowKey]bool{}
	for _, metric := range snapshots.TrendingMetrics {
		slab := strings.HasPrefix(metric, "slab_")
		for _, w := range snapshots.TrendingWindows {
			entries, err := r.Trending(g.Game, metric, w.Name, "all")
			if err != nil {
				return err
			}
			entries = entries[:min(len(entries), reportTop)]
			b := BoardShare{Metric: metric, Window: w.Name, Rows: len(entries)}
			days := estimate.Default.SalesDays(w.Days)
			for _, e := range entries {
				k := rowKey{e.Ordinal, slab, days}
				ok, seen := liquid[k]
				if !seen {
					c := cards[e.Ordinal]
					cum, err := r.Cum(g.Game, c.ID)
					if err != nil {
						return err
					}
					series, err := r.PriceSeries(g.Game, c.ID)
					if err != nil {
						return err
					}
					ok = rowLiquid(cum, series, slab, asOf, days)
					liquid[k] = ok
				}
				if ok {
					b.Liquid++
				}
			}
			g.Boards++
			if b.Rows == reportTop {
				g.FullBoards++
			}
			g.Rows += b.Rows
			g.LiquidRows += b.Liquid
			g.WorstBoards = append(g.WorstBoards, b)
		}
	}
	sort.SliceStable(g.WorstBoards, func(i, j int) bool {
		x, y := g.WorstBoards[i], g.WorstBoards[j]
		return float64(x.Liquid)/math.Max(1, float64(x.Rows)) < float64(y.Liquid)/math.Max(1, float64(y.Rows))
	})
	g.WorstBoards = g.WorstBoards[:min(5, len(g.WorstBoards))]
	return nil
}

// rowLiquid applies the liquidity rule to one card's row: its verified sales
// of the metric's grades over days, and the price of its reference series
// (raw near-mint, or for slab metrics the slab grade with the most sales).
func rowLiquid(cum []snapshots.CumSeries, series []snapshots.PriceSeries, slab bool, asOf snapshots.Day, days int) bool {
	var keep func(snapshots.Grade) bool
	ref := snapshots.RawNearMint
	if slab {
		keep = slabGrade
		best := int32(-1)
		for _, s := range cum {
			if slabGrade(s.Grade) && len(s.Points) > 0 && s.Points[len(s.Points)-1].Count > best {
				best, ref = s.Points[len(s.Points)-1].Count, s.Grade
			}
		}
	}
	n, _ := snapshots.SumWindow(cum, keep, asOf-snapshots.Day(days)+1, asOf)
	var price int64
	if s := snapshots.SeriesOf(series, ref); s != nil {
		price, _ = snapshots.FMVAt(s, asOf)
	}
	return estimate.Default.Liquid(n, price)
}

// cardFigures walks every printing of every card for the ladder,
// single-sale and printing figures.
func (g *RealismGame) cardFigures(r snapshots.Reader, cards []*snapshots.Card, asOf snapshots.Day) error {
	for _, c := range cards {
		for f := 0; f < c.Printings(); f++ {
			an, ok, err := r.PrintingAnalyticsWindow(g.Game, c.ID, f, "1y", nil)
			if err != nil {
				return err
			}
			if ok {
				g.ladder(an)
			}
			cum, err := r.PrintingCum(g.Game, c.ID, f)
			if err != nil {
				return err
			}
			series, err := r.PrintingSeries(g.Game, c.ID, f)
			if err != nil {
				return err
			}
			name := ""
			if f < len(c.Variants) && len(c.Variants) > 1 {
				name = c.Variants[f]
			}
			for i := range series {
				g.moves(c, name, &series[i], cum)
			}
		}
		if first, _ := firstEditionPair(c); first >= 0 {
			ps, err := r.Printings(g.Game, c.ID)
			if err != nil {
				return err
			}
			var firstCents, baseCents int64
			for _, p := range ps {
				for _, e := range p.Estimates {
					if e.Grade != snapshots.RawNearMint {
						continue
					}
					if int(p.Finish) == first {
						firstCents = e.FMVCents
					} else if p.Base {
						baseCents = e.FMVCents
					}
				}
			}
			if firstCents > 0 && baseCents > 0 {
				g.FirstEdCards++
				if firstCents > baseCents {
					g.FirstEdAbove++
				}
				g.firstEdRatios = append(g.firstEdRatios, float64(firstCents)/float64(baseCents))
			}
		}
	}
	if n := len(g.movesScratch); n > 0 {
		slices.Sort(g.movesScratch)
		g.MoveP99 = g.movesScratch[min(n-1, int(math.Ceil(0.99*float64(n)))-1)]
	}
	g.movesScratch = nil
	if n := len(g.firstEdRatios); n > 0 {
		slices.Sort(g.firstEdRatios)
		g.FirstEdMedianRatio = g.firstEdRatios[n/2]
	}
	g.firstEdRatios = nil
	return nil
}

// ladder counts the adjacent grade pairs of one window's analytics.
func (g *RealismGame) ladder(an snapshots.WindowAnalytics) {
	counts := map[snapshots.Grade]int64{}
	for _, e := range an.ByGrade {
		counts[snapshots.Grade(e.Code)] = e.Value
	}
	byGrader := map[int][]snapshots.AnalyticsEntry{}
	for _, e := range an.GradeMedian {
		gr := snapshots.Grade(e.Code)
		if gr.Raw() || counts[gr] < reportPairSales {
			continue
		}
		byGrader[gr.Grader()] = append(byGrader[gr.Grader()], e)
	}
	for _, list := range byGrader {
		sort.Slice(list, func(i, j int) bool { return snapshots.Grade(list[i].Code) < snapshots.Grade(list[j].Code) })
		for i := 1; i < len(list); i++ {
			g.Pairs++
			if list[i].Value > list[i-1].Value {
				g.RisingPairs++
			}
		}
	}
}

// moves records the fmv moves of one series caused by a single sale while
// the series was thin.
func (g *RealismGame) moves(c *snapshots.Card, printing string, s *snapshots.PriceSeries, cum []snapshots.CumSeries) {
	var cs *snapshots.CumSeries
	for i := range cum {
		if cum[i].Grade == s.Grade {
			cs = &cum[i]
		}
	}
	if cs == nil {
		return
	}
	for i := 1; i < len(s.Points); i++ {
		p, prev := s.Points[i], s.Points[i-1]
		day, _ := cs.Between(p.Day, p.Day)
		sample, _ := cs.Between(p.Day-snapshots.Day(estimate.Default.SampleDays)+1, p.Day)
		if day != 1 || !estimate.Default.ThinOf(int(sample)) || prev.FMVCents <= 0 {
			continue
		}
		from, to := float64(prev.FMVCents), float64(p.FMVCents)
		ratio := math.Abs(to/from - 1)
		g.ThinMoves++
		g.movesScratch = append(g.movesScratch, ratio)
		// Rounding aside: fmv is kept exact and stored in whole cents.
		if b := 1 + estimate.Default.FMV.MaxMovePerSalePct/100; to-0.5 > b*(from+0.5) || to+0.5 < (from-0.5)/b {
			g.BeyondBound++
		}
		if ratio > g.MaxMove.Ratio && prev.FMVCents >= estimate.Default.MinPriceCents() {
			g.MaxMove = SingleMove{CardID: c.ID, Grade: s.Grade.String(), Printing: printing, Day: p.Day,
				FromCents: prev.FMVCents, ToCents: p.FMVCents, Ratio: ratio}
		}
	}
}

// firstEditionPair returns the index of c's 1st-edition printing and of its
// base printing (first -1 when c has none, or when its base printing is a
// 1st edition).
func firstEditionPair(c *snapshots.Card) (first, base int) {
	first, base = -1, snapshots.BasePrinting(c)
	for i, v := range c.Variants {
		if isFirstEdition(v) && i != base {
			first = i
			break
		}
	}
	if base < len(c.Variants) && isFirstEdition(c.Variants[base]) {
		first = -1
	}
	return first, base
}

// isFirstEdition reports whether a variant is a 1st-edition printing.
func isFirstEdition(v string) bool {
	for _, tag := range strings.Split(strings.ToLower(v), "/") {
		if tag == "1st-edition" || tag == "1st edition" {
			return true
		}
	}
	return false
}

func chaseRank(r snapshots.Reader, ch synth.Chase) (ChaseRank, error) {
	out := ChaseRank{Chase: ch}
	cards, err := r.SetCards(ch.Game, ch.SetID)
	if apperr.ErrorCode(err) == apperr.ENOTFOUND {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	priced := make([]*snapshots.Card, 0, len(cards))
	for _, c := range cards {
		if c.PriceCents > 0 {
			priced = append(priced, c)
		}
		if strings.EqualFold(c.ID, ch.CardID) {
			out.Name, out.PriceCents = c.Name, c.PriceCents
		}
	}
	if out.Name != "" {
		ps, err := r.Printings(ch.Game, ch.CardID)
		if err != nil {
			return out, err
		}
		if len(ps) > 1 {
			out.Printings = ps
		}
	}
	sort.SliceStable(priced, func(i, j int) bool { return priced[i].PriceCents > priced[j].PriceCents })
	out.Priced = len(priced)
	for i, c := range priced {
		if i == 0 {
			out.TopCardID, out.TopName, out.TopCents = c.ID, c.Name, c.PriceCents
		}
		if strings.EqualFold(c.ID, ch.CardID) {
			out.Rank = i + 1
		}
	}
	return out, nil
}

// WriteText prints the report.
func (rr *Realism) WriteText(w io.Writer) {
	pct := func(n, d int) string {
		if d == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d))
	}
	usd := func(c int64) string { return fmt.Sprintf("$%d.%02d", c/100, c%100) }
	fmt.Fprintf(w, "realism report, as_of %s\n", rr.AsOf)
	for _, g := range rr.Games {
		fmt.Fprintf(w, "\n== %s\n", g.Game)
		fmt.Fprintf(w, "leaderboards (metric x window, language all, top %d): %d of %d full\n", reportTop, g.FullBoards, g.Boards)
		liq := estimate.Default.Liquidity
		fmt.Fprintf(w, "  rows meeting the liquidity rule (>= %d verified sales in the window or the last %d days, price >= %s): %d of %d (%s)\n",
			liq.MinSales, liq.ShortWindowDays, usd(estimate.Default.MinPriceCents()), g.LiquidRows, g.Rows, pct(g.LiquidRows, g.Rows))
		for _, b := range g.WorstBoards {
			fmt.Fprintf(w, "  lowest: %-17s %-4s %2d of %2d\n", b.Metric, b.Window, b.Liquid, b.Rows)
		}
		fmt.Fprintf(w, "graded ladders (adjacent grades of a grader, >= %d sales each in 1y): %d of %d pairs rise with the grade (%s)\n",
			reportPairSales, g.RisingPairs, g.Pairs, pct(g.RisingPairs, g.Pairs))
		fmt.Fprintf(w, "single-sale fmv moves in thin series (< %d sales in %d days): %d moves, p99 %.1f %%, %d beyond the %g %% bound (rounding to cents aside)\n",
			estimate.Default.Thin.Sales, estimate.Default.SampleDays, g.ThinMoves, 100*g.MoveP99, g.BeyondBound, estimate.Default.FMV.MaxMovePerSalePct)
		if mv := g.MaxMove; mv.CardID != "" {
			pr := ""
			if mv.Printing != "" {
				pr = " " + mv.Printing
			}
			fmt.Fprintf(w, "  largest from an fmv >= %s: %.1f %% (%s%s %s on %s: %s -> %s)\n", usd(estimate.Default.MinPriceCents()),
				100*mv.Ratio, mv.CardID, pr, mv.Grade, mv.Day, usd(mv.FromCents), usd(mv.ToCents))
		}
		fmt.Fprintf(w, "1st-edition printings priced above the base printing (raw near-mint fmv, both priced): %d of %d cards (%s)",
			g.FirstEdAbove, g.FirstEdCards, pct(g.FirstEdAbove, g.FirstEdCards))
		if g.FirstEdCards > 0 {
			fmt.Fprintf(w, ", median ratio %.2f", g.FirstEdMedianRatio)
		}
		fmt.Fprintln(w)
	}
	if len(rr.Chases) > 0 {
		fmt.Fprintf(w, "\n== chase cards: price rank in their set (raw near-mint fmv)\n")
		for _, c := range rr.Chases {
			switch {
			case c.Rank == 0 && c.Name == "":
				fmt.Fprintf(w, "  %-16s %-16s not in this snapshot\n", c.SetID, c.CardID)
			case c.Rank == 0:
				fmt.Fprintf(w, "  %-16s %-16s unpriced (%s)\n", c.SetID, c.CardID, c.Why)
			default:
				top := ""
				if c.Rank > 1 {
					top = fmt.Sprintf("; top: %s %s %s", c.TopCardID, c.TopName, usd(c.TopCents))
				}
				fmt.Fprintf(w, "  %-16s %-16s rank %3d of %3d  %10s  %s%s\n", c.SetID, c.CardID, c.Rank, c.Priced, usd(c.PriceCents), c.Why, top)
			}
			for _, p := range c.Printings {
				for _, e := range p.Estimates {
					if e.Grade == snapshots.RawNearMint {
						base := ""
						if p.Base {
							base = " (base)"
						}
						fmt.Fprintf(w, "      %-34s raw near-mint fmv %10s, %d sales in %d days, confidence %s\n",
							p.Name+base, usd(e.FMVCents), e.SampleSize, estimate.Default.SampleDays, e.Confidence)
					}
				}
			}
		}
	}
}
