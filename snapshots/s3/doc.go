// Package s3 publishes snapshots to S3-compatible object storage and mirrors
// them back into a local snapshots root: the fleet's distribution (#22).
//
// The bucket mirrors the local layout, so that operators read it with any S3
// tool:
//
//	PREFIX/CURRENT                 the live snapshot's id
//	PREFIX/<id>/manifest.json      written after every other file of <id>
//	PREFIX/<id>/<file>             every file the manifest lists
//
// Bucket.Publish uploads a verified snapshot directory (files in parallel,
// large ones in parts, each transfer retried), then its manifest, then
// replaces CURRENT last, so that a reader never finds CURRENT naming a
// partial snapshot. Before it uploads anything, Validate refuses a snapshot
// whose card, set or sales counts shrank by more than 10 % against the
// published one (ErrShrink) unless told otherwise.
//
// Puller mirrors the bucket into a cache directory exactly as a local build
// publishes into its root: it polls CURRENT with a conditional GET,
// Bucket.Fetch downloads a new snapshot into <id>.tmp (in parallel,
// resumable, hashing every file as it arrives against the manifest's
// SHA-256), renames it to <id>, replaces the local CURRENT atomically and
// prunes. The edge's watcher of that directory then swaps as it does after
// a local build, and need not hash the files again (Puller.Verified). The
// store unreachable (ErrUnreachable) or a snapshot that does not verify
// (snapshots.ErrVerify) leaves the directory as it was: the Puller backs off
// and tries again; Status reports it for /ready and /metrics.
//
// Downloads and hashing run in paced steps (snapshots.Pacer) so that a
// server fetching a snapshot beside the one it serves keeps its latency.
//
// NewClient is the one place that reads the environment: the AWS SDK's
// standard configuration (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_REGION, AWS_ENDPOINT_URL, the shared config and credentials files),
// with path-style addressing when an endpoint is set (S3-compatible
// servers).
//
// It imports the standard library, snapshots and the AWS SDK for Go v2
// (service/s3, config). s3test runs a real S3-compatible server (versitygw)
// for tests.
//
// # Caveats
//
// Objects are compared by size and the SHA-256 kept in their metadata
// (x-amz-meta-sha256) when publishing again, and by the manifest's SHA-256
// when fetching: an object damaged in the bucket after it was uploaded is
// refused by every reader, and is replaced only by deleting it and
// publishing again.
package s3
