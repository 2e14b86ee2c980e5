// Command cardbuild builds, verifies and publishes cardedge snapshots.
//
//	cardbuild build --out DIR [--preset tiny|default|large] [--seed N] [--catalog DIR]
//	                [--catalog-source pokemon-tcg-data=DIR]
//	                [--market DIR] [--as-of YYYY-MM-DD] [--keep N] [--id ID] [--quiet]
//	                [--cpuprofile FILE] [--memprofile FILE] [--memstats] [--mem-limit-mib N]
//	                [--gc-percent N] [--publish s3://BUCKET/PREFIX [--allow-shrink]]
//	                [--source NAME=FILE|DIR|URL[,key=value]]... [--history DIR|s3://...] [--rates FILE|URL]
//	                [--contact URL|EMAIL] [--reports DIR] [--replace-day] [--synthetic-fill] [--history-days N]
//	                [--fetch-cache DIR]
//	cardbuild backfill --history DIR|s3://... --source NAME=DIR|FILE ... [--replace-day]
//	cardbuild publish DIR/<snapshot_id> s3://BUCKET/PREFIX [--allow-shrink] [--max-shrink F]
//	cardbuild verify DIR/<snapshot_id>
//	cardbuild report DIR/<snapshot_id>
//	cardbuild report --reports DIR [--day YYYY-MM-DD]
//	cardbuild bulk DIR/<snapshot_id> OUTDIR [--workers N] [--quiet]
//
// It imports builder, builder/source, bulk, snapshots, snapshots/bolt,
// snapshots/s3 and the standard library;
// only this command reads the builder's flags and files.
package main
