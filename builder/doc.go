// Package builder compiles card catalogs and market data into an immutable
// snapshot and publishes it atomically.
//
// A build reads the catalog feed (sets.jsonl, cards.jsonl) and, when the
// operator gives one, a local clone of pokemon-tcg-data whose card text the
// English Pokémon cards take (ReadTCGData, Options.PokemonTCGData: cardedge
// ships no card text), takes market data
// from the synthesizer (package builder/synth, the offline default), from
// market feeds in JSON Lines (sales.jsonl, prices.jsonl, listings.jsonl), or
// from real sources (Options.Sources: Cardmarket's price guide, TCGplayer's
// prices through tcgcsv, PriceCharting's guide, sold-listing exports;
// packages builder/source and its source packages, rates of
// builder/source/ecb, days filed in and read back from the history store of
// builder/history, each day mapped once and kept as its mapped day beside
// the raw one; sources.go says how their numbers land in the snapshot,
// with their provenance and at which step of history, and Backfill files
// past days), derives every price
// series and aggregate the edge serves, and writes them through
// snapshots/bolt, snapshots/gold and index into <out>/<id>.tmp/. Only after
// every file is fsynced is the directory renamed and CURRENT replaced, so a
// failed or killed build never changes what the edge serves.
//
// Prices are estimated by package estimate, one series per card, printing
// and grade (analyzeCard): its outlier rule flags sales (SaleOutlier), its
// summaries give each printing's estimates, its liquidity rule decides which
// rows the rankings keep. RealismReport reads a snapshot back and prints the
// figures a collector checks first (cardbuild report).
//
// The bulk files (package bulk) are written into the snapshot's bulk/
// directory from the finished bbolt files, read back through snapshots/bolt,
// before Bleve and the gold tables' indexes (stage bulk): the manifest covers them, and cardbuild bulk
// writes the same bytes from a published snapshot.
//
// It imports apperr, estimate, snapshots, snapshots/bolt, snapshots/gold, index,
// bulk, builder/synth, builder/source, builder/source/cardmarket,
// builder/source/tcgcsv, builder/source/pricecharting,
// builder/source/soldlistings, builder/source/ecb, builder/history and the
// standard library; servers never import it.
//
// A build from sources fails (ErrAllRefused) when every source given was
// refused, so that a nightly job publishes nothing new and the live
// snapshot stays.
//
// # Caveats
//
// Feed errors are *FeedError values naming file, line and field. The content
// digest of a snapshot covers the records of the bbolt files in write order,
// so two builds with the same inputs, seed and as_of have the same digest
// even though file bytes (Bleve, SQLite) may differ.
package builder
