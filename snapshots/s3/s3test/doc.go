// Package s3test runs a real S3-compatible server for tests: versitygw
// (Apache-2.0, one Go binary) over a directory, started on a loopback port
// and stopped in the test's Cleanup. Tests that need it are skipped, with a
// message saying how to install it, when the binary is missing.
//
// It imports the standard library, the AWS SDK and snapshots/s3.
package s3test
