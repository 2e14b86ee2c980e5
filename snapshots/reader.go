package snapshots

// SetAggregates are a set's precomputed breakdown and price distribution.
type SetAggregates struct {
	SetID        string             `json:"set_id"`
	Breakdown    []RarityBreakdown  `json:"breakdown"`
	Distribution []PriceBucket      `json:"distribution"`
	Totals       SetTotals          `json:"totals"`
	Extra        map[string]float64 `json:"extra,omitempty"`
}

// SetTotals sums a set's priced cards.
type SetTotals struct {
	Cards            int   `json:"cards"`
	PricedCards      int   `json:"priced_cards"`
	ValueCents       int64 `json:"value_cents"` // sum of raw:near_mint fmv
	MedianPriceCents int64 `json:"median_price_cents"`
	Volume30dCents   int64 `json:"volume_30d_cents"`
	Sales30d         int   `json:"sales_30d"`
}

// RarityBreakdown is one rarity of a set.
type RarityBreakdown struct {
	Rarity           string `json:"rarity"` // "" for cards without a rarity
	Cards            int    `json:"cards"`
	PricedCards      int    `json:"priced_cards"`
	ValueCents       int64  `json:"value_cents"`
	MedianPriceCents int64  `json:"median_price_cents"`
	MaxPriceCents    int64  `json:"max_price_cents"`
	TopCardID        string `json:"top_card_id,omitempty"`
	Volume30dCents   int64  `json:"volume_30d_cents"`
	Sales30d         int    `json:"sales_30d"`
}

// PriceBucket counts a set's cards whose raw:near_mint fmv lies in
// [MinCents, MaxCents); MaxCents 0 means unbounded.
type PriceBucket struct {
	MinCents int64 `json:"min_cents"`
	MaxCents int64 `json:"max_cents"`
	Cards    int   `json:"cards"`
}

