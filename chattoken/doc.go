// Package chattoken mints and verifies chat-user tokens: short-lived JWTs
// (RFC 7519) that a signed-in dashboard page obtains for the web chat and
// sends as "Authorization: Bearer <token>" to the agent chat and to MCP. The
// edge accepts them there and nowhere else (access.Service.AuthenticateChat).
//
// A token is HS256-signed (github.com/golang-jwt/jwt/v5) and carries
//
//	header  {"alg": "HS256", "typ": "JWT", "kid": "<key id>"}
//	claims  {"iss": "cardedge", "aud": ["chat"], "sub": "<account id>",
//	         "tier": "free|pro|elite", "iat": ..., "exp": iat + TTL, "jti": "<random>"}
//
// Verification accepts only HS256, requires exp, the issuer and the audience
// "chat", and a kid naming a key that is current or within the grace of
// the rotation that retired it. Anything else is an EUNAUTHORIZED *apperr.Error (401)
// whose message says why: expired, wrong audience, or invalid (a bad
// signature, an unknown key, a malformed token: they are not told apart).
//
// # Keys
//
// The signing keys are server secrets kept in the state store (bucket
// state.Secrets, record "chat-token"), so that a token minted by one process
// verifies on every other process of the store (every replica of a fleet
// sharing it). New creates the first key; Rotate (cardedge secrets rotate
// chat-token) makes a new current key and retires the old one, which keeps
// verifying for the rotation's grace (30 minutes by default); keys whose
// grace has ended are dropped. A
// Service reloads the keys when a token names a key it does not know (at
// most once a second) and when its copy is over a minute old, so a rotation
// made elsewhere reaches it within a minute.
//
// It imports the standard library, golang-jwt, snapshots (error codes),
// state (the store's interface) and access (Tier and ChatClaims, the
// interface it implements). Nothing imports it but the command that wires
// it (cmd/cardedge) and its tests.
//
// # Caveats
//
// The tier in a token is the account's tier when it was minted: a tier change
// reaches the chat within TTL (15 minutes), when the page fetches its next
// token. A token cannot be revoked before it expires: signing out ends the
// session, and with it the page's supply of new tokens.
package chattoken
