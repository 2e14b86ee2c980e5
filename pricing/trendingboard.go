package pricing

import (
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// TrendingBoard is trending.v1 (REST's trending route): a page of a
// ranking and what it was ranked by.
type TrendingBoard struct {
	Metric     string   `json:"metric"`
	Window     *string  `json:"window"`
	WindowDays int      `json:"window_days"`
	Language   string   `json:"language"`
	Direction  string   `json:"direction"`
	Grader     *string  `json:"grader"`
	GradeNum   *float64 `json:"grade_num"`
	AsOf       string   `json:"as_of"`
	// MinSales and MinPriceUSD are the liquidity rule the rows passed.
	MinSales    int            `json:"min_sales"`
	MinPriceUSD float64        `json:"min_price_usd"`
	Total       int            `json:"total"`
	Offset      int            `json:"offset"`
	Limit       int            `json:"limit"`
	Items       []TrendingItem `json:"items"`
	Basis       string         `json:"basis"`
}

// NewTrendingBoard describes page pg of q (RankTrending) as of asOf, ranked
// on the graded sales of grader gi (snapshots.Graders; -1: every sale) and
// of grade gradeNum (nil: every grade).
func NewTrendingBoard(q TrendingRequest, pg TrendingPage, asOf snapshots.Day, gi int, gradeNum *float64) TrendingBoard {
	b := TrendingBoard{Metric: q.Metric, Window: jsontext.StrOrNil(q.Window), WindowDays: q.Days, Language: q.Language, Direction: "desc",
		GradeNum: gradeNum, AsOf: asOf.String(), MinSales: q.Liquidity.MinSales, MinPriceUSD: snapshots.USD(q.Liquidity.MinPriceCents),
		Total: pg.Total, Offset: q.Offset, Limit: q.Limit, Items: pg.Items, Basis: q.Liquidity.Basis()}
	if q.Asc {
		b.Direction = "asc"
	}
	if gi >= 0 {
		b.Grader = jsontext.StrOrNil(snapshots.Graders[gi])
	}
	return b
}
