// Package soldlistings reads the sold listings a collector exports from a
// marketplace's sold search, as CSV with a header:
//
//	date,title,price,currency[,url][,grade][,marketplace][,trade_type]
//
// date YYYY-MM-DD (or an RFC 3339 time), price a decimal ("$1,234.50"
// and "1234.50" alike), currency ISO 4217 (USD, EUR, GBP, JPY ... converted
// with the ECB's rates of the sale's day); grade as collectors write it ("PSA
// 10", "BGS 9.5", "raw"), else read from the title; marketplace one of the
// API's (ebay, cardmarket, mercari, yahoo_auctions, partner), else read from
// the URL's host, else the file's marketplace= option; trade_type auction,
// fixed_price or best_offer, else the trade_type= option, else fixed_price.
//
// Each title is read with the collectors' words reader (snapshots.ReadWords:
// grade, printing and art words; Words.CutSet: a set name) and what is left
// is matched to a card by number ("4/102", "#4", "OP01-001") and name. Only
// a confident match becomes a verified sale (observed): one card whose name
// and number agree (identity agree_high), or, without a number, the one
// card of that name in the set the title names (agree_medium). Every other
// row goes to the report, with the candidates when there are several.
//
// The day of a file is its day= option, else its modification time; each
// sale keeps its own date (a date after the file's day is refused).
//
// It imports builder/source, snapshots and the standard library.
package soldlistings
