package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/cardedge/cardedge/snapshots"
)

// Generator synthesizes the market of one snapshot: every card's sales,
// partner price-feed rows and current listings. It is immutable after New
// and safe for concurrent use.
type Generator struct {
	p     Preset
	seed  uint64
	asOf  snapshots.Day
	start snapshots.Day // first day of the history window
	days  int           // length of the history window

	priceSeason []float64 // per window day: seasonal log price offset
	volSeason   []float64 // per window day: seasonal volume factor
	freshness   [numMarkets]int

	altArt map[string]bool // game|id of alternate arts (WithCatalog)
}

// New returns the generator of preset p for seed, with history up to and
// including asOf.
func New(p Preset, seed int64, asOf snapshots.Day) *Generator {
	days := max(1, p.HistoryDays)
	g := &Generator{
		p:     p,
		seed:  mix64(uint64(seed) ^ 0x6a09e667f3bcc909),
		asOf:  asOf,
		start: asOf - snapshots.Day(days) + 1,
		days:  days,
	}
	g.priceSeason = make([]float64, days)
	g.volSeason = make([]float64, days)
	for i := range days {
		d := g.start + snapshots.Day(i)
		dow := (int(d) + 4) % 7 // 0 Sunday
		doy := float64(d.Time().YearDay())
		weekend := dow == 0 || dow == 6
		// Prices: a little firmer at weekends, highest before Christmas.
		ps := 0.04 * math.Cos(2*math.Pi*(doy-350)/365.25)
		if weekend {
			ps += 0.012
		} else if dow == 2 || dow == 3 {
			ps -= 0.008
		}
		g.priceSeason[i] = ps
		// Volume: weekends and the holiday season are busier, summer quieter.
		vs := 1 + 0.15*math.Cos(2*math.Pi*(doy-355)/365.25)
		switch dow {
		case 0:
			vs *= 1.25
		case 6:
			vs *= 1.2
		case 1:
			vs *= 1.05
		case 3:
			vs *= 0.9
		}
		g.volSeason[i] = vs
	}
	for m := range g.freshness {
		h := mix64(g.seed ^ uint64(asOf)*0x9e3779b97f4a7c15 ^ uint64(m+1)*0xc2b2ae3d27d4eb4f)
		g.freshness[m] = int(h % 73)
	}
	return g
}

// Preset returns the generator's preset.
func (g *Generator) Preset() Preset { return g.p }

// AsOf returns the last day of the generated history.
func (g *Generator) AsOf() snapshots.Day { return g.asOf }

// cardSeed is the hash every random draw of a card starts from.
func (g *Generator) cardSeed(c *snapshots.Card) uint64 {
	return hashString(g.seed^hashString(0, c.Game), c.ID)
}

func (g *Generator) setHash(c *snapshots.Card, set *snapshots.Set) uint64 {
	id := c.SetID
	if set != nil {
		id = set.ID
	}
	return hashString(hashString(g.seed^0x5bd1e995, c.Game), id)
}

// cardProfile seeds the card's random stream and draws its profile.
func (g *Generator) cardProfile(c *snapshots.Card, set *snapshots.Set, years float64) (*rand.Rand, profile) {
	seed := g.cardSeed(c)
	r := rand.New(rand.NewPCG(seed, mix64(seed^0xa0761d6478bd642f)))
	var zs [8]float64
	for i := range zs {
		zs[i] = r.NormFloat64()
	}
	return r, cardProfile(c, set, years, g.setHash(c, set), g.isPokemonAltArt(c), &zs)
}

// Popularity returns a card's intrinsic popularity: its expected executed
// sales per day at SalesScale 1 before seasonality, hype and release effects
// (the builder may use it to rank cards that have no sales). It is what the
// price-feed thresholds (Preset.FeedDailyRate) compare with.
func (g *Generator) Popularity(c *snapshots.Card, set *snapshots.Set) float64 {
	years := 2.0
	if rd, ok := ReleaseDay(set); ok {
		years = float64(g.asOf-rd) / 365.25
	}
	_, p := g.cardProfile(c, set, years)
	return math.Exp(p.logRate)
}

