// Package sourcetest helps the sources' tests: the fixture catalog
// (builder/testdata/sources/catalog: a dozen real cards chosen for their
// market_ids) and the fixtures' paths.
//
// It imports builder, builder/source, snapshots and the standard library;
// only tests import it.
package sourcetest
