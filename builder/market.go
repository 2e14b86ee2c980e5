package builder

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// CardMarket is one card's market input: what a MarketSource supplies.
type CardMarket struct {
	Sales    []snapshots.Sale    // newest first
	Listings []snapshots.Listing // cheapest first
	// Prices are supplied price series: each replaces the estimate of its
	// printing and grade.
	Prices []SuppliedSeries
	// Sources is the provenance of the card's numbers in a build from real
	// sources (nil otherwise); analyzeCard completes its Series.
	Sources *snapshots.CardSources
}

// SuppliedSeries is a price series a feed supplies for one printing (index
// into the card's variants) and grade.
type SuppliedSeries struct {
	Finish uint8
	snapshots.PriceSeries
	// Source and Field name the real source and field the series is
	// (tcgplayer market, cardmarket trend ...); "" for a series of
	// cardedge's own feed format (prices.jsonl). A sourced series'
	// estimate takes its confidence from its freshness (feedEstimate).
	Source, Field string
}

// MarketSource supplies each card's market data. The builder calls it from
// several goroutines; it must be safe for concurrent use and deterministic.
type MarketSource interface {
	CardMarket(gameIndex int, c *snapshots.Card, set *snapshots.Set) CardMarket
}

// synthSource adapts the synthesizer.
type synthSource struct{ gen *synth.Generator }

func (s synthSource) CardMarket(gameIndex int, c *snapshots.Card, set *snapshots.Set) CardMarket {
	sales, listings := s.gen.CardMarket(gameIndex, c, set)
	return CardMarket{Sales: sales, Listings: listings}
}

// feedSource serves market data read from JSON Lines feeds.
type feedSource struct {
	byCard map[string]*CardMarket // game|lower(card id)
}

func (f *feedSource) CardMarket(gameIndex int, c *snapshots.Card, _ *snapshots.Set) CardMarket {
	m := f.byCard[c.Game+"|"+strings.ToLower(c.ID)]
	if m == nil {
		return CardMarket{}
	}
	// Give sales their ids as the synthesizer does: game, ordinal and a
	// sequence number rising with time, so (day, id) descending is the
	// stored order. The copy keeps the shared feed rows unmodified.
	out := *m
	out.Sales = make([]snapshots.Sale, len(m.Sales))
	base := uint64(gameIndex)<<56 | uint64(c.Ordinal)<<24
	for i, s := range m.Sales {
		s.ID = base | uint64(len(m.Sales)-1-i)
		out.Sales[i] = s
	}
	return out
}

// The market feed rows. See README "Market feeds".
type feedSale struct {
	Game               string  `json:"game"`
	CardID             string  `json:"card_id"`
	SaleID             string  `json:"sale_id"`
	SaleDate           string  `json:"sale_date"`
	PriceUSD           float64 `json:"price_usd"`
	Marketplace        string  `json:"marketplace"`
	TradeType          string  `json:"trade_type"`
	Grade              string  `json:"grade"`
	IdentityConfidence string  `json:"identity_confidence"`
	QualityFlagged     bool    `json:"quality_flagged"`
	PriceFeed          bool    `json:"price_feed"`
	Finish             string  `json:"finish"`
}

type feedPrice struct {
	Game      string   `json:"game"`
	CardID    string   `json:"card_id"`
	Finish    string   `json:"finish"`
	Grade     string   `json:"grade"`
	Date      string   `json:"date"`
	FMVUSD    float64  `json:"fmv_usd"`
	TVWAPUSD  *float64 `json:"tvwap_usd"`
	MedianUSD *float64 `json:"median_usd"`
	Sales     int      `json:"sales"`
}

type feedListing struct {
	Game               string  `json:"game"`
	CardID             string  `json:"card_id"`
	ListingID          string  `json:"listing_id"`
	Platform           string  `json:"platform"`
	Grade              string  `json:"grade"`
	Finish             string  `json:"finish"`
	AskUSD             float64 `json:"ask_usd"`
	ShippingUSD        float64 `json:"shipping_usd"`
	ListedDate         string  `json:"listed_date"`
	Quantity           int     `json:"quantity"`
	PlatformFreshnessH int     `json:"platform_freshness_h"`
}