const maxFinishes = 64

// cardTables are a card's categorical tables, built once per call.
type cardTables struct {
	nGrades   int
	gradeCum  [40]uint64
	grade     [40]snapshots.Grade
	gradeMult [40]float64
	gradeMin  [40]float64 // price floor of graded copies (cents), 0 for raw

	nFin    int
	finCum  [maxFinishes]uint64
	finMult [maxFinishes]float64
}

func (t *cardTables) pickGrade(u uint32) int {
	v := uint64(u)
	for i := 0; i < t.nGrades; i++ {
		if v < t.gradeCum[i] {
			return i
		}
	}
	return t.nGrades - 1
}

func (t *cardTables) pickFinish(u uint32) int {
	v := uint64(u)
	for i := 0; i < t.nFin; i++ {
		if v < t.finCum[i] {
			return i
		}
	}
	return t.nFin - 1
}

func fillCum(dst []uint64, w []float64) {
	var total float64
	for _, x := range w {
		total += x
	}
	var acc float64
	for i, x := range w {
		acc += x
		dst[i] = uint64(acc / total * (1 << 32))
	}
	dst[len(w)-1] = 1 << 32
}

func (t *cardTables) build(c *snapshots.Card, p *profile) {
	var w [40]float64
	n := 0
	raw := 1 - p.graded
	for i := range condModern {
		w[n] = raw * (condModern[i]*(1-p.vintage) + condVintage[i]*p.vintage)
		t.grade[n] = snapshots.RawGrade(i)
		t.gradeMult[n] = condPrice[i]
		t.gradeMin[n] = 0
		n++
	}
	for gi, steps := range graderSteps {
		var sum float64
		for _, s := range steps {
			sum += s.modern*(1-p.vintage) + s.vintage*p.vintage
		}
		for _, s := range steps {
			w[n] = p.graded * graderShare[gi] * (s.modern*(1-p.vintage) + s.vintage*p.vintage) / sum
			t.grade[n] = snapshots.GradedGrade(gi, s.num)
			t.gradeMult[n] = gradeMultiplier(gi, s.num, p.logP10, p.vintage)
			t.gradeMin[n] = gradedFloor(s.num)
			n++
		}
	}
	t.nGrades = n
	fillCum(t.gradeCum[:n], w[:n])

	t.nFin = 1
	t.finCum[0] = 1 << 32
	t.finMult[0] = 1
	nv := min(len(c.Variants), maxFinishes)
	if nv > 1 {
		var fw [maxFinishes]float64
		for i := range nv {
			fw[i], t.finMult[i] = variantModel(c.Variants[i], p.collect)
		}
		// The price level is the base printing's (snapshots.BasePrinting).
		base := t.finMult[min(nv-1, snapshots.BasePrinting(c))]
		for i := range nv {
			t.finMult[i] /= base
		}
		t.nFin = nv
		fillCum(t.finCum[:nv], fw[:nv])
	}
}

