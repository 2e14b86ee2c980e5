package pricing

import (
	"fmt"

	"github.com/cardedge/cardedge/snapshots"
)

// SaleRow is one sale as REST (sales, marketplace-sales, includes) and the
// MCP get_sales tool show it: one shape for both.
type SaleRow struct {
	SaleID             string  `json:"sale_id"`
	SaleDate           string  `json:"sale_date"`
	PriceUSD           float64 `json:"price_usd"`
	Marketplace        string  `json:"marketplace"`
	OnChain            bool    `json:"on_chain"`
	TradeType          string  `json:"trade_type"`
	Grade              string  `json:"grade"`
	GradeName          string  `json:"grade_name"`
	Finish             *string `json:"finish"`
	IdentityConfidence string  `json:"identity_confidence"`
	QualityFlagged     bool    `json:"quality_flagged"`
	PriceFeed          bool    `json:"price_feed"`
	// Outlier: a verified sale the estimator set aside (far from its
	// series' recent level and never confirmed): it counts in volumes and
	// sales counts but moves no price (estimate.OutlierRule).
	Outlier bool `json:"outlier"`
}

// NewSaleRow makes the row of sale s of card c.
func NewSaleRow(c *snapshots.Card, s snapshots.Sale) SaleRow {
	r := SaleRow{
		SaleID: SaleID(s.ID), SaleDate: s.Day.String(), PriceUSD: snapshots.USD(s.PriceCents),
		Marketplace: s.Marketplace.String(), OnChain: s.Marketplace.OnChain(), TradeType: s.TradeType.String(),
		Grade: s.Grade.String(), GradeName: s.Grade.Name(), IdentityConfidence: s.Confidence.String(),
		QualityFlagged: s.Flags&snapshots.SaleFlagged != 0, PriceFeed: s.Flags&snapshots.SalePriceFeed != 0,
		Outlier: s.Flags&snapshots.SaleOutlier != 0,
	}
	if int(s.Finish) < len(c.Variants) {
		r.Finish = &c.Variants[s.Finish]
	}
	return r
}

// SaleID is the public id of a sale: s_ and 16 hex digits.
func SaleID(id uint64) string { return fmt.Sprintf("s_%016x", id) }
