// Package source reads real market data into the builder: the daily price
// files the marketplaces publish (Cardmarket's price guide, TCGplayer's
// prices through tcgcsv's mirror), PriceCharting's guide and a collector's
// sold-listing exports. Each source is a small package of its own behind one
// interface (Source): it reads one day of its input and validates it
// (Read, all or nothing: a bad file is an error naming what is wrong, and
// none of it is used), then maps that day's rows onto the catalog (Map),
// giving Observations, one number of one printing and grade of one card,
// and a Report of what it read, matched, left ambiguous or refused and why.
//
// A Day is what a source read, normalized (Rows: product, printing word,
// prices in minor units of their currency) but not yet mapped: it is what
// the history store (package builder/history) files, one immutable file per
// source per day, so that a later catalog maps old days again.
//
// Fetcher reads a location: a local file or directory, or an https URL,
// with conditional requests (ETag, If-Modified-Since) against a cache
// directory, retries with backoff on transient failures, and a User-Agent
// naming cardedge and the operator's contact.
//
// Catalog indexes the cards for the sources' matching: by the marketplaces'
// product ids (the catalog's market_ids), by set and number, by name.
//
// It imports snapshots, estimate (the base-printing rule its printing rules
// apply), golang.org/x/text (name folding) and the standard library; the
// source packages import it, and the builder imports them all.
//
// # Caveats
//
// Money stays in the source's currency here (Observation.Currency); the
// builder converts it (package builder/source/ecb). cardedge ships no
// third-party price data: the operator fetches the files and must comply
// with each source's terms (docs/real-data.md).
package source