// CardMarket synthesizes one card's market up to and including as_of: its
// sales (executed sales and partner price-feed rows), newest first (day desc,
// then id desc), and its current listings, cheapest first.
//
// gameIndex is the card's game's index in Games; c.Ordinal must be set
// (unique per game); set is the card's set, nil if unknown. Sale ids are
// gameIndex<<56 | c.Ordinal<<24 | seq. The result depends only on the
// generator's preset, seed and as_of and on the card (and its set), not on
// call order; CardMarket is safe for concurrent use.
func (g *Generator) CardMarket(gameIndex int, c *snapshots.Card, set *snapshots.Set) (sales []snapshots.Sale, listings []snapshots.Listing) {
	first := g.start
	years := 2.0
	if rd, ok := ReleaseDay(set); ok {
		if rd > g.asOf {
			return nil, nil // not released yet
		}
		first = max(first, rd)
		years = float64(g.asOf-rd) / 365.25
	}
	r, prof := g.cardProfile(c, set, years)
	var tab cardTables
	tab.build(c, &prof)

	t0 := int(first - g.start)
	n := g.days - t0
	w := g.newWalk(r, &prof, t0, n)

	// Partner price feed: popular first-game cards, daily or weekly.
	feedStart, feedEvery := n, 0
	if g.p.FeedDays > 0 && gameIndex == 0 && c.Game == Games[0] {
		rate := math.Exp(prof.logRate)
		switch {
		case rate >= g.p.FeedDailyRate:
			feedEvery = 1
		case rate >= g.p.FeedWeeklyRate:
			feedEvery = 7
		}
		feedStart = max(0, n-g.p.FeedDays)
	}
	feedRows := 0
	if feedEvery > 0 {
		feedRows = (n-feedStart)/feedEvery + 1
	}
	expected := w.expected(n)
	sales = make([]snapshots.Sale, 0, int(expected+3*math.Sqrt(expected)+4)+feedRows)

	idBase := uint64(gameIndex)<<56 | uint64(c.Ordinal)<<24
	const maxSeq = 1<<24 - 1
	seq := uint64(0)
	cls := marketClass(c.Game, c.Language)
	cheap := 0
	if prof.cents < 100 {
		cheap = 1
	}
	mp := &marketPrice[cls]
	cum, next := 0.0, r.ExpFloat64()
	logPrice := 0.0
	for t := range n {
		var lam float64
		logPrice, lam = w.step(r, t)
		cum += lam
		if next >= cum && (feedEvery == 0 || t < feedStart) || seq >= maxSeq {
			continue // a day without rows (most days of most cards)
		}
		day := first + snapshots.Day(t)
		pt := priceOf(logPrice)
		if feedEvery > 0 && t >= feedStart && (feedEvery == 1 || (int(day)+4)%7 == 1) {
			price := pt * feedNoise[r.Uint64()>>(64-noiseBits)]
			sales = append(sales, snapshots.Sale{
				ID: idBase | seq, Day: day, PriceCents: cents(price),
				Marketplace: snapshots.MarketPartner, TradeType: snapshots.TradeFixedPrice,
				Grade: snapshots.RawNearMint, Confidence: snapshots.ConfExact, Flags: snapshots.SalePriceFeed,
			})
			seq++
		}
		for next < cum && seq < maxSeq {
			next += r.ExpFloat64()
			// Two draws per sale. u: grade (20 bits), marketplace (20),
			// flagged (12). v: trade type (16), confidence (16), finish (16),
			// price noise (10).
			u, v := r.Uint64(), r.Uint64()
			gi := tab.pickGrade(uint32(u) << 12)
			grade := tab.grade[gi]
			graded, band := 0, cheap
			if !grade.Raw() {
				graded, band = 1, 2
			}
			mi := marketCum[cls][graded].pick(uint32(u>>20) << 12)
			tt := tradeCum[mi].pick(uint32(v) << 16)
			partner := 0
			if mi == int(snapshots.MarketPartner) {
				partner = 1
			}
			conf := snapshots.Confidence(confCum[partner].pick(uint32(v>>16) << 16))
			fi := 0
			if tab.nFin > 1 {
				fi = tab.pickFinish(uint32(v>>32) << 16)
			}
			price := max(pt*tab.gradeMult[gi]*tab.finMult[fi], tab.gradeMin[gi]) * mp[mi] * saleNoise[tt][band][(v>>48)&(1<<noiseBits-1)]
			var flags uint8
			if conf.Untrusted() {
				price *= wrongCard[r.Uint64()>>(64-noiseBits)]
			}
			if u>>52 < flaggedThreshold {
				flags = snapshots.SaleFlagged
				if w := r.Uint64(); w&3 != 0 { // most flagged sales are price outliers
					price *= outliers[(w>>2)&7]
				}
			}
			sales = append(sales, snapshots.Sale{
				ID: idBase | seq, Day: day, PriceCents: cents(price),
				Marketplace: snapshots.Marketplace(mi), TradeType: snapshots.TradeType(tt),
				Grade: grade, Confidence: conf, Flags: flags, Finish: uint8(fi),
			})
			seq++
		}
	}
	slices.Reverse(sales)

	listings = g.listings(r, gameIndex, c, &prof, &tab, cls, priceOf(logPrice), first)
	return sales, listings
}

