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

// Buckets of alerts, webhooks and collection histories (#33). Every key that
// starts with an account id belongs to that account: its data export reads
// them and its deletion removes them (alert.DeleteAccount,
// webhook.DeleteAccount, collection.DeleteHistory).
const (
	// AlertRules (#33) holds want-list entries and alert rules:
	// "<account id>/<rule id>" (rule id "r_" + 16 base32 characters) ->
	// JSON rule (target, condition, source, want-list fields). No expiry.
	// Owner: package alert.
	AlertRules Bucket = "alert_rules"

	// AlertStates (#33) holds each rule's crossing state, written only when
	// it changes: "<account id>/<rule id>" (as AlertRules) -> JSON state
	// (the members of the rule, card ids, whose condition held at the last
	// evaluation, and the snapshot it was). Deleted with the rule, and reset
	// when the rule changes. No expiry. Owner: package alert.
	AlertStates Bucket = "alert_states"

	// AlertEvents (#33) holds each account's fired alerts: "<account
	// id>/<as_of>/<event id>", where <as_of> is the snapshot's day as 8 hex
	// digits and the event id is derived from the snapshot, the rule and the
	// member (so an evaluation done twice inserts nothing twice) -> JSON
	// event. A reverse Scan of "<account id>/" reads them newest first (the
	// feed, the dashboard). Kept 90 days. Owner: package alert.
	AlertEvents Bucket = "alert_events"

	// AlertFeeds (#33) holds the Atom feeds' secret tokens: "a/<account id>"
	// -> JSON {token}, and "t/<hex SHA-256 of the token>" -> JSON account id,
	// written together; a roll replaces both. No expiry. Owner: package
	// alert.
	AlertFeeds Bucket = "alert_feeds"

	// Sweeps (#33) records the progress of background jobs that visit every
	// record of a bucket once per snapshot (package sweep): job id
	// ("alerts/<snapshot id>", "history/<snapshot id>") -> JSON progress
	// (the last key done, counts, done or not). Kept 30 days. Owner: sweep.
	Sweeps Bucket = "sweeps"

	// Leases (#33) holds leases, so that one process of a fleet does a piece
	// of work at a time: "sweep/<job id>" (package sweep) and
	// "webhook/<endpoint id>" (package webhook) -> JSON holder. The TTL is
	// the lease's term, renewed by a Put while the work goes on; a holder
	// that dies leaves the lease to expire. Owners: sweep, webhook.
	Leases Bucket = "leases"

	// WebhookEndpoints (#33) holds webhook endpoints: "<account
	// id>/<endpoint id>" (endpoint id "ep_" + 16 base32 characters) -> JSON
	// endpoint (URL, signing secrets with their expiry, event types,
	// disabled state, the sequence number of its last queued message). No
	// expiry. Owner: package webhook.
	WebhookEndpoints Bucket = "webhook_endpoints"

	// WebhookQueue (#33) holds each endpoint's messages waiting for
	// delivery: "<endpoint id>/<sequence>" (16 hex digits) -> JSON message
	// (id, type, body). Delivered in key order, one at a time; deleted when
	// delivered or given up. Kept 7 days. Owner: package webhook.
	WebhookQueue Bucket = "webhook_queue"

	// WebhookCursors (#33) holds each endpoint's delivery state:
	// "<endpoint id>" -> JSON cursor (the sequence number delivered last, the
	// next attempt's time, attempts of the head message, failing since).
	// No expiry; deleted with the endpoint. Owner: package webhook.
	WebhookCursors Bucket = "webhook_cursors"

	// WebhookLog (#33) is each endpoint's delivery log: "<endpoint
	// id>/<time>/<sequence>/<attempt>", <time> as in Audit, the message's
	// sequence number and the attempt's in hex -> JSON attempt (message id,
	// attempt number, status, latency, the first bytes of the response or
	// the error). Kept 30 days. Owner: package webhook.
	WebhookLog Bucket = "webhook_log"

	// WebhookNotices (#33) holds notices for the dashboard: "<account
	// id>/<time>/<endpoint id>" -> JSON notice (an endpoint disabled after
	// failing for days). Kept 90 days. Owner: package webhook.
	WebhookNotices Bucket = "webhook_notices"

	// CollectionHistory (#33) holds the value of each collection at each
	// snapshot: "<owner id>/<as_of>" (YYYY-MM-DD; a later snapshot of the same
	// day replaces it) -> JSON point (snapshot id, value per source with its
	// confidence). Kept 800 days. Owner: package collection.
	CollectionHistory Bucket = "collection_history"
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
	AlertRules, AlertStates, AlertEvents, AlertFeeds, Sweeps, Leases,
	WebhookEndpoints, WebhookQueue, WebhookCursors, WebhookLog, WebhookNotices,
	CollectionHistory,
}

// Kind returns what b holds, or KindNone when b is not declared above.
func (b Bucket) Kind() Kind {
	switch b {
	case Usage, Meta, OAuthLimits:
		return KindCounters
	case Keys, ImportPreviews, Collections, Cohorts, Secrets,
		Accounts, AccountEmails, Sessions, Audit, LastUsed,
		OAuthClients, OAuthRequests, OAuthCodes, OAuthGrants, OAuthRefresh, OAuthRevoked,
		AlertRules, AlertStates, AlertEvents, AlertFeeds, Sweeps, Leases,
		WebhookEndpoints, WebhookQueue, WebhookCursors, WebhookLog, WebhookNotices,
		CollectionHistory:
		return KindRecords
	}
	return KindNone
}