// readMarketFeeds reads sales.jsonl (required), prices.jsonl and
// listings.jsonl (optional; .gz accepted) from dir. Every row must name a card
// of the catalog. It returns the source, the latest sale date and the digests.
func readMarketFeeds(dir string, cards []*snapshots.Card) (*feedSource, snapshots.Day, map[string]string, error) {
	byID := map[string]*snapshots.Card{}
	for _, c := range cards {
		byID[c.Game+"|"+strings.ToLower(c.ID)] = c
	}
	src := &feedSource{byCard: map[string]*CardMarket{}}
	digests := map[string]string{}
	market := func(game, id string) (*snapshots.Card, *CardMarket, error) {
		if !isGame(game) {
			return nil, nil, &FeedError{Field: "game", Err: fmt.Errorf("%q is not one of %s", game, strings.Join(Games, ", "))}
		}
		key := game + "|" + strings.ToLower(id)
		c := byID[key]
		if c == nil {
			return nil, nil, &FeedError{Field: "card_id", Err: fmt.Errorf("no card %q in the %s catalog", id, game)}
		}
		m := src.byCard[key]
		if m == nil {
			m = &CardMarket{}
			src.byCard[key] = m
		}
		return c, m, nil
	}
	var latest snapshots.Day
	seen := map[string]bool{}
	salesPath, ok := feedPath(dir, "sales.jsonl")
	if !ok {
		return nil, 0, nil, fmt.Errorf("read market feeds: no sales.jsonl or sales.jsonl.gz in %s", dir)
	}
	digest, err := readJSONLines(salesPath, func(line []byte) error {
		var row feedSale
		if err := decodeRow(line, &row); err != nil {
			return err
		}
		c, m, err := market(row.Game, row.CardID)
		if err != nil {
			return err
		}
		sale, err := row.sale(c)
		if err != nil {
			return err
		}
		if row.SaleID == "" {
			return &FeedError{Field: "sale_id", Err: errors.New("required")}
		}
		if seen[row.Game+"|"+row.SaleID] {
			return &FeedError{Field: "sale_id", Err: fmt.Errorf("duplicate sale id %q", row.SaleID)}
		}
		seen[row.Game+"|"+row.SaleID] = true
		if len(m.Sales) >= maxSalesPerCard {
			return &FeedError{Field: "card_id", Err: fmt.Errorf("card %s has more than %d sales", c.ID, maxSalesPerCard)}
		}
		if sale.Day > latest {
			latest = sale.Day
		}
		m.Sales = append(m.Sales, sale)
		return nil
	})
	if err != nil {
		return nil, 0, nil, err
	}
	digests["sales"] = digest
	if path, ok := feedPath(dir, "prices.jsonl"); ok {
		digest, err := readJSONLines(path, func(line []byte) error {
			var row feedPrice
			if err := decodeRow(line, &row); err != nil {
				return err
			}
			c, m, err := market(row.Game, row.CardID)
			if err != nil {
				return err
			}
			return row.addTo(c, m)
		})
		if err != nil {
			return nil, 0, nil, err
		}
		digests["prices"] = digest
	}
	if path, ok := feedPath(dir, "listings.jsonl"); ok {
		digest, err := readJSONLines(path, func(line []byte) error {
			var row feedListing
			if err := decodeRow(line, &row); err != nil {
				return err
			}
			c, m, err := market(row.Game, row.CardID)
			if err != nil {
				return err
			}
			l, err := row.listing(c)
			if err != nil {
				return err
			}
			m.Listings = append(m.Listings, l)
			return nil
		})
		if err != nil {
			return nil, 0, nil, err
		}
		digests["listings"] = digest
	}
	// Order rows the way the snapshot stores them and give sales their ids.
	for _, c := range cards {
		m := src.byCard[c.Game+"|"+strings.ToLower(c.ID)]
		if m == nil {
			continue
		}
		sort.SliceStable(m.Sales, func(i, j int) bool { return m.Sales[i].Day > m.Sales[j].Day })
		sort.SliceStable(m.Listings, func(i, j int) bool { return m.Listings[i].AskCents < m.Listings[j].AskCents })
		for _, s := range m.Prices {
			sort.Slice(s.Points, func(i, j int) bool { return s.Points[i].Day < s.Points[j].Day })
		}
	}
	return src, latest, digests, nil
}