// priceOf turns a log price of the path into cents, with a floor of 3 cents.
func priceOf(logCents float64) float64 {
	if logCents < 1.0986 { // log(3)
		return 3
	}
	return math.Exp(logCents)
}

func cents(p float64) int64 {
	if p < 1 {
		return 1
	}
	return int64(p + 0.5)
}

// walk is a card's raw near-mint log price and expected executed sales,
// advanced one day at a time: a mean-reverting random walk around a drifting
// trend, with seasonality, the release hype of sets released inside the
// window, and hype events (spikes and a few slumps) that decay while part of
// them stays.
type walk struct {
	x0, drift, vol, y    float64
	evScale              float64 // amplitude of hype events
	shift, ev, evDecay   float64
	nextEvent            float64
	rel, relDecay        float64
	relVol, relVolDecay  float64
	rate0                float64
	bits                 uint64 // six 10-bit normal quantile indices per draw
	left                 int
	priceSeason, volSeas []float64
}

const (
	theta     = 0.004     // mean reversion of the walk towards its trend, per day
	eventRate = 1.0 / 240 // hype events per day
)

func (g *Generator) newWalk(r *rand.Rand, p *profile, t0, n int) walk {
	w := walk{
		x0:          math.Log(p.cents) - p.drift*float64(n),
		drift:       p.drift,
		vol:         p.vol,
		y:           p.vol / math.Sqrt(2*theta) * r.NormFloat64(),
		rate0:       math.Exp(p.logRate) * g.p.SalesScale,
		relDecay:    1,
		relVolDecay: 1,
		// Vintage prices move on slower news: smaller hype events.
		evScale:     1 - 0.5*p.vintage,
		priceSeason: g.priceSeason[t0:][:n],
		volSeas:     g.volSeason[t0:][:n],
	}
	if t0 > 0 {
		w.rel = (0.1 + 0.45*min(1, p.collect)) * (0.5 + r.Float64())
		w.relDecay = math.Exp(-1 / (40 + 80*r.Float64()))
		w.relVol = 2 + 2*r.Float64()
		w.relVolDecay = math.Exp(-1.0 / 25)
	}
	w.evDecay = math.Exp(math.Ln2 / -(7 + 38*r.Float64()))
	w.nextEvent = r.ExpFloat64() / eventRate
	return w
}

// expected estimates the executed sales over n days (for preallocation).
func (w *walk) expected(n int) float64 {
	return w.rate0 * (1.2*float64(n) + 25*w.relVol)
}

// step advances the walk to day t (0, 1, ... in turn) and returns that day's
// log price and expected executed sales.
func (w *walk) step(r *rand.Rand, t int) (logPrice, lam float64) {
	if float64(t) >= w.nextEvent {
		var a float64
		if r.Float64() < 0.6 {
			a = 0.15 + 0.65*r.Float64()
		} else {
			a = -(0.1 + 0.35*r.Float64())
		}
		a *= w.evScale
		w.ev += a
		w.shift += 0.25 * a
		w.nextEvent += r.ExpFloat64() / eventRate
	}
	if w.left == 0 {
		w.bits, w.left = r.Uint64(), 6
	}
	w.y = w.y*(1-theta) + w.vol*normalQuantiles[w.bits&(1<<noiseBits-1)]
	w.bits >>= noiseBits
	w.left--
	logPrice = w.x0 + w.drift*float64(t) + w.shift + w.y + w.ev + w.rel + w.priceSeason[t]
	lam = w.rate0 * w.volSeas[t] * (1 + 2.5*math.Abs(w.ev)) * (1 + w.relVol)
	w.ev *= w.evDecay
	w.rel *= w.relDecay
	w.relVol *= w.relVolDecay
	return logPrice, lam
}

