// Package history is the store of the sources' days, outside any snapshot:
// each build files the day each source read (a source.Day: its rows as
// read, normalized, not mapped) and reads the days back to make the
// snapshot's history, so that a year of history is a year of files.
//
// One immutable file per source per day:
//
//	<store>/<source>/<YYYY-MM-DD>.<sha256>.jsonl.gz
//
// gzip JSON Lines: a header line (source, date, created_at, input digest,
// row count, format) and one line per row. The SHA-256 in the name is of
// the uncompressed lines: a read recomputes it, and a file that does not
// match is an error. A day that arrives again with the same content is
// already filed; with different content it is refused (ErrDayFiled) unless
// replaced on purpose (Put with replace: the old file goes).
//
// Beside the raw days, the store keeps each day's mapped observations
// (mapped.go): derived data, rebuilt from the raw day whenever it is
// missing, corrupt, or was mapped by another source.MapVersion or onto
// another catalog, so that a build maps only the days it has not mapped
// before.
//
//	<store>/mapped/<source>/<YYYY-MM-DD>.<raw>.<key>.<sha256>.obs.gz
//
// The store is a directory or an S3-compatible bucket (s3://BUCKET/PREFIX,
// configured as snapshots/s3 configures its client: the AWS environment).
//
// It imports builder/source, snapshots, snapshots/s3, the AWS SDK and the
// standard library.
//
// # Caveats
//
// One writer at a time: two builds filing the same day at once may both
// find it absent. Put writes a directory's file through a temporary file and
// a rename; a bucket's object in one PUT.
package history
