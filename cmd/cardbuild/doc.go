// Command cardbuild builds, verifies and publishes cardedge snapshots.
//
//	cardbuild build --out DIR [--preset tiny|default|large] [--seed N] [--catalog DIR]
//	                [--market DIR] [--as-of YYYY-MM-DD] [--keep N] [--id ID] [--quiet]
//	                [--cpuprofile FILE] [--memprofile FILE] [--memstats] [--mem-limit-mib N]
//	                [--gc-percent N] [--publish s3://BUCKET/PREFIX [--allow-shrink]]
//	cardbuild publish DIR/<snapshot_id> s3://BUCKET/PREFIX [--allow-shrink] [--max-shrink F]
//	cardbuild verify DIR/<snapshot_id>
//	cardbuild report DIR/<snapshot_id>
//	cardbuild bulk DIR/<snapshot_id> OUTDIR [--workers N] [--quiet]
//
// It imports builder, bulk, snapshots, snapshots/bolt, snapshots/s3 and the
// standard library;
// only this command reads the builder's flags and files.
package main
