// Package account is the dashboard's domain: accounts (email and password),
// their sessions, their audit logs and the operations on their API keys. It
// knows no HTTP (package web serves the pages) and no bbolt (it goes through
// the state store's interface).
//
// It imports the standard library, snapshots (error codes), state, access
// (keys and tiers: access.InsertKey and friends run inside this package's
// transactions), golang.org/x/crypto/argon2, golang.org/x/text (NFKC) and
// github.com/trustelem/zxcvbn/frequency (the password blocklist).
//
// # Passwords
//
// Stored as Argon2id PHC strings ("$argon2id$v=19$m=19456,t=2,p=1$salt$hash"),
// with OWASP's minimum parameters by default (Options.Hash): a hash with
// weaker parameters than the current ones is redone at the next successful
// sign-in. Hashing takes Hash.Memory for its duration; Options.MaxHashing
// (the number of CPUs) bounds how many run at once, so a burst of sign-ins
// queues instead of exhausting memory (each waits up to HashWait, then gets
// EQUOTA "busy").
//
// The rules are NIST SP 800-63B's: 8 to 256 characters after NFKC
// normalization, every character allowed, no composition rules, and a
// blocklist: zxcvbn's dictionaries of common passwords and words (see
// blocklist.go for the source and its license), plus the service's name and
// the account's email.
//
// # Sign-in
//
// SignIn answers an unknown email and a wrong password alike (EUNAUTHORIZED,
// "the email or the password is not right") after the same work: an unknown
// email is checked against a dummy hash with the same parameters, and the
// audit event of a failed attempt on a real account is written in the
// background. Attempts are throttled in memory by failures per email and per
// client address (Throttle): see Throttle for why the owner of an attacked
// account still signs in from elsewhere.
//
// # Sessions
//
// A session id is 256 random bits, sent to the browser once (a cookie) and
// stored as its SHA-256 (state.Sessions) with its account, a CSRF token and
// its times; a new id is drawn at every sign-in (no fixation). Sessions end
// after Options.SessionIdle unused, Options.SessionMax at most, at sign-out,
// at "sign out everywhere", when the password changes (every other session)
// or is reset, and when the account is disabled. A session may carry one
// flash (SetFlash, TakeFlash): a sealed one-time message for the next page,
// such as a new key's secret, which only the holder of the session id can
// open.
//
// # Keys
//
// CreateKey, RollKey and RevokeKey take the account id of the signed-in
// session; a key of another account is ENOTFOUND, as a key that does not
// exist. A key takes its account's tier, and SetTier rewrites the tier of
// every key of the account in the same transaction (running servers reload
// the key table within a second). Lifetimes are 30, 90, 365 days or never,
// capped by Options.KeyMaxDays; a roll keeps the key's name, tier, settings
// and lifetime, and the old key works for its grace period (none, 1 hour or 24
// hours), then is a 401 key_expired.
//
// # Audit log
//
// Every change and every sign-in is an Event (time, what, client address) in
// state.Audit, kept AuditRetention (365 days), read newest first.
//
// # Caveats
//
// The sign-in throttle and the hashing slots are per process: n replicas
// allow n times the attempts. Errors are *apperr.Error with codes
// EINVALID, EUNAUTHORIZED, EFORBIDDEN, ENOTFOUND and EQUOTA; store errors wrap
// the sentinels of package state.
package account