// maxSalesPerCard bounds a card's sales: their ids hold a 24-bit sequence.
const maxSalesPerCard = 1 << 24

func cents(usd float64, field string) (int64, error) {
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd < 0 || usd > 1e9 {
		return 0, &FeedError{Field: field, Err: fmt.Errorf("%v is not an amount between 0 and 1e9", usd)}
	}
	return int64(math.Round(usd * 100)), nil
}

func (row *feedSale) sale(c *snapshots.Card) (snapshots.Sale, error) {
	var s snapshots.Sale
	d, err := snapshots.ParseDay(row.SaleDate)
	if err != nil {
		return s, &FeedError{Field: "sale_date", Err: err}
	}
	s.Day = d
	if s.PriceCents, err = cents(row.PriceUSD, "price_usd"); err != nil {
		return s, err
	}
	if s.PriceCents == 0 {
		return s, &FeedError{Field: "price_usd", Err: errors.New("must be above 0")}
	}
	mk, ok := snapshots.ParseMarketplace(row.Marketplace)
	if !ok {
		return s, &FeedError{Field: "marketplace", Err: fmt.Errorf("unknown marketplace %q", row.Marketplace)}
	}
	s.Marketplace = mk
	tt, ok := snapshots.ParseTradeType(row.TradeType)
	if !ok {
		return s, &FeedError{Field: "trade_type", Err: fmt.Errorf("%q is not one of %s", row.TradeType, strings.Join(snapshots.TradeTypeNames(), ", "))}
	}
	s.TradeType = tt
	if row.Grade == "" {
		row.Grade = "raw:near_mint"
	}
	if s.Grade, err = snapshots.ParseGrade(row.Grade); err != nil {
		return s, &FeedError{Field: "grade", Err: err}
	}
	if row.IdentityConfidence == "" {
		row.IdentityConfidence = "exact"
	}
	conf, ok := snapshots.ParseConfidence(row.IdentityConfidence)
	if !ok {
		return s, &FeedError{Field: "identity_confidence", Err: fmt.Errorf("unknown confidence %q", row.IdentityConfidence)}
	}
	s.Confidence = conf
	if row.QualityFlagged {
		s.Flags |= snapshots.SaleFlagged
	}
	if row.PriceFeed {
		if mk != snapshots.MarketPartner {
			return s, &FeedError{Field: "price_feed", Err: errors.New("price-feed rows come from the partner marketplace only")}
		}
		s.Flags |= snapshots.SalePriceFeed
	}
	if s.Finish, err = finishOf(c, row.Finish); err != nil {
		return s, err
	}
	return s, nil
}

