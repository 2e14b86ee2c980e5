package apperr

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes shared by every layer: the one error vocabulary. HTTPStatus maps
// each to its HTTP status (REST in package edge and MCP's HTTP layer answer
// with that one table); the MCP tools turn them into tool errors.
const (
	ENOTFOUND     = "not_found"
	EINVALID      = "invalid"
	EUNAUTHORIZED = "unauthorized"
	EFORBIDDEN    = "forbidden"
	EQUOTA        = "rate_limited"
	EINTERNAL     = "internal"
	// ETOOLARGE is a request body or upload over a limit.
	ETOOLARGE = "payload_too_large"
	// EKEYEXPIRED is an API key past its expiry (401), told apart from an
	// unknown or revoked key (EUNAUTHORIZED) so that clients can say why.
	EKEYEXPIRED = "key_expired"
	// EUNAVAILABLE is a request that needs the state store while it cannot
	// be reached (a fleet's Redis down): 503, nothing was changed, try
	// again. Reads of the snapshot keep working meanwhile.
	EUNAVAILABLE = "unavailable"
)

// Codes of requests HTTP could not carry to a handler: refused before any
// route or tool ran (malformed, wrong method, withdrawn route).
const (
	EBADREQUEST     = "bad_request"
	EHEADERTOOLARGE = "header_too_large"
	ETIMEOUT        = "request_timeout"
	EMETHOD         = "method_not_allowed"
	EREMOVED        = "removed"
	// ERANGE is a Range header no byte of the file satisfies (bulk
	// downloads).
	ERANGE = "range_not_satisfiable"
)

// httpStatus is the one code -> HTTP status table.
var httpStatus = map[string]int{
	ENOTFOUND:       404,
	EINVALID:        422,
	EUNAUTHORIZED:   401,
	EKEYEXPIRED:     401,
	EUNAVAILABLE:    503,
	EFORBIDDEN:      403,
	EQUOTA:          429,
	EINTERNAL:       500,
	ETOOLARGE:       413,
	EBADREQUEST:     400,
	EHEADERTOOLARGE: 431,
	ETIMEOUT:        408,
	EMETHOD:         405,
	EREMOVED:        404,
	ERANGE:          416,
}

// HTTPStatus returns the HTTP status of an error code; an unknown code is
// 500, as EINTERNAL.
func HTTPStatus(code string) int {
	if s, ok := httpStatus[code]; ok {
		return s
	}
	return 500
}

// ErrorBody is the error.v1 JSON body every HTTP error answer has (REST and
// MCP alike) and every MCP tool error's text.
type ErrorBody struct {
	Contract string      `json:"contract"` // "error.v1"
	Error    ErrorDetail `json:"error"`
}

// ErrorDetail is the error of an ErrorBody: its code, its safe message and,
// for some codes, details (removed: the replacement route).
type ErrorDetail struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// NewErrorBody is the error.v1 body of code and msg.
func NewErrorBody(code, msg string) ErrorBody {
	return ErrorBody{Contract: "error.v1", Error: ErrorDetail{Code: code, Message: msg}}
}

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

// ErrorCode returns the code of the first *Error in err's chain (EINVALID for
// FieldErrors), or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var fe FieldErrors
	if errors.As(err, &fe) {
		return EINVALID
	}
	var c coded
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return EINTERNAL
}

// coded is an error of a package that cannot import this one (the state
// store's ErrUnavailable) naming its code itself; its message is the code's
// generic one (codeMessages), never its detail.
type coded interface {
	error
	ErrorCode() string
}

// codeMessages are the safe messages of coded errors.
var codeMessages = map[string]string{
	EUNAVAILABLE: "the service cannot reach its state store right now; nothing was changed; try again in a few seconds",
}

// ErrorMessage returns the safe message of err, or a generic one for internal
// errors, whose detail must only be logged.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	var fe FieldErrors
	if errors.As(err, &fe) {
		return fe.Error()
	}
	var c coded
	if errors.As(err, &c) {
		if m, ok := codeMessages[c.ErrorCode()]; ok {
			return m
		}
	}
	return "internal error"
}

// FieldError is one invalid input field, independent of the transport: where
// it is (Loc: "query" or "body", then the field and, in a body, the row or
// index), what is wrong with it (Msg, safe to show), a machine-readable Type
// (missing, value_error, enum, json_invalid, string_too_long, too_long, ...),
// the Input as sent (omitted when nil) and context such as a bound (Ctx). The
// edge answers it as one entry of a 422 body; the JSON names are that body's.
type FieldError struct {
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Type  string         `json:"type"`
	Input any            `json:"input,omitempty"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// FieldErrors is an EINVALID error naming every invalid field, not only the
// first.
type FieldErrors []FieldError

func (v FieldErrors) Error() string {
	msgs := make([]string, len(v))
	for i, e := range v {
		msgs[i] = e.Msg
	}
	return "validation failed: " + strings.Join(msgs, "; ")
}

// JoinFieldErrors joins the FieldErrors among errs into one (nil errors are
// skipped); the first error that is not FieldErrors is returned as it is.
func JoinFieldErrors(errs ...error) error {
	var out FieldErrors
	for _, err := range errs {
		if err == nil {
			continue
		}
		var v FieldErrors
		if !errors.As(err, &v) {
			return err
		}
		out = append(out, v...)
	}
	if len(out) > 0 {
		return out
	}
	return nil
}
