// Package sourcetest helps the sources' tests: the fixture catalog
// (builder/testdata/sources/catalog: a dozen real cards chosen for their
// market_ids), the fixtures' paths, and a snapshots root built from two
// days of them (BuildDays) for the tests that serve it.
//
// It imports builder, builder/source, snapshots and the standard library;
// only tests import it.
package sourcetest