// listings draws a card's current shop listings, cheapest first.
func (g *Generator) listings(r *rand.Rand, gameIndex int, c *snapshots.Card, p *profile, tab *cardTables, cls int, now float64, first snapshots.Day) []snapshots.Listing {
	mu := g.p.ListingScale * listingK * math.Pow(math.Exp(p.logRate), listingExp)
	k := poisson(r, min(mu, 60))
	if k == 0 {
		return nil
	}
	out := make([]snapshots.Listing, k)
	prefix := "l-" + strconv.Itoa(gameIndex) + "-" + strconv.FormatUint(uint64(c.Ordinal), 10) + "-"
	for i := range out {
		u := r.Uint64()
		gi := tab.pickGrade(uint32(u))
		mi := listingCum[cls].pick(uint32(u >> 32))
		u2 := r.Uint64()
		fi := 0
		if tab.nFin > 1 {
			fi = tab.pickFinish(uint32(u2))
		}
		fmv := max(now*tab.gradeMult[gi]*tab.finMult[fi], tab.gradeMin[gi]) * marketPrice[cls][mi]
		// Asks sit a little above market; about a third are below (deals),
		// a few are wishful.
		ask := fmv * math.Exp(0.06+0.14*r.NormFloat64())
		if r.Float64() < 0.08 {
			ask *= 1.5 + 1.5*r.Float64()
		}
		a := cents(ask)
		deal := 100 * (1 - float64(a)/fmv)
		deal = math.Round(max(-100, min(100, deal))*10) / 10
		l := snapshots.Listing{
			ID:                 prefix + strconv.Itoa(i),
			CardID:             c.ID,
			Platform:           snapshots.Marketplace(mi).String(),
			Grade:              gradeNames[tab.grade[gi]],
			AskCents:           a,
			ShippingCents:      shipping(r, snapshots.Marketplace(mi), a),
			ListedDay:          max(first, g.asOf-snapshots.Day(r.IntN(60))),
			Quantity:           1,
			DealScore:          deal,
			PlatformFreshnessH: g.freshness[mi],
		}
		if fi < len(c.Variants) {
			l.Finish = c.Variants[fi]
		}
		if tab.grade[gi].Raw() && a < 2000 && r.Float64() < 0.4 {
			l.Quantity = 2 + r.IntN(9)
		}
		out[i] = l
	}
	slices.SortFunc(out, func(a, b snapshots.Listing) int {
		if a.AskCents != b.AskCents {
			if a.AskCents < b.AskCents {
				return -1
			}
			return 1
		}
		if len(a.ID) != len(b.ID) {
			return len(a.ID) - len(b.ID)
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}

// Listing count model: Poisson with mean listingK * rate^listingExp, where
// rate is the card's intrinsic expected sales per day.
const (
	listingK   = 8.5
	listingExp = 0.5
)

func shipping(r *rand.Rand, m snapshots.Marketplace, ask int64) int64 {
	switch m {
	case snapshots.MarketPartner:
		if ask >= 500 {
			return 0
		}
		return 99 + 30*int64(r.IntN(3))
	case snapshots.MarketEbay:
		if r.Float64() < 0.45 {
			return 0
		}
		return 99 + 50*int64(r.IntN(9))
	case snapshots.MarketCardmarket:
		return 120 + 40*int64(r.IntN(25))
	case snapshots.MarketMercari:
		if r.Float64() < 0.7 {
			return 0
		}
		return 150 + 50*int64(r.IntN(5))
	case snapshots.MarketYahooAuctions:
		return 80 + 40*int64(r.IntN(8))
	}
	return 0
}

// poisson draws a Poisson variate of mean mu (inversion for small means,
// a rounded normal approximation above 30).
func poisson(r *rand.Rand, mu float64) int {
	if mu <= 0 {
		return 0
	}
	if mu > 30 {
		return max(0, int(mu+math.Sqrt(mu)*r.NormFloat64()+0.5))
	}
	l := math.Exp(-mu)
	k, p := 0, r.Float64()
	for p > l {
		k++
		p *= r.Float64()
	}
	return k
}
