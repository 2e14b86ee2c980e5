package state

// Bucket names a set of records of one kind. Every bucket of the state store
// is declared here, with its key layout, what its values are and how long
// they live, so that one file says what the state holds: stores refuse any
// other bucket name. Keys are byte strings of 1 to MaxKeyLen bytes; "/"
// separates the parts of a composite key, so that a prefix scan reads one
// owner's records (a key id, an account id).
//
// A bucket holds either records (Tx.Get, Put, Insert, Delete, Scan; Table
// gives them a Go type, encoded as JSON) or counters (Tx.Add, Count,
// ScanCounts), never both: see Kind.
type Bucket string

// Buckets in use.
const (
	// Keys holds the API key table: key id ("k_" + 8 base32 characters) ->
	// JSON record (name, tier, flags, creation and revocation times, the
	// SHA-256 of the secret). No expiry. Owner: access. Every change
	// adds 1 to the Meta counter MetaKeysRev in the same transaction.
	Keys Bucket = "keys"

	// Usage holds counters of charged units: "<key id>/<YYYY-MM-DD>" (UTC
	// day) -> units charged that day. Each expires when it falls out of the
	// retained days (access.Options.RetainDays, 90 by default). Owner:
	// access, which adds its in-memory counts once a second.
	//
	// "<account id>/<YYYY-MM-DD>" counts an account's chat quota: the calls
	// of its chat-user tokens (access.AuthenticateChat), apart from its
	// keys'.
	//
	// "<key id>/<YYYY-MM-DD>/<reason>" counts the calls refused that day by
	// reason ("401", "403", "422", "429"; access.Refusal), with the same
	// expiry, so that one prefix scan of "<key id>/" reads a key's whole
	// history (the dashboard's usage page).
	Usage Bucket = "usage"

	// Meta holds counters of the store's users: MetaKeysRev. No expiry.
	Meta Bucket = "meta"

	// ImportPreviews holds collection import previews: preview id ("imp_"
	// + random) -> JSON preview (the resolved rows, bound to the owner of
	// the collection it is for). They expire 24 hours after the upload. Owner: the
	// collection imports (edge/imports.go).
	ImportPreviews Bucket = "import_previews"

	// Collections holds collections: owner id -> JSON collection (holdings
	// merged by card, printing and grade, and the imports that added to
	// them). The owner is an account ("a_..."), whose keys, pages and chat
	// share its collection, or a key without an account ("k_..."). No
	// expiry. Owner: package collection.
	Collections Bucket = "collections"

	// Cohorts holds the MCP cohorts: "<key id>/<cohort handle>" -> JSON
	// cohort. They expire 7 days after they were last pinned. Owner: mcp.
	Cohorts Bucket = "cohorts"

	// Secrets holds server secrets shared by every process of the store:
	// name -> JSON bytes. "cursor" is the 32-byte HMAC key of sales cursors
	// (owner: cmd/cardedge, which creates it once); "chat-token" the
	// signing keys of chat-user tokens, the current one and those retired
	// within their grace (owner: chattoken); "oauth-token" the signing keys
	// of OAuth access tokens, kept the same way (owner: oauth). No expiry.
	Secrets Bucket = "secrets"
)

// Buckets of the dashboard (#20): package account owns all but LastUsed.
const (
	// Accounts (#20) holds dashboard accounts: account id -> JSON account
	// (email, PHC password hash, tier, state). No expiry.
	Accounts Bucket = "accounts"

	// AccountEmails (#20) makes emails unique: normalized email -> JSON
	// account id. Sign-up writes it with Tx.Insert (ErrConflict: taken) in
	// the same transaction as the account. No expiry.
	AccountEmails Bucket = "account_emails"

	// Sessions (#20) holds dashboard sessions: hex SHA-256 of the session id
	// -> JSON session (account id, CSRF token, creation and last-seen times,
	// client address, and at most one flash sealed with a key derived from
	// the session id). The TTL is the idle timeout, renewed by a Put when the
	// session is used (at most once a minute); "sign out everywhere" deletes
	// an account's sessions found through the record "<account id>/<session
	// hash>" kept beside it with the same TTL.
	Sessions Bucket = "sessions"

	// Audit (#20) is each account's audit log: "<account id>/<time>/<random>"
	// -> JSON event (what, client address), where <time> is the event's
	// UTC time as 16 hex digits of Unix nanoseconds, so that a reverse
	// Scan of "<account id>/" reads it newest first. Kept 365 days.
	Audit Bucket = "audit"

	// LastUsed (#20) holds when each key was last used, coarsely: key id ->
	// JSON time, written by the access sync for the keys whose last charge
	// moved a minute or more since the stored one (every move at Close).
	// Owner: access. No expiry.
	LastUsed Bucket = "last_used"
)

