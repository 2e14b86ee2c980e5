package pricing

import (
	"strconv"

	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// The includes encode themselves, as MarketObject does: AppendJSON writes
// the bytes encoding/json (SetEscapeHTML(false)) writes for the value,
// field for field in declaration order, without reflection (CardDetail
// calls them; TestCardDetail_AppendJSON compares every include of every
// card of a tiny snapshot, TestIncludes_AppendJSON made-up ones). Change a type and its appender together. NaN and infinities are
// null (encoding/json refuses them); no include computes either.

// AppendJSON writes h as encoding/json does.
func (h *HistorySeries) AppendJSON(b []byte) []byte {
	b = append(b, `{"grade":`...)
	b = jsontext.AppendStr(b, h.Grade)
	b = append(b, `,"grade_name":`...)
	b = jsontext.AppendStr(b, h.GradeName)
	b = append(b, `,"finish":`...)
	b = jsontext.AppendStrPtr(b, h.Finish)
	b = append(b, `,"method":`...)
	b = jsontext.AppendStr(b, h.Method)
	b = append(b, `,"from":`...)
	b = jsontext.AppendStr(b, h.From)
	b = append(b, `,"to":`...)
	b = jsontext.AppendStr(b, h.To)
	b = append(b, `,"points":`...)
	b = jsontext.AppendArray(b, h.Points, appendHistoryPoint)
	return append(b, '}')
}

// appendHistoryPoint writes p as encoding/json does.
func appendHistoryPoint(b []byte, p *PointRow) []byte {
	b = append(b, `{"date":`...)
	b = jsontext.AppendStr(b, p.Date)
	b = append(b, `,"price_usd":`...)
	b = jsontext.AppendNumber(b, p.PriceUSD)
	b = append(b, `,"sales":`...)
	b = strconv.AppendInt(b, int64(p.Sales), 10)
	b = append(b, `,"sample_size":`...)
	b = strconv.AppendInt(b, int64(p.SampleSize), 10)
	b = append(b, `,"confidence":`...)
	b = jsontext.AppendStr(b, p.Confidence)
	b = append(b, `,"flags":`...)
	b = jsontext.AppendStrs(b, p.Flags)
	return append(b, '}')
}

// AppendJSON writes s as encoding/json does.
func (s *SlotsInclude) AppendJSON(b []byte) []byte {
	b = append(b, `{"basis":`...)
	b = jsontext.AppendStr(b, s.Basis)
	b = append(b, `,"slots":`...)
	b = appendGradeRows(b, s.Slots)
	return append(b, '}')
}

// AppendJSON writes m as encoding/json does.
func (m *MomentumInclude) AppendJSON(b []byte) []byte {
	b = append(b, `{"window_days":`...)
	b = strconv.AppendInt(b, int64(m.WindowDays), 10)
	b = append(b, `,"grades":`...)
	b = appendGradeRows(b, m.Grades)
	return append(b, '}')
}

// AppendJSON writes r as encoding/json does.
func (r *RecentSalesInclude) AppendJSON(b []byte) []byte {
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(r.Limit), 10)
	b = append(b, `,"items":`...)
	b = appendSaleRows(b, r.Items)
	return append(b, '}')
}

// AppendJSON writes g as encoding/json does.
func (g *BreakdownInclude) AppendJSON(b []byte) []byte {
	b = append(b, `{"grades":`...)
	b = appendGradeRows(b, g.Grades)
	return append(b, '}')
}

// AppendJSON writes p as encoding/json does.
func (p *PopulationInclude) AppendJSON(b []byte) []byte {
	b = append(b, `{"basis":`...)
	b = jsontext.AppendStr(b, p.Basis)
	b = append(b, `,"graded_sales":`...)
	b = strconv.AppendInt(b, int64(p.GradedSales), 10)
	b = append(b, `,"grades":`...)
	b = jsontext.AppendArray(b, p.Grades, appendPopulationGrade)
	return append(b, '}')
}

// appendPopulationGrade writes r as encoding/json does.
func appendPopulationGrade(b []byte, r *PopulationRow) []byte {
	b = append(b, `{"grader":`...)
	b = jsontext.AppendStr(b, r.Grader)
	b = append(b, `,"grade":`...)
	b = jsontext.AppendNumber(b, r.Grade)
	b = append(b, `,"sales":`...)
	b = strconv.AppendInt(b, int64(r.Sales), 10)
	b = append(b, `,"share_pct":`...)
	b = jsontext.AppendNumber(b, r.Share)
	return append(b, '}')
}

