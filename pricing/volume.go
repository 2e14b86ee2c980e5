package pricing

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// Sales volume over time: a daily series summed into periods (a set's
// volume history, the market's) and the market's volume by set.

// Granularities of Periods.
const (
	GranularityDaily   = "daily"
	GranularityWeekly  = "weekly"  // weeks start Monday
	GranularityMonthly = "monthly" // calendar months
)

// PeriodRow is one period of a volume series.
type PeriodRow struct {
	PeriodStart string  `json:"period_start"`
	Sales       int     `json:"sales"`
	VolumeUSD   float64 `json:"volume_usd"`
}

// PeriodStart maps a day to the first day of its period.
func PeriodStart(d snapshots.Day, granularity string) snapshots.Day {
	switch granularity {
	case GranularityWeekly:
		wd := (int(d.Time().Weekday()) + 6) % 7 // Monday = 0
		return d - snapshots.Day(wd)
	case GranularityMonthly:
		t := d.Time()
		return snapshots.DayOf(time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC))
	}
	return d
}

// Periods sums a daily series into the periods of granularity over [from,
// to], every period present (zeros included), oldest first (never nil).
func Periods(days []snapshots.DailyStat, from, to snapshots.Day, granularity string) []PeriodRow {
	var rows []PeriodRow
	idx := map[snapshots.Day]int{}
	for d := from; d <= to; d++ {
		ps := PeriodStart(d, granularity)
		if _, ok := idx[ps]; !ok {
			idx[ps] = len(rows)
			rows = append(rows, PeriodRow{PeriodStart: ps.String()})
		}
	}
	for _, d := range days {
		if d.Day < from || d.Day > to {
			continue
		}
		i := idx[PeriodStart(d.Day, granularity)]
		rows[i].Sales += d.Sales
		rows[i].VolumeUSD = snapshots.Round2(rows[i].VolumeUSD + snapshots.USD(d.VolumeCents))
	}
	return jsontext.NonNil(rows)
}

// SetVolumeRow is one set of the market's volume.
type SetVolumeRow struct {
	SetID     string  `json:"set_id"`
	Name      string  `json:"name"`
	Language  string  `json:"language"`
	Sales     int     `json:"sales"`
	VolumeUSD float64 `json:"volume_usd"`
	SharePct  float64 `json:"share_pct"`
	// AvgPriceUSD is the average verified sale price of the window (the
	// price the liquidity rule looks at), SampleSize the verified sales the
	// rule counts.
	AvgPriceUSD float64  `json:"avg_price_usd"`
	SampleSize  int      `json:"sample_size"`
	Flags       []string `json:"flags"`
}

// MarketVolume is market-volume.v1.
type MarketVolume struct {
	Game           string         `json:"game"`
	Language       string         `json:"language"`
	Granularity    string         `json:"granularity"`
	Days           int            `json:"days"`
	From           string         `json:"from"`
	To             string         `json:"to"`
	TotalSales     int            `json:"total_sales"`
	TotalVolumeUSD float64        `json:"total_volume_usd"`
	Series         []PeriodRow    `json:"series"`
	MinSales       int            `json:"min_sales"`
	MinPriceUSD    float64        `json:"min_price_usd"`
	Sets           []SetVolumeRow `json:"sets"`
	Basis          string         `json:"basis"`
}

