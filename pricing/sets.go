package pricing

import (
	"math"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// A set's value: its breakdown by rarity and its price distribution, from
// the set's aggregates (snapshots.SetAggregates, computed by the builder
// from each card's shown price).

// PriceBasisSetFMV is the basis of set values and distributions: each
// card's own price (card detail's market price_usd, stale ones included).
const PriceBasisSetFMV = "fmv of the raw:near_mint verified sales of each card's base printing (exponentially smoothed daily medians, outliers set aside; see /api/v3/methodology)"

// RarityRow is one rarity of a set's breakdown.
type RarityRow struct {
	Rarity         *string  `json:"rarity"`
	Cards          int      `json:"cards"`
	PricedCards    int      `json:"priced_cards"`
	ValueUSD       float64  `json:"value_usd"`
	MedianPriceUSD *float64 `json:"median_price_usd"`
	MaxPriceUSD    *float64 `json:"max_price_usd"`
	TopCardID      *string  `json:"top_card_id"`
	Volume30dUSD   float64  `json:"volume_30d_usd"`
	Sales30d       int      `json:"sales_30d"`
	ValueSharePct  float64  `json:"value_share_pct"`
}

// SetTotals are a set's totals over every rarity.
type SetTotals struct {
	Cards          int      `json:"cards"`
	PricedCards    int      `json:"priced_cards"`
	ValueUSD       float64  `json:"value_usd"`
	MedianPriceUSD *float64 `json:"median_price_usd"`
	Volume30dUSD   float64  `json:"volume_30d_usd"`
	Sales30d       int      `json:"sales_30d"`
}

// SetBreakdown is set-breakdown.v1.
type SetBreakdown struct {
	SetID      string      `json:"set_id"`
	Name       string      `json:"name"`
	AsOf       string      `json:"as_of"`
	Rarities   []RarityRow `json:"rarities"`
	Totals     SetTotals   `json:"totals"`
	PriceBasis string      `json:"price_basis"`
}

// NewSetBreakdown is set s's value by rarity (agg: its aggregates as of
// asOf), each rarity's share of the set's value.
func NewSetBreakdown(s *snapshots.Set, agg *snapshots.SetAggregates, asOf snapshots.Day) SetBreakdown {
	rows := []RarityRow{}
	for _, b := range agg.Breakdown {
		rows = append(rows, RarityRow{Rarity: jsontext.StrOrNil(b.Rarity), Cards: b.Cards, PricedCards: b.PricedCards, ValueUSD: snapshots.USD(b.ValueCents),
			MedianPriceUSD: snapshots.USDOrNil(b.MedianPriceCents), MaxPriceUSD: snapshots.USDOrNil(b.MaxPriceCents), TopCardID: jsontext.StrOrNil(b.TopCardID),
			Volume30dUSD: snapshots.USD(b.Volume30dCents), Sales30d: b.Sales30d,
			ValueSharePct: snapshots.Round2(100 * float64(b.ValueCents) / math.Max(1, float64(agg.Totals.ValueCents)))})
	}
	t := agg.Totals
	return SetBreakdown{
		SetID: s.ID, Name: s.Name, AsOf: asOf.String(), Rarities: rows,
		Totals: SetTotals{Cards: t.Cards, PricedCards: t.PricedCards, ValueUSD: snapshots.USD(t.ValueCents),
			MedianPriceUSD: snapshots.USDOrNil(t.MedianPriceCents), Volume30dUSD: snapshots.USD(t.Volume30dCents), Sales30d: t.Sales30d},
		PriceBasis: PriceBasisSetFMV + "; value is the sum over priced cards",
	}
}

// PriceBucketRow is one price range of a set's distribution.
type PriceBucketRow struct {
	MinUSD float64  `json:"min_usd"`
	MaxUSD *float64 `json:"max_usd"`
	Cards  int      `json:"cards"`
	Pct    float64  `json:"pct"`
}

// SetPriceDistribution is set-price-distribution.v1.
type SetPriceDistribution struct {
	SetID          string           `json:"set_id"`
	Name           string           `json:"name"`
	AsOf           string           `json:"as_of"`
	Buckets        []PriceBucketRow `json:"buckets"`
	Cards          int              `json:"cards"`
	PricedCards    int              `json:"priced_cards"`
	UnpricedCards  int              `json:"unpriced_cards"`
	MedianPriceUSD *float64         `json:"median_price_usd"`
	PriceBasis     string           `json:"price_basis"`
}

// NewSetPriceDistribution is set s's priced cards per price range (agg: its
// aggregates as of asOf), each range's share of the priced cards.
func NewSetPriceDistribution(s *snapshots.Set, agg *snapshots.SetAggregates, asOf snapshots.Day) SetPriceDistribution {
	buckets := []PriceBucketRow{}
	for _, b := range agg.Distribution {
		buckets = append(buckets, PriceBucketRow{MinUSD: snapshots.USD(b.MinCents), MaxUSD: snapshots.USDOrNil(b.MaxCents), Cards: b.Cards,
			Pct: snapshots.Round2(100 * float64(b.Cards) / math.Max(1, float64(agg.Totals.PricedCards)))})
	}
	return SetPriceDistribution{
		SetID: s.ID, Name: s.Name, AsOf: asOf.String(), Buckets: buckets,
		Cards: agg.Totals.Cards, PricedCards: agg.Totals.PricedCards, UnpricedCards: agg.Totals.Cards - agg.Totals.PricedCards,
		MedianPriceUSD: snapshots.USDOrNil(agg.Totals.MedianPriceCents),
		PriceBasis:     PriceBasisSetFMV + "; buckets are [min_usd, max_usd), max_usd null = unbounded",
	}
}
