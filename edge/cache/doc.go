// Package cache is the edge's response cache: encoded response bodies in
// ristretto, keyed by strings that carry the snapshot generation, with
// compressed variants made once per entry and concurrent misses of one key
// computed once.
//
// It imports ristretto, klauspost/compress (gzip), andybalholm/brotli and
// cespare/xxhash (ristretto's own hash, for ETags).
//
// # Caveats
//
// Entries are immutable once stored; the byte slices they hold are shared by
// every request that hits them and must not be modified.
package cache