func (row *feedPrice) addTo(c *snapshots.Card, m *CardMarket) error {
	g, err := snapshots.ParseGrade(row.Grade)
	if err != nil {
		return &FeedError{Field: "grade", Err: err}
	}
	finish, err := finishOf(c, row.Finish)
	if err != nil {
		return err
	}
	d, err := snapshots.ParseDay(row.Date)
	if err != nil {
		return &FeedError{Field: "date", Err: err}
	}
	p := snapshots.PricePoint{Day: d, Sales: int32(row.Sales), Sample: int32(row.Sales)}
	if p.FMVCents, err = cents(row.FMVUSD, "fmv_usd"); err != nil {
		return err
	}
	p.TVWAPCents, p.MedianCents = p.FMVCents, p.FMVCents
	if row.TVWAPUSD != nil {
		if p.TVWAPCents, err = cents(*row.TVWAPUSD, "tvwap_usd"); err != nil {
			return err
		}
	}
	if row.MedianUSD != nil {
		if p.MedianCents, err = cents(*row.MedianUSD, "median_usd"); err != nil {
			return err
		}
	}
	if row.Sales < 0 || row.Sales > math.MaxInt32 {
		return &FeedError{Field: "sales", Err: fmt.Errorf("%d is not between 0 and %d", row.Sales, math.MaxInt32)}
	}
	// A supplied point's sample size is its sales; its confidence and thin
	// flag follow from them as if its sales were fresh and from one
	// marketplace.
	p.Confidence, p.Flags = estimate.Default.Judge(row.Sales, 1, 0)
	for i := range m.Prices {
		if m.Prices[i].Grade == g && m.Prices[i].Finish == finish {
			for _, q := range m.Prices[i].Points {
				if q.Day == d {
					return &FeedError{Field: "date", Err: fmt.Errorf("duplicate price point for grade %s on %s", g, d)}
				}
			}
			m.Prices[i].Points = append(m.Prices[i].Points, p)
			return nil
		}
	}
	m.Prices = append(m.Prices, SuppliedSeries{Finish: finish, PriceSeries: snapshots.PriceSeries{Grade: g, Points: []snapshots.PricePoint{p}}})
	return nil
}

// finishOf returns the printing a feed row names: its finish, one of the
// card's variants, or the card's base printing when the row names none.
func finishOf(c *snapshots.Card, finish string) (uint8, error) {
	if finish == "" {
		return uint8(snapshots.BasePrinting(c)), nil
	}
	i := indexOf(c.Variants, finish)
	if i < 0 {
		if len(c.Variants) == 0 {
			return 0, &FeedError{Field: "finish", Err: fmt.Errorf("card %s has no known variants; leave finish out", c.ID)}
		}
		return 0, &FeedError{Field: "finish", Err: fmt.Errorf("card %s has no variant %q; its variants are %s", c.ID, finish, strings.Join(c.Variants, ", "))}
	}
	return uint8(i), nil
}

func (row *feedListing) listing(c *snapshots.Card) (snapshots.Listing, error) {
	l := snapshots.Listing{ID: row.ListingID, CardID: c.ID, Finish: row.Finish, Quantity: row.Quantity, PlatformFreshnessH: row.PlatformFreshnessH}
	if l.ID == "" {
		return l, &FeedError{Field: "listing_id", Err: errors.New("required")}
	}
	mk, ok := snapshots.ParseMarketplace(row.Platform)
	if !ok || mk.OnChain() {
		return l, &FeedError{Field: "platform", Err: fmt.Errorf("unknown shop platform %q", row.Platform)}
	}
	l.Platform = mk.String()
	if row.Grade == "" {
		row.Grade = "raw:near_mint"
	}
	g, err := snapshots.ParseGrade(row.Grade)
	if err != nil {
		return l, &FeedError{Field: "grade", Err: err}
	}
	l.Grade = g.String()
	if _, err := finishOf(c, row.Finish); err != nil {
		return l, err
	}
	if l.AskCents, err = cents(row.AskUSD, "ask_usd"); err != nil {
		return l, err
	}
	if l.AskCents == 0 {
		return l, &FeedError{Field: "ask_usd", Err: errors.New("must be above 0")}
	}
	if l.ShippingCents, err = cents(row.ShippingUSD, "shipping_usd"); err != nil {
		return l, err
	}
	if l.ListedDay, err = snapshots.ParseDay(row.ListedDate); err != nil {
		return l, &FeedError{Field: "listed_date", Err: err}
	}
	if l.Quantity == 0 {
		l.Quantity = 1
	}
	if l.Quantity < 0 {
		return l, &FeedError{Field: "quantity", Err: errors.New("must be >= 1")}
	}
	if l.PlatformFreshnessH < 0 {
		return l, &FeedError{Field: "platform_freshness_h", Err: errors.New("must be >= 0")}
	}
	return l, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
