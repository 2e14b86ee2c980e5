package snapshots

import "time"

// Source fills a local snapshots root from elsewhere (snapshots/s3 mirrors a
// bucket into a cache directory) and tells the server that serves the root
// what it is doing, for readiness and metrics.
type Source interface {
	// Status returns the source's state now.
	Status() SourceStatus
	// Verified returns the manifest of snapshot id when this source wrote
	// it into the root and verified every file's SHA-256 while doing so
	// (the server then need not hash the files again); ok false otherwise.
	Verified(id string) (m *Manifest, ok bool)
}

// SourceStatus is what a Source reports.
type SourceStatus struct {
	// Location names the source (s3://bucket/prefix).
	Location string
	// Poll is the source's poll interval.
	Poll time.Duration
	// Pinned is the snapshot the source holds the root on ("" when not
	// pinned): it fetches that one and ignores what is published.
	Pinned string
	// Published is the snapshot the source last found published ("" when it
	// has not reached the store since the start), and PublishedSeen when it
	// first found it.
	Published     string
	PublishedSeen time.Time
	// Local is the snapshot the root's CURRENT names, as the source last
	// wrote or found it.
	Local string
	// Pulling is the snapshot being fetched now ("" when none).
	Pulling string
	// Refused is the last snapshot refused because it did not verify (a
	// corrupt or missing object, an unreadable format): the bucket's fault,
	// retried at later polls; "" after a success.
	Refused string
	// LastPoll and LastOK are the times of the last poll and of the last
	// one that reached the store; Failures counts the polls that failed in
	// a row, and LastError says why the last one did ("" after a success),
	// LastErrorKind is "unreachable", "refused" or "local".
	LastPoll, LastOK time.Time
	Failures         int
	LastError        string
	LastErrorKind    string
	// Counters since the start: polls by result ("changed", "unchanged",
	// "unreachable", "refused", "local"), snapshots fetched, bytes
	// downloaded and seconds spent fetching.
	Polls        map[string]int64
	Fetched      int64
	FetchedBytes int64
	FetchSeconds float64
}
