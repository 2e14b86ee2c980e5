package oauth

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/cardedge/cardedge/apperr"
)

// Error is a refusal of the protocol, answered as RFC 6749's error response
// (section 5.2 at the token endpoint, 4.1.2.1 in a redirect) or RFC 7591's
// (section 3.2.2): Code is the error code the client reads
// ("invalid_grant"), Description a message safe to show, Status the HTTP
// status of a JSON answer.
type Error struct {
	Code        string
	Description string
	Status      int
}

func (e *Error) Error() string { return "oauth: " + e.Code + ": " + e.Description }

// Error codes (RFC 6749, 7009, 7591, 8707).
const (
	CodeInvalidRequest          = "invalid_request"
	CodeInvalidClient           = "invalid_client"
	CodeInvalidGrant            = "invalid_grant"
	CodeUnauthorizedClient      = "unauthorized_client"
	CodeUnsupportedGrantType    = "unsupported_grant_type"
	CodeUnsupportedResponseType = "unsupported_response_type"
	CodeInvalidScope            = "invalid_scope"
	CodeInvalidTarget           = "invalid_target"
	CodeAccessDenied            = "access_denied"
	CodeServerError             = "server_error"
	CodeUnavailable             = "temporarily_unavailable"
	CodeInvalidRedirectURI      = "invalid_redirect_uri"
	CodeInvalidClientMetadata   = "invalid_client_metadata"
)

func oauthErr(code string, status int, format string, args ...any) *Error {
	return &Error{Code: code, Status: status, Description: fmt.Sprintf(format, args...)}
}

func invalidRequest(format string, args ...any) *Error {
	return oauthErr(CodeInvalidRequest, http.StatusBadRequest, format, args...)
}

func invalidGrant(format string, args ...any) *Error {
	return oauthErr(CodeInvalidGrant, http.StatusBadRequest, format, args...)
}

func invalidClient(format string, args ...any) *Error {
	return oauthErr(CodeInvalidClient, http.StatusUnauthorized, format, args...)
}

// asOAuthError returns err as an *Error: its own, or server_error (500) or
// temporarily_unavailable (503, the state store) for anything else.
func asOAuthError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if apperr.ErrorCode(err) == apperr.EUNAVAILABLE {
		return oauthErr(CodeUnavailable, http.StatusServiceUnavailable, "the service cannot reach its state store right now; try again in a few seconds")
	}
	return oauthErr(CodeServerError, http.StatusInternalServerError, "internal error")
}

// TokenError is why an access token was refused (Verify): every one is a
// 401 with "WWW-Authenticate: Bearer ... error=\"invalid_token\"" (see
// Challenge). It unwraps to an EUNAUTHORIZED *apperr.Error, so that the
// edge's error table answers it as any refused credential.
type TokenError struct {
	Reason  string // one of the Reason* constants
	Message string // safe to show: what is wrong and what to do
}

// Reasons of a TokenError.
const (
	ReasonInvalid  = "invalid"  // malformed, bad signature, unknown key, wrong issuer or type
	ReasonExpired  = "expired"  // past its exp
	ReasonAudience = "audience" // minted for another resource
	ReasonRevoked  = "revoked"  // its grant was revoked or ended by reuse detection
)

func (e *TokenError) Error() string { return "oauth: access token " + e.Reason + ": " + e.Message }

// Unwrap returns the error's EUNAUTHORIZED *apperr.Error.
func (e *TokenError) Unwrap() error {
	return &apperr.Error{Code: apperr.EUNAUTHORIZED, Message: e.Message}
}