// Reader reads one open snapshot. All methods are safe for concurrent use and
// return values the caller owns (nothing aliases the storage). Methods that
// take a game return an ENOTFOUND *Error for an unknown game; methods that take
// an id return ENOTFOUND when it does not exist.
type Reader interface {
	// Manifest returns the verified manifest of the snapshot.
	Manifest() *Manifest

	// Card returns a card by id (case-insensitive). ENOTFOUND.
	Card(game, id string) (*Card, error)
	// CardByPartnerID returns the card with a partner product id (the first
	// in catalog order when cards of two languages share it). ENOTFOUND.
	CardByPartnerID(game string, productID int64) (*Card, error)
	// CardByMarketID returns the card one of whose printings has product
	// id at marketplace market (MarketIDTCGplayer or MarketIDCardmarket;
	// the card's MarketIDs): for TCGplayer the card whose partner product
	// id it is first, else the first in catalog order. ENOTFOUND.
	CardByMarketID(game, market string, id int64) (*Card, error)
	// Cards returns the game's cards in catalog order (index = Ordinal).
	// The slice and the cards are shared and must not be modified.
	Cards(game string) ([]*Card, error)
	// Set returns a set by id (case-insensitive). ENOTFOUND.
	Set(game, id string) (*Set, error)
	// Sets returns the game's sets in catalog order; shared, read-only.
	Sets(game string) ([]*Set, error)
	// SetCards returns the cards of a set in catalog order; shared, read-only.
	SetCards(game, setID string) ([]*Card, error)

	// Sales returns a card's sales of every printing (Sale.Finish), newest
	// first (by day, then id).
	Sales(game, cardID string) ([]Sale, error)
	// PriceSeries returns the oracle price series of a card's base printing
	// (BasePrinting), one per grade.
	PriceSeries(game, cardID string) ([]PriceSeries, error)
	// Analytics returns the analytics of a card's base printing, one per
	// AnalyticsWindows entry.
	Analytics(game, cardID string) ([]CardAnalytics, error)
	// AnalyticsWindow returns one window of a card's analytics (window one
	// of AnalyticsWindows' names), decoding only that window; ok is false
	// when the card has none for it. Its breakdowns are stored in buf when
	// it has the capacity (nil: allocated); the caller then owns buf's
	// storage through w. ENOTFOUND.
	AnalyticsWindow(game, cardID, window string, buf []AnalyticsEntry) (w WindowAnalytics, ok bool, err error)
	// Cum returns the cumulative verified-sales series of a card's base
	// printing, one per grade.
	Cum(game, cardID string) ([]CumSeries, error)
	// ScanMarket calls fn for every card of game in ordinal order with the
	// cumulative and price series of its base printing (nil when none), for
	// rankings over custom windows. fn owns the slices; an error from fn
	// stops the scan.
	ScanMarket(game string, fn func(c *Card, cum []CumSeries, series []PriceSeries) error) error

	// Printings returns a card's printings, one per variant in Variants
	// order (one unnamed printing when the card has none), each with its
	// market summary and its estimate per grade. ENOTFOUND.
	Printings(game, cardID string) ([]Printing, error)
	// PrintingSeries returns the price series of one printing of a card
	// (finish: index into its Variants), one per grade; the base printing's
	// are PriceSeries'. ENOTFOUND; EINVALID for a finish the card has not.
	PrintingSeries(game, cardID string, finish int) ([]PriceSeries, error)
	// PrintingCum returns the cumulative verified-sales series of one
	// printing of a card, one per grade. ENOTFOUND, EINVALID.
	PrintingCum(game, cardID string, finish int) ([]CumSeries, error)
	// PrintingAnalytics returns the analytics of one printing of a card,
	// one per AnalyticsWindows entry (none when the printing has no sales).
	// ENOTFOUND, EINVALID.
	PrintingAnalytics(game, cardID string, finish int) ([]CardAnalytics, error)
	// PrintingAnalyticsWindow is AnalyticsWindow for one printing.
	// ENOTFOUND, EINVALID.
	PrintingAnalyticsWindow(game, cardID string, finish int, window string, buf []AnalyticsEntry) (w WindowAnalytics, ok bool, err error)
	// ScanPrintings calls fn for every printing of every card of game (cards
	// in ordinal order, printings in Variants order) with its cumulative and
	// price series (nil when none): rankings of printings over custom
	// windows. fn owns the slices; an error from fn stops the scan.
	ScanPrintings(game string, fn func(c *Card, finish int, cum []CumSeries, series []PriceSeries) error) error
	// Listings returns a card's current listings, cheapest first.
	Listings(game, cardID string) ([]Listing, error)
	// AllListings returns every current listing of the game, cheapest first;
	// shared, read-only.
	AllListings(game string) ([]*Listing, error)

	// Trending returns a precomputed ranking of base printings, highest
	// value first: the rows of TrendingRows of base printings that meet
	// the default liquidity rule (estimate.Default.Liquid). metric is one of
	// TrendingMetrics, window one of TrendingWindows' names, language one of
	// Languages or "all". ENOTFOUND.
	Trending(game, metric, window, language string) ([]TrendingEntry, error)
	// TrendingRows returns a precomputed ranking of every printing with
	// activity in the window, highest value first, whether or not it meets
	// the liquidity rule: each row carries its sample size, price and flags,
	// so that other thresholds (min_sales, min_price_usd) are a filter of
	// it. ENOTFOUND.
	TrendingRows(game, metric, window, language string) ([]TrendingRow, error)
	// SetAggregates returns a set's breakdown and price distribution.
	SetAggregates(game, setID string) (*SetAggregates, error)
	// SetDaily returns a set's daily verified sales, oldest first, one entry
	// per day with sales.
	SetDaily(game, setID string) ([]DailyStat, error)

	// ProvenanceReader reads where a card's market numbers come from (a
	// build from real sources; nil for the synthetic default).
	ProvenanceReader

	// Dir is the snapshot directory (for the index and gold.sqlite).
	Dir() string
	// Close releases the snapshot's files.
	Close() error
}
