// Package estimate prices one series of verified sales (one card, one
// printing, one grade) the way a collector can check: it says which sales
// it set aside as outliers, how many sales stand behind each number, how
// fresh they are and how far to trust them, and it decides which cards are
// liquid enough to rank as movers.
//
// Every threshold the code uses is a field of Default, a Methodology: its
// name, version, estimators, thresholds and flags with their meanings. The
// edge serves that value verbatim at /api/v3/methodology, and the code here
// reads the same fields (there are no copies), so a change of a threshold is
// a change of that document (bump Version).
//
// The rules, in short (Default's values):
//
//   - Outliers. A sale is compared with its series' recent level: the median
//     log price of the last 12 accepted sales of the 180 days before its day,
//     spread 1.4826 x their median absolute deviation (at least 0.12). With
//     at least 4 such sales, a sale more than 4 spreads away is an outlier
//     candidate. A candidate alone is excluded: it cannot move fmv. Two
//     candidates on the same side within 7 days confirm each other (the
//     market moved) and are accepted together; a candidate never confirmed
//     stays marked outlier.
//   - fmv. Exponential smoothing of each day's accepted median in log
//     price, weight 1 - 0.6^n for n accepted sales that day, and bounded: one
//     sale moves fmv by at most 15 % (a day with n sales by at most 1.15^n).
//     A thin series thus moves toward new sales gradually.
//   - tvwap, median. Over the accepted sales of the trailing 7 days
//     (tvwap weights each by recency, 1 - age/7).
//   - sample_size. Accepted sales of the trailing 90 days.
//   - confidence. high: >= 5 sales in 90 days from >= 2 marketplaces and a
//     sale within 14 days; medium: >= 2 sales and a sale within 45 days; low:
//     a sale within 90 days; none otherwise (no value is shown at none).
//   - flags. thin (< 5 sales in the sample confidence reads: 90 days of
//     accepted sales for a series, a leaderboard row's sample_size), solo
//     (moved >= 20 % in 30 days while every sibling printing or grade moved
//     < 5 %), outlier_excluded (a sale set aside in the last 30 days), stale
//     (no accepted sale in 90 days). Confidence, thin and stale are one rule
//     (Judge) over the same counts: a thin value is never high confidence, a
//     stale one is none.
//   - Movers. A row ranks when it has >= 5 verified sales in its window (in
//     the last 30 days for shorter windows) and a price >= $1 ($10 for the
//     trending leaderboard unless the caller sets a floor: a collector's
//     floor, under which a card is bulk); the composite 0.6 price_pct + 0.4
//     volume_pct (each clamped to [-100, 300]) is scaled by n / (n + 5) for
//     n such sales, so that volume is built in.
//   - Sources. In a snapshot built from real sources (the marketplaces'
//     files), each printing and grade a source covers is priced from one
//     source, the first fresh one of tcgplayer, cardmarket, pricecharting;
//     medium confidence while its file is at most 2 days old, low and
//     stale up to 90 days, then none; a fresh source's leaderboard row
//     ranks by its price alone under the rule's sales (Sources,
//     SourceRank, SourceConfidence, LiquidFeed: the builder and the API
//     read these).
//   - Base printing. The printing a card is priced in when none is asked:
//     its first variant made only of standard parts (normal, holo,
//     unlimited, alternate-art), else its variant with the fewest other
//     parts (reverse counts as one), first in catalog order.
//
// It imports only the standard library.
//
// # Caveats
//
// Days are int32 days since 1970-01-01 UTC and money integer cents, as in
// package snapshots. Estimate expects a series' sales oldest first and only
// verified ones (quality-flagged, price-feed and untrusted-identity rows are
// the caller's to drop). The Flags and Confidence values are stored in
// snapshots: their numbering is append only.
package estimate
