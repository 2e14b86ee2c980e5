// Package queries draws the search queries of the benchmarks from a
// snapshot's catalog: plain words (Plain: whole names, first words, name and
// number, set names, typos) and queries with the search syntax's terms
// (Syntax: artist, type and HP, attacks, a name without its set, rarity and
// printing, or-groups; One Piece color, cost and power). bench's in-process
// benchmarks (BenchmarkSearch, BenchmarkSearchSyntax) and cardbench's HTTP
// search workload draw from the same functions with the same seeds, so their
// figures are of the same queries.
//
// It imports snapshots (the catalog's types) and index/syntax (every query
// of Syntax parses).
package queries
