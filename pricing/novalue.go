package pricing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// Why a printing and grade shows no value (confidence none: no accepted
// verified sale in the sample window), said where the missing value is
// shown (REST's market_summary price_reason, MCP's show_cards and
// price_card, the card page), with the last sale.

// Reasons a value is missing (NoValue.Reason).
const (
	// ReasonNeverSold: no verified sale of the printing and grade.
	ReasonNeverSold = "never_sold"
	// ReasonOutliers: its verified sales of the sample window were all set
	// aside as outliers (far from the series' level, never confirmed).
	ReasonOutliers = "outliers"
	// ReasonOutsideWindow: its last verified sale is older than the sample
	// window (or, for a source's series without sales, its last price).
	ReasonOutsideWindow = "outside_window"
)

// LastSale is the last verified sale of a printing and grade, outliers
// included.
type LastSale struct {
	Date        string  `json:"date"`
	PriceUSD    float64 `json:"price_usd"`
	Marketplace string  `json:"marketplace"`
	// Outlier: the estimator set it aside (it moved no value).
	Outlier bool `json:"outlier"`
}

// NoValue says why a printing and grade shows no value, and what its last
// sale was.
type NoValue struct {
	Grade     string `json:"grade"`
	GradeName string `json:"grade_name"`
	// Reason is ReasonNeverSold, ReasonOutliers or ReasonOutsideWindow.
	Reason string `json:"reason"`
	// Note says it in a sentence, with the last sale and what the recent
	// sales of the printing were when they were of other grades.
	Note string `json:"note"`
	// LastSale is null when the printing and grade never sold.
	LastSale *LastSale `json:"last_sale"`
	// OtherGrades counts the verified sales of the printing in other grades
	// over the last RecentDays days (the market summary's window), by grade
	// name, most first.
	OtherGrades []GradeCount `json:"other_grades"`
}

// GradeCount is a number of sales of one grade.
type GradeCount struct {
	Grade     string `json:"grade"`
	GradeName string `json:"grade_name"`
	Sales     int    `json:"sales"`
}

// RecentDays is the window of NoValue.OtherGrades: the market summary's
// (the card analytics' 1m window).
const RecentDays = 30

// ExplainNoValue says why printing finish of card c shows no value of
// estimate e's grade as of asOf, from the card's sales (newest first, as
// snapshots.Reader.Sales returns them); nil when e shows a value.
func ExplainNoValue(c *snapshots.Card, sales []snapshots.Sale, finish int, e snapshots.Estimate, asOf snapshots.Day) *NoValue {
	if e.Shown() != 0 {
		return nil
	}
	g := e.Grade
	out := &NoValue{Grade: g.String(), GradeName: g.Name(), OtherGrades: []GradeCount{}}
	f := OnePrinting(c, finish)
	sampleFrom := asOf - snapshots.Day(estimate.Default.SampleDays) + 1
	recentFrom := asOf - snapshots.Day(RecentDays) + 1
	inWindow, outliers := 0, 0
	others := map[snapshots.Grade]int{}
	for i := range sales {
		s := &sales[i]
		if s.Day > asOf || s.Hidden() || !f.Sale(s) {
			continue
		}
		if s.Grade != g {
			if s.Day >= recentFrom {
				others[s.Grade]++
			}
			continue
		}
		if out.LastSale == nil {
			out.LastSale = &LastSale{Date: s.Day.String(), PriceUSD: snapshots.USD(s.PriceCents), Marketplace: s.Marketplace.String(),
				Outlier: s.Flags&snapshots.SaleOutlier != 0}
		}
		if s.Day >= sampleFrom {
			inWindow++
			if s.Flags&snapshots.SaleOutlier != 0 {
				outliers++
			}
		}
	}
	for x, n := range others {
		out.OtherGrades = append(out.OtherGrades, GradeCount{Grade: x.String(), GradeName: x.Name(), Sales: n})
	}
	slices.SortFunc(out.OtherGrades, func(a, b GradeCount) int {
		if a.Sales != b.Sales {
			return b.Sales - a.Sales
		}
		return strings.Compare(a.Grade, b.Grade)
	})

	name, days := g.Name(), estimate.Default.SampleDays
	var why string
	switch {
	case out.LastSale == nil && e.FMVCents == 0:
		out.Reason = ReasonNeverSold
		why = fmt.Sprintf("no %s value: this printing has no verified %s sale", name, name)
	case out.LastSale == nil:
		out.Reason = ReasonOutsideWindow
		last := "its source's last price"
		if e.LastSaleDay != snapshots.NoDay && e.LastSaleDay != 0 {
			last += " (" + e.LastSaleDay.String() + ")"
		}
		why = fmt.Sprintf("no %s value: %s is older than the %d-day sample window", name, last, days)
	case inWindow > 0 && outliers == inWindow:
		out.Reason = ReasonOutliers
		why = fmt.Sprintf("no %s value: %s of the last %d days %s set aside as %s (far from the series' level and not confirmed by a second sale); the last sold %s",
			name, plural(inWindow, "verified sale"), days, wasWere(inWindow), outlierWord(inWindow), lastSaleText(out.LastSale, asOf))
	default:
		out.Reason = ReasonOutsideWindow
		why = fmt.Sprintf("no %s value: its last verified sale is older than the %d-day sample window; it sold %s", name, days, lastSaleText(out.LastSale, asOf))
	}
	if len(out.OtherGrades) > 0 {
		n := 0
		var names []string
		for _, o := range out.OtherGrades {
			n += o.Sales
			names = append(names, o.GradeName)
		}
		why += fmt.Sprintf("; the %s of this printing in the last %d days %s of other grades (%s)", plural(n, "sale"), RecentDays, wasWere(n), strings.Join(names, "; "))
	}
	out.Note = why + "."
	return out
}

// lastSaleText is a last sale in words: "$396.16 on 2026-08-04 (ebay, 108
// days before as_of)".
func lastSaleText(l *LastSale, asOf snapshots.Day) string {
	d, _ := snapshots.ParseDay(l.Date)
	s := fmt.Sprintf("for $%s on %s (%s, %s)", usdText(l.PriceUSD), l.Date, l.Marketplace, daysBefore(asOf, d))
	if l.Outlier {
		s += ", set aside as an outlier"
	}
	return s
}

// usdText writes dollars with thousands separators and cents: 1,234.50.
func usdText(usd float64) string {
	s := fmt.Sprintf("%.2f", usd)
	whole, cents, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(whole, "-")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String() + "." + cents
	}
	return b.String() + "." + cents
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

func outlierWord(n int) string {
	if n == 1 {
		return "an outlier"
	}
	return "outliers"
}
