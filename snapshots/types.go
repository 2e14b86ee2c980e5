package snapshots

import (
	"fmt"
	"time"

	"github.com/cardedge/cardedge/estimate"
)

// FormatVersion is the snapshot layout version this code writes and reads.
//
//	1  first layout
//	2  card analytics in a binary encoding (EncodeAnalytics) instead of JSON
//	3  cards carry their gameplay facts (Card.Play) in the catalog
//	4  the index has the search syntax's fields (artist, types, hp, cost ...)
//	5  one price series per printing: price series, cumulative sums and
//	   analytics per (card, printing, grade), the printings' market
//	   summaries, price points with sample size, confidence and flags, the
//	   SaleOutlier flag, trending rows per printing with sample size and price
//	6  the index's facts field (the syntax's whole values, word runs of
//	   rarities and pokemontcg.io's fields); Pokémon play facts may carry
//	   the card text of a pokemon-tcg-data clone (PokemonPlay.Rules ...)
//	7  price series in a compact encoding (EncodeSeries: deltas as varints,
//	   about 4 bytes a point of a feed's series where 38 were fixed), card
//	   provenance's histories likewise (EncodeCardSources version 2)
//
// A reader opens only snapshots of its own version: any other is refused
// with ErrFormat (CheckManifest), as the encodings change between versions.
const FormatVersion = 7

// Languages of the card catalog, in the order the API lists them.
var Languages = []string{"en", "ja", "zh-cn", "zh-tw"}

// IsLanguage reports whether s is one of Languages.
func IsLanguage(s string) bool {
	for _, l := range Languages {
		if l == s {
			return true
		}
	}
	return false
}

// Day counts days since 1970-01-01 UTC.
type Day int32

// DayOf returns the Day of t (in UTC).
func DayOf(t time.Time) Day { return Day(t.UTC().Unix() / 86400) }

// ParseDay parses a YYYY-MM-DD date.
func ParseDay(s string) (Day, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, fmt.Errorf("parse date %q: want YYYY-MM-DD", s)
	}
	return DayOf(t), nil
}

// Time returns midnight UTC of d.
func (d Day) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String formats d as YYYY-MM-DD.
func (d Day) String() string {
	var b [16]byte
	return string(d.AppendFormat(b[:0]))
}

// AppendFormat appends d as YYYY-MM-DD to b, as String formats it.
func (d Day) AppendFormat(b []byte) []byte {
	// Civil date from days since the epoch (H. Hinnant, "chrono-compatible
	// low-level date algorithms"): no time.Time, no allocation.
	z := int64(d) + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if mp >= 10 {
		month = mp - 9
		y++
	}
	if y < 0 || y > 9999 {
		return d.Time().AppendFormat(b, "2006-01-02")
	}
	return append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10))
}

// Set is one language edition of a card set.
type Set struct {
	Game             string `json:"game"`
	ID               string `json:"id"`
	Language         string `json:"language"`
	SourceID         string `json:"source_id"`
	Name             string `json:"name"`
	Series           string `json:"series,omitempty"`
	ReleaseDate      string `json:"release_date,omitempty"` // YYYY-MM-DD, "" when unknown
	Abbreviation     string `json:"abbreviation,omitempty"`
	CardCountPrinted int    `json:"card_count_printed,omitempty"` // 0 when unknown
	CardCountTotal   int    `json:"card_count_total,omitempty"`   // 0 when unknown
	Source           string `json:"source"`

	// Computed by the builder.
	CardCount      int   `json:"card_count"`       // cards of the catalog in this set
	Volume30dCents int64 `json:"volume_30d_cents"` // verified sales volume over the last 30 days
	Sales30d       int   `json:"sales_30d"`
}

// Total is the set's cards, secret rares included: CardCountTotal, or
// inCatalog (the cards of the catalog in the set) when the source gives
// none.
func (s *Set) Total(inCatalog int) int {
	if s.CardCountTotal > 0 {
		return s.CardCountTotal
	}
	return inCatalog
}

