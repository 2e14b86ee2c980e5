// Package snapshots defines the data a cardedge snapshot holds and the rules
// for reading, verifying and publishing it.
//
// A snapshot is an immutable directory built offline by the builder and served
// read-only by the edge. It holds the card catalog, the market data (sales,
// price points, listings) and every aggregate a request needs, precomputed:
//
//	snapshots/<snapshot_id>/
//	    manifest.json   id, format version, as_of, games, counts, SHA-256 per file
//	    catalog.bolt    sets and cards (package snapshots/bolt)
//	    market.bolt     per-card sales, price points, listings, analytics
//	    aggregates.bolt trending rankings, set aggregates, market volume
//	    index.bleve/    full-text index (package index)
//	    gold.sqlite     the gold tables for guarded SQL
//	CURRENT            names the live snapshot id
//
// This package holds the domain types, the Reader contract the edge and the MCP
// server read through, the manifest and its verification, and the atomic
// publishing of CURRENT, and its storage sentinels (errors.go: ErrNoCurrent,
// ErrVerify, ErrFormat). It also holds the rules every layer shares, once:
// the lenient readers of grades
// and grade filters (grade.go) and of marketplace lists (marketplaces.go),
// and money (money.go). It imports the standard library and package
// estimate (itself standard library only), whose thresholds its trending
// metrics apply.
//
// # Printings
//
// Prices are kept per (card, printing, grade) and never blended across
// printings: a printing is one of a card's Variants (Sale.Finish indexes
// them). A card's base printing (BasePrinting, the rule of
// estimate.Default.BasePrinting) is the one its price and the per-card
// Reader methods (PriceSeries, Cum, Analytics, AnalyticsWindow, ScanMarket,
// Trending) answer for; the Printing methods (Printings, PrintingSeries,
// PrintingCum, PrintingAnalytics, PrintingAnalyticsWindow, ScanPrintings,
// TrendingRows) answer for any printing. Sales, listings and a card's sales
// counts and volume cover every printing.
//
// # Caveats
//
// Money is integer cents inside and *_usd numbers with two decimals outside.
// Days are counted as int32 days since 1970-01-01 UTC (see Day); as_of is the
// snapshot's "today" and every window counts back from it, not from the wall
// clock.
package snapshots
