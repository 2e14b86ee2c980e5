package access

import (
	"context"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// Chat-user tokens. A signed-in dashboard page obtains a short-lived JWT for
// the web chat (package chattoken mints and verifies them) and sends it as
// "Authorization: Bearer <token>" to the agent chat and to MCP: only those
// call AuthenticateChat, every other route calls Authenticate, which refuses
// a token with a 401 that says where it works. The edge tells a token from
// an API key by its shape (LooksLikeJWT), so the API-key path pays nothing
// for tokens.
//
// A token's caller has KeyID set to its account's id ("a_..."): its calls
// are counted and limited under that id with its tier's daily quota and
// rate, the account's chat quota, apart from each of the account's keys.
// MCP sessions and cohorts of a token belong to the account likewise.

// ChatClaims is what a verified chat-user token says.
type ChatClaims struct {
	Account string    // the account it was minted for ("a_...")
	Tier    Tier      // the account's tier when it was minted (free, pro, elite)
	Expires time.Time // when it stops working
}

// ChatVerifier verifies chat-user tokens (package chattoken implements it).
type ChatVerifier interface {
	// VerifyChat returns the claims of token, or an EUNAUTHORIZED
	// *apperr.Error whose message says why it is refused (expired, not
	// a chat token, invalid).
	VerifyChat(token []byte) (ChatClaims, error)
}

// AppsAccess reports whether tier t has Apps access: the web chat's extra
// MCP tools (show_cards, price_card, the collection operations) through a
// chat-user token. Pro and Elite have it.
func AppsAccess(t Tier) bool { return t == Pro || t == Elite }

// Chat reports whether c was authenticated by a chat-user token.
func (c Caller) Chat() bool { return c.Account != "" && !c.App }

// ChatTools reports whether c may use the web chat's extra MCP tools
// (show_cards, price_card, the collection operations): a chat-user token, or
// a connected app granted the collection scope, of a tier with Apps access.
// API keys never do.
func (c Caller) ChatTools() bool {
	return AppsAccess(c.Tier) && (c.Chat() || c.App && c.Collection)
}

// maxJWTLen bounds what LooksLikeJWT accepts (ours are about 300 bytes).
const maxJWTLen = 4096

// LooksLikeJWT reports whether a bearer credential has the shape of a JWT
// (JWS compact serialization): three base64url segments joined by dots, the
// first a JSON object ("eyJ"). API keys ("ce_...") never do.
func LooksLikeJWT(tok []byte) bool {
	if len(tok) < 10 || len(tok) > maxJWTLen || string(tok[:3]) != "eyJ" {
		return false
	}
	dots := 0
	for _, c := range tok {
		if c == '.' {
			dots++
			continue
		}
		if b64url[c] == 0 {
			return false
		}
	}
	return dots == 2 && tok[len(tok)-1] != '.'
}

// Messages of the 401s of chat-user tokens.
const (
	msgChatOnly     = "a chat-user token is accepted only by the agent chat (POST /api/v3/agent/chat) and MCP (/api/v3/mcp/); call this route with an API key"
	msgChatDisabled = "chat-user tokens are not enabled on this server"
)

// AuthenticateChat is Authenticate for the routes that also take chat-user
// tokens (the agent chat and MCP): an Authorization value "Bearer <JWT>"
// (LooksLikeJWT) is verified by Options.Chat and gives a Caller of the
// token's account and tier (see Caller.Account); anything else is
// Authenticate's. Errors are EUNAUTHORIZED.
func (s *Service) AuthenticateChat(authorization []byte, clientAddr string) (Caller, error) {
	const scheme = "bearer "
	if len(authorization) <= len(scheme) || !equalFoldASCII(authorization[:len(scheme)], scheme) || !LooksLikeJWT(authorization[len(scheme):]) {
		return s.Authenticate(authorization, clientAddr)
	}
	if s.opts.Chat == nil {
		return Caller{}, unauthorized(msgChatDisabled)
	}
	cl, err := s.opts.Chat.VerifyChat(authorization[len(scheme):])
	if err != nil {
		if apperr.ErrorCode(err) != apperr.EUNAUTHORIZED {
			s.log.Error("access: verifying a chat token", "err", err)
			return Caller{}, unauthorized("invalid chat token")
		}
		return Caller{}, err
	}
	if cl.Account == "" || !cl.Tier.Valid() || cl.Tier == Playground {
		return Caller{}, unauthorized("invalid chat token")
	}
	return Caller{KeyID: cl.Account, Account: cl.Account, Tier: cl.Tier, ClientAddr: clientAddr, st: s.accountState(cl.Account)}, nil
}

// ChargeAccount charges units to account id's own quota (tier t's daily
// quota and rate, the quota its chat-user tokens spend): the dashboard's
// market pages of a signed-in account call it. EQUOTA when the quota or the
// rate is spent (the decision's Reason and RetryAfter say which and when).
func (s *Service) ChargeAccount(id string, t Tier, units int) (Decision, error) {
	return s.Charge(Caller{KeyID: id, Account: id, Tier: t, st: s.accountState(id)}, units)
}

// accountState returns the usage state of account id's chat calls, made on
// first use with today's count read from the state store (so a restart does
// not grant a fresh quota); the sync keeps it current like a key's.
func (s *Service) accountState(id string) *keyState {
	s.statesMu.Lock()
	st := s.states[id]
	fresh := st == nil
	if fresh {
		st = &keyState{id: id, account: true}
		s.states[id] = st
	}
	s.statesMu.Unlock()
	if !fresh {
		return st
	}
	today := dayOf(s.now())
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.LockTimeout)
	defer cancel()
	var n int64
	if err := s.store.View(ctx, func(tx state.Tx) (err error) {
		n, err = tx.Count(state.Usage, usageKey(id, today))
		return err
	}); err != nil {
		s.log.Warn("access: reading an account's chat usage; the next sync reads it", "account", id, "err", err)
		return st
	}
	st.mu.Lock()
	if st.rollover(today) == today {
		st.used, st.floor = max(st.used, n+st.pend.on(today)), n
	}
	st.mu.Unlock()
	return st
}