// Card is one printed card of the catalog with its market summary.
type Card struct {
	Game         string   `json:"game"`
	ID           string   `json:"id"`
	Language     string   `json:"language"`
	SourceID     string   `json:"source_id"`
	SetID        string   `json:"set_id"`
	Name         string   `json:"name"`
	NameLanguage string   `json:"name_language"`
	Number       string   `json:"number"`
	Rarity       string   `json:"rarity,omitempty"`
	Supertype    string   `json:"supertype,omitempty"`
	Subtypes     []string `json:"subtypes,omitempty"`
	Colors       []string `json:"colors,omitempty"`
	NationalDex  []int    `json:"national_dex,omitempty"`
	Variants     []string `json:"variants,omitempty"` // nil when unknown
	ENCardID     string   `json:"en_card_id,omitempty"`
	ENMatch      string   `json:"en_match,omitempty"`
	Source       string   `json:"source"`
	Play         Play     `json:"play,omitzero"` // gameplay facts (see Play)

	// MarketIDs are the marketplaces' own product ids of the card's
	// printings (the catalog's market_ids); nil when it has none.
	MarketIDs []MarketID `json:"market_ids,omitempty"`
	// PartnerProductID is the partner marketplace's (TCGplayer's) product id
	// of the card: TCGplayerProductID, set by the builder; 0 when the card
	// has none.
	PartnerProductID int64 `json:"partner_product_id,omitempty"`

	// Computed by the builder.
	// The market summary counts every printing; the price is the base
	// printing's (BasePrinting; Printings has each printing's).
	Ordinal        uint32   `json:"ordinal"`        // position in the game's catalog order
	MarketSources  []string `json:"market_sources"` // off-chain marketplaces with verified sales
	Venues         []string `json:"venues"`         // on-chain venues with verified sales
	PriceCents     int64    `json:"price_cents"`    // raw:near_mint fmv of the base printing as of the snapshot; 0 when unpriced
	PriceDay       Day      `json:"price_day"`      // day of the last price point behind PriceCents
	Volume30dCents int64    `json:"volume_30d_cents"`
	Sales30d       int      `json:"sales_30d"`
	SalesAll       int      `json:"sales_all"`
	Listings       int      `json:"listings"` // current shop listings
}

// Sale flags.
const (
	// SaleFlagged marks a sale flagged by a quality rule (hidden by default).
	SaleFlagged uint8 = 1 << iota
	// SalePriceFeed marks a partner price-feed snapshot row: a daily market
	// median, not an executed sale (hidden by default).
	SalePriceFeed
	// SaleOutlier marks a verified sale the estimator set aside: far from its
	// series' recent level and never confirmed (estimate.OutlierRule). It
	// counts in volumes and sales counts but moves no price. Not hidden.
	SaleOutlier
	// SaleSynthetic marks a synthesized sale in a snapshot built from real
	// sources with --synthetic-fill (a card no source had). The synthetic
	// default (Manifest.MarketSource "synthetic") does not flag its rows:
	// they all are.
	SaleSynthetic
)

// Sale is one recorded sale of a card. Sales are stored per card, newest
// first, with a fixed-size binary encoding (see EncodeSales).
type Sale struct {
	ID          uint64
	Day         Day
	PriceCents  int64
	Marketplace Marketplace
	TradeType   TradeType
	Grade       Grade
	Confidence  Confidence
	Flags       uint8
	Finish      uint8 // the printing: index into the card's Variants (0 for a card without variants)
}

// Hidden reports whether the sale is hidden under the default filters.
func (s Sale) Hidden() bool {
	return s.Flags&(SaleFlagged|SalePriceFeed) != 0 || s.Confidence.Untrusted()
}

// PricePoint is a card's oracle price for one printing and grade after one
// day with verified sales (package estimate says how each value is made).
type PricePoint struct {
	Day         Day
	FMVCents    int64 // fair market value: smoothed estimate from sales
	TVWAPCents  int64 // time- and volume-weighted average over the trailing 7 days
	MedianCents int64 // median of the trailing 7 days' sales
	Sales       int32 // accepted sales behind TVWAP and median (trailing 7 days)
	// Sample is the point's sample_size: accepted sales of the trailing
	// estimate.Default.SampleDays.
	Sample     int32
	Confidence estimate.Confidence
	Flags      estimate.Flags // thin, outlier_excluded
}

