package snapshots

import "errors"

// Storage sentinels, wrapped with the path they concern.
var (
	// ErrNoCurrent means the snapshots directory has no CURRENT file yet.
	ErrNoCurrent = errors.New("no CURRENT snapshot")
	// ErrVerify means a snapshot's files do not match its manifest.
	ErrVerify = errors.New("snapshot does not verify")
	// ErrFormat means the snapshot was written by an incompatible format version.
	ErrFormat = errors.New("unsupported snapshot format")
)
