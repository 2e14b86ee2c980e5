// Package ecb reads the European Central Bank's euro foreign exchange
// reference rates, eurofxref-hist.csv (or the eurofxref-hist.zip it is
// published in, https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip),
// and converts amounts to US dollars with the rate of their day.
//
// The file's first line names the columns (Date, then one currency each:
// units of the currency per euro), then one line per TARGET business day,
// newest first; lines end with a comma (an empty last column) and a
// currency without a rate that day says N/A. A day without a rate (a
// weekend, a holiday) takes the latest rate before it, at most MaxGapDays
// old.
//
// It imports snapshots and the standard library.
package ecb