// PriceSeries is the oracle price history of one card, printing and grade:
// one point per day with verified sales, in day order. A day without a point
// keeps the previous point's values.
type PriceSeries struct {
	Grade  Grade
	Points []PricePoint
}

// Estimate is one printing and grade of a card priced as of the snapshot's
// as_of.
type Estimate struct {
	Grade       Grade
	FMVCents    int64 // 0 when the series has no price
	TVWAPCents  int64
	MedianCents int64
	SampleSize  int32 // accepted verified sales of the trailing estimate.Default.SampleDays
	LastSaleDay Day   // the last accepted verified sale; NoDay when none
	Confidence  estimate.Confidence
	Flags       estimate.Flags // thin, solo, outlier_excluded, stale
}

// Printing is one printing of a card (one of its Variants) with its market
// summary. Sales counts and volume count verified sales of the printing.
type Printing struct {
	Finish         uint8  // index into the card's Variants (0 for a card without variants)
	Name           string // the variant; "" for a card without variants
	Base           bool   // the card's base printing (BasePrinting)
	SalesAll       int
	Sales30d       int
	Volume30dCents int64
	Listings       int   // current shop listings of the printing
	LowAskCents    int64 // the cheapest of them; 0 when none
	// Estimates holds one estimate per grade with a price series, in grade
	// order.
	Estimates []Estimate
}

// BasePrinting returns the index in c.Variants of c's base printing: the
// printing its price (PriceCents), PriceSeries, Cum, Analytics and Trending
// are for (estimate.Default.BasePrintingOf; 0 for a card without variants).
func BasePrinting(c *Card) int { return estimate.Default.BasePrintingOf(c.Variants) }

// Printings returns the number of printings of c: its variants, or one when
// they are unknown.
func (c *Card) Printings() int { return max(1, len(c.Variants)) }

// Listing is one current ask on a shop platform.
type Listing struct {
	ID                 string  `json:"id"`
	CardID             string  `json:"card_id"`
	Platform           string  `json:"platform"`
	Grade              string  `json:"grade"`
	Finish             string  `json:"finish,omitempty"`
	AskCents           int64   `json:"ask_cents"`
	ShippingCents      int64   `json:"shipping_cents"`
	ListedDay          Day     `json:"listed_day"`
	Quantity           int     `json:"quantity"`
	DealScore          float64 `json:"deal_score"`           // experimental: 100 × (1 - ask / fmv), clamped to [-100, 100]
	PlatformFreshnessH int     `json:"platform_freshness_h"` // experimental: hours since the platform was last read
	// Synthetic marks a synthesized listing in a snapshot built from real
	// sources with --synthetic-fill (see SaleSynthetic).
	Synthetic bool `json:"synthetic,omitempty"`
}

// Window is an analytics window.
type Window struct {
	Name string // 1w, 1m, 3m, 6m, 1y, all
	Days int    // 0 means all history
}

// AnalyticsWindows are the windows of card analytics, in API order.
var AnalyticsWindows = []Window{{"1w", 7}, {"1m", 30}, {"3m", 90}, {"6m", 180}, {"1y", 365}, {"all", 0}}

// CardAnalytics is one card's verified-sales statistics for one window.
type CardAnalytics struct {
	Window         string             `json:"window"`
	From           string             `json:"from"`
	To             string             `json:"to"`
	Sales          int                `json:"sales"`
	VolumeCents    int64              `json:"volume_cents"`
	AvgCents       int64              `json:"avg_cents"`
	MedianCents    int64              `json:"median_cents"`
	LowCents       int64              `json:"low_cents"`
	HighCents      int64              `json:"high_cents"`
	FirstFMVCents  int64              `json:"first_fmv_cents"`
	LastFMVCents   int64              `json:"last_fmv_cents"`
	ChangePct      float64            `json:"change_pct"`
	VolatilityPct  float64            `json:"volatility_pct"` // stdev of daily log returns of raw fmv, in percent
	ByMarketplace  map[string]int     `json:"by_marketplace"`
	ByGrade        map[string]int     `json:"by_grade"`
	GradeMedianCts map[string]int64   `json:"grade_median_cents"`
	TradeTypes     map[string]int     `json:"trade_types"`
	Extra          map[string]float64 `json:"extra,omitempty"`
}

