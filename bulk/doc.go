// Package bulk writes a snapshot's bulk files: per game, the whole catalog
// and today's prices as gzip JSON Lines, for the people who mirror a
// dataset instead of paging an API.
//
// Per game of the manifest (in order), four files, each with a JSON Schema
// (2020-12) of its lines beside it:
//
//   - <game>-cards: every card with its set, printings, ids, partner product
//     id, gameplay facts and today's market per printing (raw near-mint fmv
//     with sample size, confidence and flags);
//   - <game>-sets: every set;
//   - <game>-prices: today's estimate of every card x printing x grade;
//   - <game>-price-history: the daily series of every card x printing x
//     grade over the last HistoryDays days.
//
// index.json lists them with their size, SHA-256, row count and the catalog
// sources their rows draw on (Sources holds each source's license). The
// builder writes them into the snapshot's bulk/ directory, so the manifest
// covers them; cardbuild bulk writes the same files for an existing
// snapshot.
//
// A server loads an open snapshot's files with Load: the index, checked
// against the snapshot's manifest (a disagreement refuses the snapshot),
// each file's kind, path, schema and validators (ETag, Repr-Digest, the
// schema's ETag); Lookup finds one by name (ENOTFOUND naming the others),
// ParseRange reads a download's Range and If-Range, SourcesOf says whether
// a file's sources are licensed. Serving them (tiers, limits, the bytes) is
// the server's (edge/bulk.go).
//
// The files are deterministic: the same snapshot gives the same bytes (rows
// in catalog order, no map iteration, gzip at GzipLevel with no name and no
// modification time), whatever Options.Workers is.
//
// It imports the standard library, apperr (Lookup's and ParseRange's
// errors), estimate, snapshots, snapshots/jsontext, pricing (a card's
// estimates and flags) and resolve (the API's shape of a card's gameplay
// facts); it reads a snapshot only through snapshots.Reader.
//
// # Caveats
//
// Write reads every printing's price series of the snapshot: about a second
// per 10,000 cards of the default preset on one core, most of it gzip.
package bulk