// Connected apps. An MCP host (Claude, ChatGPT, VS Code) that the account
// connected through OAuth (package oauth) sends "Authorization: Bearer
// <access token>" to MCP, and only MCP (AuthenticateMCP) takes it. Its caller
// is the account's, as a chat-user token's is: the account's tier, quota and
// rate; Collection says whether the chat tools are granted.

// AppClaims is what a verified access token of a connected app says.
type AppClaims struct {
	Account    string // the account that connected the app ("a_...")
	Tier       Tier   // the account's tier when the token was minted
	Collection bool   // granted the collection scope
}

// AppVerifier verifies connected apps' access tokens (package oauth's
// Server implements it).
type AppVerifier interface {
	// IsAppToken reports whether a bearer credential has the shape of an
	// app's access token (no check of its signature).
	IsAppToken(tok []byte) bool
	// VerifyApp returns the claims of tok, or an error that unwraps to an
	// EUNAUTHORIZED *apperr.Error saying why it is refused (expired,
	// another resource, revoked, invalid); the front door names the
	// authorization server in its 401 (WWW-Authenticate).
	VerifyApp(tok []byte) (AppClaims, error)
}

// AuthenticateMCP is AuthenticateChat for the MCP endpoint: it also takes a
// connected app's access token (Options.Apps). Errors are EUNAUTHORIZED; an
// app token's refusal keeps the verifier's error in its chain.
func (s *Service) AuthenticateMCP(authorization []byte, clientAddr string) (Caller, error) {
	const scheme = "bearer "
	if s.opts.Apps == nil || len(authorization) <= len(scheme) || !equalFoldASCII(authorization[:len(scheme)], scheme) ||
		!s.opts.Apps.IsAppToken(authorization[len(scheme):]) {
		return s.AuthenticateChat(authorization, clientAddr)
	}
	cl, err := s.opts.Apps.VerifyApp(authorization[len(scheme):])
	if err != nil {
		if apperr.ErrorCode(err) != apperr.EUNAUTHORIZED {
			s.log.Error("access: verifying an app's access token", "err", err)
			return Caller{}, unauthorized("invalid access token")
		}
		return Caller{}, err
	}
	if cl.Account == "" || !cl.Tier.Valid() || cl.Tier == Playground {
		return Caller{}, unauthorized("invalid access token")
	}
	return Caller{KeyID: cl.Account, Account: cl.Account, Tier: cl.Tier, App: true, Collection: cl.Collection,
		ClientAddr: clientAddr, st: s.accountState(cl.Account)}, nil
}
