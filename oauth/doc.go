// Package oauth is the OAuth 2.1 authorization server that lets MCP hosts
// (Claude, ChatGPT, VS Code) connect to cardedge's MCP endpoint for an
// account, and the verifier of the access tokens it issues. It follows the
// MCP authorization specification (revisions 2025-06-18 and 2025-11-25):
//
//   - RFC 8414 authorization server metadata and RFC 9728 protected
//     resource metadata (at the root and at the path-suffixed URL of the
//     MCP endpoint, which a 401 names: Challenge);
//   - the authorization code flow only, with PKCE S256 required (no PKCE,
//     "plain" or a missing method are refused), redirect URIs matched
//     exactly, the state echoed and the issuer sent back (RFC 9207);
//     codes work CodeTTL (1 minute) once, and a second use ends the grant
//     the first one made;
//   - RFC 8707 resource indicators: the one resource is the MCP endpoint's
//     URL, every access token's audience; Verify refuses a token minted
//     for another resource;
//   - refresh tokens rotated at every use; a reused one ends its grant
//     (RFC 9700 section 4.14.2);
//   - RFC 7591 dynamic registration, limited per client address
//     (RegisterPerHour, counted in the store for the whole fleet); a
//     registration nobody uses is pruned after a day (its TTL);
//   - Client ID Metadata Documents: a client id that is an https URL is
//     fetched (timeout, size limit, public addresses only, no redirects)
//     and cached (cimd.go);
//   - RFC 7009 revocation.
//
// Sign-in and consent are the dashboard's (package web): Authorize keeps a
// checked request and sends the browser to the consent page, which calls
// Pending, then Approve or Deny. The dashboard's Connected apps page lists
// Grants and calls RevokeGrant. Grants, refreshes and revocations are
// written to the account's audit log (account.Event*), in the transaction
// that makes them.
//
// # Tokens
//
// Access tokens are HS256 JWTs (RFC 9068 profile, typ "at+jwt") that every
// replica verifies without the store; their keys are server secrets in the
// state store (state.Secrets, record "oauth-token"), rotated with Rotate.
// An access token cannot be withdrawn by itself: revoking (or a reuse) ends
// its grant, and the ended grants of the last AccessTTL (state.OAuthRevoked)
// are what Verify refuses; a Server reloads them when state.MetaOAuthRev
// moved, which it reads at most once a second, so a revocation made on one
// replica is refused on every other in about a second (1.0 s measured across a
// fleet). Refresh tokens and
// codes are random 256-bit values stored as SHA-256 hashes.
//
// It imports the standard library, golang-jwt/jwt/v5, apperr (error codes),
// state (the store's interface), account (accounts and their audit log) and
// access (tiers). It knows no fasthttp: Handler is net/http, mounted by the
// edge as the dashboard is.
//
// # Caveats
//
//   - The tier in an access token is the account's when the token was
//     minted: a tier change reaches an app within AccessTTL (1 hour), at its
//     next refresh. A disabled account's apps cannot refresh, but their
//     access tokens work until they expire unless the caller checks the
//     account (the edge's key table knows disabled accounts).
//   - A grant's LastUsed is its last token (exchange or refresh), not its
//     last call: calls never write to the store.
//   - Metadata documents are cached per process: a replica fetches a
//     document the first time it meets the client id.
//   - The store being unreachable leaves Verify with the ended grants it
//     knows (it logs), as the access layer keeps serving from memory.
package oauth