// AppendJSON writes g as encoding/json does.
func (g *GradingEconomicsInc) AppendJSON(b []byte) []byte {
	b = append(b, `{"grader":`...)
	b = jsontext.AppendStr(b, g.Grader)
	b = append(b, `,"raw_fmv_usd":`...)
	b = jsontext.AppendNumberPtr(b, g.RawFMVUSD)
	b = append(b, `,"grading_cost_usd":`...)
	b = jsontext.AppendNumber(b, g.GradingCostUSD)
	b = append(b, `,"expected_graded_usd":`...)
	b = jsontext.AppendNumberPtr(b, g.ExpectedGradedUSD)
	b = append(b, `,"expected_gain_usd":`...)
	b = jsontext.AppendNumberPtr(b, g.ExpectedGainUSD)
	b = append(b, `,"sample_sales":`...)
	b = strconv.AppendInt(b, int64(g.SampleSales), 10)
	b = append(b, `,"basis":`...)
	b = jsontext.AppendStr(b, g.Basis)
	return append(b, '}')
}

// appendGradeRows writes rows as encoding/json does.
func appendGradeRows(b []byte, rows []GradeRow) []byte {
	return jsontext.AppendArray(b, rows, appendGradeRow)
}

// appendGradeRow writes r as encoding/json does.
func appendGradeRow(b []byte, r *GradeRow) []byte {
	b = append(b, `{"grade":`...)
	b = jsontext.AppendStr(b, r.Grade)
	b = append(b, `,"grade_name":`...)
	b = jsontext.AppendStr(b, r.GradeName)
	b = append(b, `,"sales":`...)
	b = strconv.AppendInt(b, int64(r.Sales), 10)
	b = append(b, `,"fmv_usd":`...)
	b = jsontext.AppendNumberPtr(b, r.FMVUSD)
	b = append(b, `,"tvwap_usd":`...)
	b = jsontext.AppendNumberPtr(b, r.TVWAPUSD)
	b = append(b, `,"median_usd":`...)
	b = jsontext.AppendNumberPtr(b, r.MedianUSD)
	b = append(b, `,"last_sale_date":`...)
	b = jsontext.AppendStrPtr(b, r.LastSale)
	if r.ChangePct != nil {
		b = append(b, `,"change_30d_pct":`...)
		b = jsontext.AppendNumber(b, *r.ChangePct)
	}
	if r.PremiumRaw != nil {
		b = append(b, `,"premium_vs_raw":`...)
		b = jsontext.AppendNumber(b, *r.PremiumRaw)
	}
	return append(b, '}')
}

// appendSaleRows writes rows as encoding/json does.
func appendSaleRows(b []byte, rows []SaleRow) []byte {
	return jsontext.AppendArray(b, rows, appendSaleRow)
}

// appendSaleRow writes r as encoding/json does.
func appendSaleRow(b []byte, r *SaleRow) []byte {
	b = append(b, `{"sale_id":`...)
	b = jsontext.AppendStr(b, r.SaleID)
	b = append(b, `,"sale_date":`...)
	b = jsontext.AppendStr(b, r.SaleDate)
	b = append(b, `,"price_usd":`...)
	b = jsontext.AppendNumber(b, r.PriceUSD)
	b = append(b, `,"marketplace":`...)
	b = jsontext.AppendStr(b, r.Marketplace)
	b = append(b, `,"on_chain":`...)
	b = strconv.AppendBool(b, r.OnChain)
	b = append(b, `,"trade_type":`...)
	b = jsontext.AppendStr(b, r.TradeType)
	b = append(b, `,"grade":`...)
	b = jsontext.AppendStr(b, r.Grade)
	b = append(b, `,"grade_name":`...)
	b = jsontext.AppendStr(b, r.GradeName)
	b = append(b, `,"finish":`...)
	b = jsontext.AppendStrPtr(b, r.Finish)
	b = append(b, `,"identity_confidence":`...)
	b = jsontext.AppendStr(b, r.IdentityConfidence)
	b = append(b, `,"quality_flagged":`...)
	b = strconv.AppendBool(b, r.QualityFlagged)
	b = append(b, `,"price_feed":`...)
	b = strconv.AppendBool(b, r.PriceFeed)
	b = append(b, `,"outlier":`...)
	b = strconv.AppendBool(b, r.Outlier)
	return append(b, '}')
}
