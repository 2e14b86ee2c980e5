package bolt

import "github.com/cardedge/cardedge/state"

// Sentinel errors of the state file, wrapped with its path. Each is also the
// state sentinel of its kind (errors.Is(ErrLocked, state.ErrUnavailable)).
var (
	// ErrLocked means another process held the state file's lock for longer
	// than the lock timeout (a CLI command or another edge process in the
	// middle of a write, or a process that keeps the file open). It is
	// state.ErrUnavailable.
	ErrLocked error = &kindError{"state file is locked by another process", []error{state.ErrUnavailable}}

	// ErrMissing means the state file does not exist: it was removed after
	// Open created it. Stores never recreate it (that would start an empty
	// key table under a running server). It is state.ErrUnavailable and
	// state.ErrNotFound (there is nothing to read).
	ErrMissing error = &kindError{"state file does not exist", []error{state.ErrUnavailable, state.ErrNotFound}}

	// ErrCorrupt means the state file is not a valid bbolt file or a record
	// does not decode. Stores refuse it rather than reset keys or usage:
	// restore the file from a backup or move it away. It is
	// state.ErrCorrupt.
	ErrCorrupt error = &kindError{"state file is corrupted", []error{state.ErrCorrupt}}

	// ErrFormat means the file was written by an incompatible (newer)
	// version of this package. It is state.ErrFormat.
	ErrFormat error = &kindError{"unsupported state file format", []error{state.ErrFormat}}
)

// kindError is a sentinel with its own message that is also the state
// sentinels of its kind.
type kindError struct {
	msg  string
	kind []error
}

func (e *kindError) Error() string   { return e.msg }
func (e *kindError) Unwrap() []error { return e.kind }