// TrendingWindows are the precomputed trending windows, in API order.
var TrendingWindows = []Window{{"1d", 1}, {"7d", 7}, {"30d", 30}, {"90d", 90}, {"180d", 180}}

// TrendingMetrics are the trending metrics of the spec, in API order.
var TrendingMetrics = []string{
	"volume_pct", "price_pct", "composite", "new_listings", "volume_usd", "sales_count",
	"slab_volume_pct", "slab_price_pct", "slab_composite", "slab_volume_usd", "slab_sales_count",
}

// TrendingEntry is one card of a trending ranking.
type TrendingEntry struct {
	Ordinal uint32
	Value   float64
}

// TrendingRow is one printing of a card in a trending ranking, with what
// the liquidity rule (estimate.Methodology.Liquid) looks at.
type TrendingRow struct {
	Ordinal uint32
	Finish  uint8 // the printing: index into the card's Variants
	Value   float64
	// SampleSize is the verified sales of the row's grades over the
	// ranking's window, or over estimate.Default.SalesDays of it.
	SampleSize int32
	PriceCents int64 // fmv of the row's reference series at as_of (see TrendValues)
	Flags      estimate.Flags
	// Feed: the row's reference series is a fresh source's (a build from
	// real sources): it passes the liquidity rule without verified sales
	// (estimate.Methodology.LiquidFeed).
	Feed bool
}

// DailyStat is one day of a market, set or card volume series.
type DailyStat struct {
	Day         Day   `json:"day"`
	Sales       int   `json:"sales"`
	VolumeCents int64 `json:"volume_cents"`
}

// Manifest describes a snapshot and lets the edge verify it before serving.
type Manifest struct {
	SnapshotID    string   `json:"snapshot_id"`
	FormatVersion int      `json:"format_version"`
	AsOf          string   `json:"as_of"` // YYYY-MM-DD, the snapshot's "today"
	Games         []string `json:"games"` // in order; the first is the default
	Preset        string   `json:"preset"`
	Seed          int64    `json:"seed"`
	MarketSource  string   `json:"market_source"` // MarketSynthetic, MarketFeed or MarketSources
	// Sources are the real market sources of a build from them
	// (MarketSource "sources"), in --source order.
	Sources []MarketSourceStatus `json:"sources,omitempty"`
	// SyntheticFill: the cards no source had got synthetic market data,
	// flagged row by row (SaleSynthetic, Listing.Synthetic,
	// CardSources.Synthetic).
	SyntheticFill bool              `json:"synthetic_fill,omitempty"`
	Counts        map[string]int64  `json:"counts"`
	BuiltAt       string            `json:"built_at"` // RFC 3339 UTC
	BuildSeconds  float64           `json:"build_seconds"`
	InputDigests  map[string]string `json:"input_digests"`
	Files         map[string]string `json:"files"` // relative path -> hex SHA-256
	ContentDigest string            `json:"content_digest"`
}

// Market sources of a snapshot (Manifest.MarketSource).
const (
	// MarketSynthetic: every sale, price and listing is synthesized (the
	// offline default).
	MarketSynthetic = "synthetic"
	// MarketFeed: cardedge's own JSON Lines feeds (--market DIR).
	MarketFeed = "feed"
	// MarketSources: real sources (--source): the marketplaces' price
	// files, PriceCharting's guide, sold listings; each number's
	// provenance is in the card's CardSources.
	MarketSources = "sources"
)

// Synthetic reports whether the snapshot's market data is synthesized as a
// whole (MarketSynthetic); a build from sources with SyntheticFill flags its
// synthetic rows one by one.
func (m *Manifest) Synthetic() bool { return m.MarketSource == MarketSynthetic }

// AsOfDay returns the manifest's as_of as a Day.
func (m *Manifest) AsOfDay() Day {
	d, _ := ParseDay(m.AsOf)
	return d
}

// HasGame reports whether the snapshot has game g.
func (m *Manifest) HasGame(g string) bool {
	for _, x := range m.Games {
		if x == g {
			return true
		}
	}
	return false
}