// Buckets of the OAuth 2.1 authorization server (#31): package oauth owns
// them. Durations named here are oauth's defaults (oauth.Options).
const (
	// OAuthClients holds the clients registered by RFC 7591 dynamic
	// registration: client id ("oc_" + 16 base32 characters) -> JSON client
	// (name, redirect URIs, token endpoint auth method, the SHA-256 of its
	// secret when it has one, registration time and address). A
	// registration nobody uses expires after a day; each grant made or
	// refreshed with it renews its TTL to the refresh tokens' idle lifetime
	// plus a day, so unused clients are pruned by expiry. Clients named by
	// a Client ID Metadata Document (an https URL) are not stored here:
	// each process fetches and caches their document.
	OAuthClients Bucket = "oauth_clients"

	// OAuthRequests holds pending authorization requests, between
	// /oauth/authorize and the consent page's answer: request id (32
	// random bytes, base64url) -> JSON request (client, redirect URI,
	// state, PKCE challenge, scopes, resource). They expire 10 minutes
	// after the authorization request; the answer deletes them.
	OAuthRequests Bucket = "oauth_requests"

	// OAuthCodes holds authorization codes: hex SHA-256 of the code -> JSON
	// code (the approved request, the account, used or not). A code works
	// for a minute, once; its record stays 10 minutes so that a second use
	// is recognized (and ends the grant the first one made).
	OAuthCodes Bucket = "oauth_codes"

	// OAuthGrants holds what an account let an app do: "<account id>/<grant
	// id>" -> JSON grant (client id, name and redirect URI, scopes,
	// resource, creation and last-use times, the hash of the one refresh
	// token that may be used next). A prefix scan of "<account id>/" lists
	// an account's connected apps. The TTL is the refresh tokens' idle
	// lifetime (30 days), renewed at each refresh.
	OAuthGrants Bucket = "oauth_grants"

	// OAuthRefresh holds refresh tokens: hex SHA-256 of the token -> JSON
	// (account id, grant id). Each refresh rotates the token; the used one
	// stays until its TTL (the idle lifetime) so that its reuse is
	// recognized and ends the grant.
	OAuthRefresh Bucket = "oauth_refresh"

	// OAuthRevoked holds the grants ended within an access token's
	// lifetime: grant id -> JSON (account id, time, why). Kept that long
	// (1 hour) plus a minute, so that every process refuses the access
	// tokens of an ended grant; every write adds 1 to the Meta counter
	// MetaOAuthRev in the same transaction.
	OAuthRevoked Bucket = "oauth_revoked"

	// OAuthLimits holds counters of the registration limit:
	// "register/<client address>/<Unix hour>" -> registrations from that
	// address in that hour. They expire after the hour.
	OAuthLimits Bucket = "oauth_limits"
)

// Keys of the Meta bucket.
const (
	// MetaKeysRev is the key table's revision: every change to Keys (and,
	// with #20, to an account's tier) adds 1 in the same transaction.
	// Servers read it once a second and reload the key table when it moved,
	// so that every process and replica sees a change within a second.
	MetaKeysRev = "keys.rev"

	// MetaOAuthRev is the revision of OAuthRevoked: every grant ended adds
	// 1. Processes that verify OAuth access tokens read it at most once a
	// second and reload the ended grants when it moved.
	MetaOAuthRev = "oauth.rev"
)

// MaxKeyLen is the longest key a store accepts, in bytes.
const MaxKeyLen = 512

// Kind is what a bucket holds.
type Kind uint8

// Kinds of buckets.
const (
	KindNone     Kind = iota // not a bucket of the state store
	KindRecords              // byte values (JSON), read and written whole
	KindCounters             // int64 counters, changed by Add
)

// Buckets lists every bucket, in use and reserved.
var Buckets = []Bucket{
	Keys, Usage, Meta, ImportPreviews, Collections, Cohorts, Secrets,
	Accounts, AccountEmails, Sessions, Audit, LastUsed,
	OAuthClients, OAuthRequests, OAuthCodes, OAuthGrants, OAuthRefresh, OAuthRevoked, OAuthLimits,
}

// Kind returns what b holds, or KindNone when b is not declared above.
func (b Bucket) Kind() Kind {
	switch b {
	case Usage, Meta, OAuthLimits:
		return KindCounters
	case Keys, ImportPreviews, Collections, Cohorts, Secrets,
		Accounts, AccountEmails, Sessions, Audit, LastUsed,
		OAuthClients, OAuthRequests, OAuthCodes, OAuthGrants, OAuthRefresh, OAuthRevoked:
		return KindRecords
	}
	return KindNone
}
