package state

import "errors"

// Sentinel errors of a Store. Implementations wrap them (with %w) with the
// bucket, the key or the file they concern; test with errors.Is.
var (
	// ErrNotFound means there is no such record: it was never written, was
	// deleted, or has expired (an expired record is invisible before it is
	// swept).
	ErrNotFound = errors.New("state: not found")

	// ErrConflict means a write lost to another one: Tx.Insert found the
	// record already there, or Update gave up after its optimistic
	// transaction was beaten by concurrent writers a few times in a row
	// (Redis). Nothing of the transaction was written.
	ErrConflict = errors.New("state: conflict")

	// ErrUnavailable means the store cannot be used now: the state file is
	// locked by another process for longer than the lock timeout or has
	// disappeared, or the Redis server does not answer. Nothing is lost and
	// nothing was written; retry later. A server keeps serving from memory
	// (the last key table, local counts) meanwhile. Its ErrorCode is
	// "unavailable" (apperr.EUNAVAILABLE: HTTP 503).
	ErrUnavailable error = &codedError{msg: "state: unavailable", code: "unavailable"}

	// ErrCorrupt means stored data does not decode: a damaged state file, a
	// record that is not what its bucket holds. Stores never reset or
	// repair corrupted data: the operator restores a backup or moves the
	// file away.
	ErrCorrupt = errors.New("state: corrupted")

	// ErrFormat means the data was written by an incompatible (newer)
	// version of the store.
	ErrFormat = errors.New("state: unsupported format")
)

// codedError is a sentinel that names the error code of package apperr's
// vocabulary its callers answer with, while its message stays this
// package's (apperr.ErrorMessage shows the code's generic one).
type codedError struct{ msg, code string }

func (e *codedError) Error() string     { return e.msg }
func (e *codedError) ErrorCode() string { return e.code }
