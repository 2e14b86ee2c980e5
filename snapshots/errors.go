package snapshots

import (
	"errors"
	"fmt"
)

// Error codes shared by every layer. The edge maps them to HTTP statuses in one
// table; the MCP server turns them into tool errors.
const (
	ENOTFOUND     = "not_found"
	EINVALID      = "invalid"
	EUNAUTHORIZED = "unauthorized"
	EFORBIDDEN    = "forbidden"
	EQUOTA        = "rate_limited"
	EINTERNAL     = "internal"
)

// Error is an application error with a code and a message that is safe to show
// to the caller.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the safe message of err, or a generic one for internal
// errors, whose detail must only be logged.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// Storage sentinels, wrapped with the path they concern.
var (
	// ErrNoCurrent means the snapshots directory has no CURRENT file yet.
	ErrNoCurrent = errors.New("no CURRENT snapshot")
	// ErrVerify means a snapshot's files do not match its manifest.
	ErrVerify = errors.New("snapshot does not verify")
	// ErrFormat means the snapshot was written by an incompatible format version.
	ErrFormat = errors.New("unsupported snapshot format")
)
