// Package apperr is cardedge's one error vocabulary: an Error with a code and
// a message safe to show the caller, the codes (ENOTFOUND, EINVALID,
// EUNAUTHORIZED, EKEYEXPIRED, EFORBIDDEN, EQUOTA, EUNAVAILABLE, ETOOLARGE,
// EINTERNAL, and the transport codes of requests that never reached a
// handler), the one table of their HTTP statuses (HTTPStatus), the
// transport-neutral FieldErrors of a 422 and the error.v1 body (ErrorBody).
//
// Domain packages (account, collection, pricing, access, ...) return
// *Error values; the front doors turn them into answers with this one table:
// edge (REST), mcp (its HTTP layer; tools answer a tool error with the same
// body) and web (forms and pages). Internal detail is never in a message:
// ErrorMessage gives a generic one for EINTERNAL, and the adapter logs the
// detail once.
//
// It imports the standard library only, so every package may import it.
//
// # Caveats
//
// An error of a package that does not import this one may still name its
// code through an ErrorCode() string method (the state store's
// ErrUnavailable does); ErrorCode and ErrorMessage honour it, and the message
// shown is then the code's generic one.
package apperr