// NewMarketVolume is the verified sales volume of a game's sets of language
// lang ("all": every language) over the days days ending at asOf: the totals
// and the series of every set, and, by volume, the sets that pass the
// liquidity rule l (flagged thin or stale by estimate.Default's rules).
func NewMarketVolume(r snapshots.Reader, asOf snapshots.Day, game string, days int, lang, granularity string, l Liquidity) (MarketVolume, error) {
	sets, err := r.Sets(game)
	if err != nil {
		return MarketVolume{}, err
	}
	m := &estimate.Default
	from, to := asOf-snapshots.Day(days)+1, asOf
	sampleFrom := to - snapshots.Day(m.SalesDays(days)) + 1
	var rows []SetVolumeRow
	var all []snapshots.DailyStat
	var totalCents int64
	totalSales := 0
	for _, s := range sets {
		if lang != "all" && s.Language != lang {
			continue
		}
		daily, err := r.SetDaily(game, s.ID)
		if err != nil {
			return MarketVolume{}, err
		}
		row := SetVolumeRow{SetID: s.ID, Name: s.Name, Language: s.Language, Flags: []string{}}
		var cents int64
		last := snapshots.NoDay
		for _, d := range daily {
			if d.Day > to {
				continue
			}
			if d.Day >= from {
				row.Sales += d.Sales
				cents += d.VolumeCents
				all = append(all, d)
			}
			if d.Day >= sampleFrom {
				row.SampleSize += d.Sales
			}
			if d.Sales > 0 {
				last = max(last, d.Day)
			}
		}
		if row.Sales == 0 {
			continue
		}
		totalCents += cents
		totalSales += row.Sales
		avg := int64(math.Round(float64(cents) / float64(row.Sales)))
		if !l.Keep(row.SampleSize, avg) {
			continue
		}
		row.VolumeUSD, row.AvgPriceUSD = snapshots.USD(cents), snapshots.USD(avg)
		if m.ThinOf(row.SampleSize) { // the count shown beside it (estimate.Methodology.Judge)
			row.Flags = append(row.Flags, estimate.FlagThin.Names()...)
		}
		if last == snapshots.NoDay || to-last > snapshots.Day(m.StaleDays) {
			row.Flags = append(row.Flags, estimate.FlagStale.Names()...)
		}
		rows = append(rows, row)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].VolumeUSD > rows[j].VolumeUSD })
	for i := range rows {
		rows[i].SharePct = snapshots.Round2(100 * rows[i].VolumeUSD / math.Max(0.01, snapshots.USD(totalCents)))
	}
	return MarketVolume{
		Game: game, Language: lang, Granularity: granularity, Days: days, From: from.String(), To: to.String(),
		TotalSales: totalSales, TotalVolumeUSD: snapshots.USD(totalCents), Series: Periods(all, from, to, granularity),
		MinSales: l.MinSales, MinPriceUSD: snapshots.USD(l.MinPriceCents),
		Sets: jsontext.NonNil(rows),
		Basis: fmt.Sprintf("verified sales; totals and series count every set of the language; sets lists, by volume, the sets with at least %d verified sales "+
			"in the window (in the last %d days for shorter windows: sample_size) and an average sale price of at least $%.2f (min_sales and min_price_usd change it; "+
			"the methodology's liquidity rule, /api/v3/methodology); share_pct is of the total volume",
			l.MinSales, m.Liquidity.ShortWindowDays, snapshots.USD(l.MinPriceCents)),
	}, nil
}

// SetVolumeHistory is set-volume-history.v1.
type SetVolumeHistory struct {
	SetID       string      `json:"set_id"`
	Name        string      `json:"name"`
	Granularity string      `json:"granularity"`
	Days        int         `json:"days"`
	From        string      `json:"from"`
	To          string      `json:"to"`
	Items       []PeriodRow `json:"items"`
	Basis       string      `json:"basis"`
}

// NewSetVolumeHistory is set s's verified sales (daily: its SetDaily) over
// the days days ending at asOf, in periods of granularity.
func NewSetVolumeHistory(s *snapshots.Set, daily []snapshots.DailyStat, asOf snapshots.Day, days int, granularity string) SetVolumeHistory {
	from := asOf - snapshots.Day(days) + 1
	return SetVolumeHistory{SetID: s.ID, Name: s.Name, Granularity: granularity, Days: days, From: from.String(), To: asOf.String(),
		Items: Periods(daily, from, asOf, granularity), Basis: "verified sales of the set's cards"}
}
