package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/state"
	"github.com/golang-jwt/jwt/v5"
)

// Access tokens are JWTs (RFC 9068's profile) signed with HS256 by a key of
// the state store's secrets:
//
//	header  {"alg": "HS256", "typ": "at+jwt", "kid": "ok_..."}
//	claims  {"iss": <issuer>, "aud": [<resource>], "sub": <account id>,
//	         "client_id": ..., "scope": "market:read ...", "gid": <grant id>,
//	         "tier": "free|pro|elite", "iat", "exp": iat + AccessTTL, "jti"}
//
// Any replica verifies one without the store: signature, type, issuer,
// audience (the resource asked about), expiry. Revocation reaches the
// verifiers through the ended grants (state.OAuthRevoked), which a Server
// reloads when state.MetaOAuthRev moved, read at most once a second.

// TokenType is the JWT "typ" of access tokens (RFC 9068).
const TokenType = "at+jwt"

type accessClaims struct {
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
	Grant    string `json:"gid"`
	Tier     string `json:"tier"`
	jwt.RegisteredClaims
}

// Claims are what a verified access token says.
type Claims struct {
	Account string      // the account that granted it ("a_...")
	Tier    access.Tier // the account's tier when the token was minted
	Scopes  []string    // granted scopes (Scopes order)
	Client  string      // the client id
	Grant   string      // the grant id ("og_...")
	Expires time.Time
}

// Has reports whether the token was granted scope.
func (c Claims) Has(scope string) bool { return slices.Contains(c.Scopes, scope) }

// mint returns a signed access token for grant g, whose account has tier.
func (s *Server) mint(g Grant, tier access.Tier) (string, error) {
	k, err := s.keys.current()
	if err != nil {
		return "", err
	}
	var jti [12]byte
	if _, err := rand.Read(jti[:]); err != nil {
		return "", err
	}
	iat := s.now().Truncate(time.Second)
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, accessClaims{ClientID: g.ClientID, Scope: strings.Join(g.Scopes, " "),
		Grant: g.ID, Tier: tier.String(), RegisteredClaims: jwt.RegisteredClaims{
			Issuer: s.issuer, Subject: g.Account, Audience: jwt.ClaimStrings{g.Resource},
			IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(iat.Add(s.opts.AccessTTL)),
			ID: base64.RawURLEncoding.EncodeToString(jti[:]),
		}})
	t.Header["typ"] = TokenType
	t.Header["kid"] = k.ID
	v, err := t.SignedString(k.Secret)
	if err != nil {
		return "", fmt.Errorf("oauth: sign: %w", err)
	}
	return v, nil
}

// Messages of refused access tokens.
const (
	msgInvalid = "invalid access token: connect the app again"
	msgRevoked = "this app's access was revoked: connect it again"
)

// maxTokenLen bounds the access tokens Verify reads (ours are about 500
// bytes).
const maxTokenLen = 4096

// IsAccessToken reports whether a bearer credential looks like one of this
// server's access tokens: a JWT whose header says typ "at+jwt". It reads the
// header only (no signature check), for a front door that must pick the
// verifier of a credential (API key, chat-user token, OAuth token).
func IsAccessToken(tok []byte) bool {
	if len(tok) > maxTokenLen || len(tok) < 10 || string(tok[:3]) != "eyJ" {
		return false
	}
	head, _, ok := strings.Cut(string(tok), ".")
	if !ok {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return false
	}
	var h struct {
		Typ string `json:"typ"`
	}
	return json.Unmarshal(b, &h) == nil && strings.EqualFold(h.Typ, TokenType)
}

// parseAccess checks an access token's signature, type and issuer (and,
// with checkExp, its expiry) and returns its claims; the audience is the
// caller's to check.
func (s *Server) parseAccess(token string, checkExp bool) (Claims, error) {
	cl, _, err := s.parseAccessAud(token, checkExp)
	return cl, err
}

// parseAccessAud is parseAccess, also returning the token's audiences.
func (s *Server) parseAccessAud(token string, checkExp bool) (Claims, []string, error) {
	if len(token) > maxTokenLen {
		return Claims{}, nil, &TokenError{Reason: ReasonInvalid, Message: msgInvalid}
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(s.issuer),
		jwt.WithIssuedAt(), jwt.WithTimeFunc(s.now), jwt.WithLeeway(5 * time.Second)}
	if checkExp {
		opts = append(opts, jwt.WithExpirationRequired())
	} else {
		opts = append(opts, jwt.WithoutClaimsValidation())
	}
	var cl accessClaims
	tok, err := jwt.NewParser(opts...).ParseWithClaims(token, &cl, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); !strings.EqualFold(typ, TokenType) {
			return nil, errors.New("not an access token")
		}
		kid, _ := t.Header["kid"].(string)
		secret, ok := s.keys.verifyKey(kid)
		if !ok {
			return nil, errors.New("unknown or retired signing key")
		}
		return secret, nil
	})
	switch {
	case err == nil && tok.Valid:
	case errors.Is(err, jwt.ErrTokenExpired) && cl.ExpiresAt != nil:
		return Claims{}, nil, &TokenError{Reason: ReasonExpired, Message: fmt.Sprintf(
			"access token expired at %s: tokens work %s; the app refreshes it", cl.ExpiresAt.UTC().Format(time.RFC3339), s.opts.AccessTTL)}
	default:
		return Claims{}, nil, &TokenError{Reason: ReasonInvalid, Message: msgInvalid}
	}
	tier, terr := access.ParseTier(cl.Tier)
	if terr != nil || tier == access.Playground || cl.Subject == "" || cl.Grant == "" || cl.ClientID == "" || cl.ExpiresAt == nil {
		return Claims{}, nil, &TokenError{Reason: ReasonInvalid, Message: msgInvalid}
	}
	return Claims{Account: cl.Subject, Tier: tier, Scopes: normalizeScopes(strings.Fields(cl.Scope)), Client: cl.ClientID,
		Grant: cl.Grant, Expires: cl.ExpiresAt.UTC()}, cl.Audience, nil
}

// Verify verifies an access token presented to resource (the URL the
// request was for: Resource() for the MCP endpoint) and returns its claims.
// Errors are *TokenError: invalid (malformed, forged, another issuer or
// type), expired, audience (minted for another resource), revoked (its
// grant ended). Verify reads the store at most once a second (the ended
// grants' revision), never per token.
func (s *Server) Verify(token []byte, resource string) (Claims, error) {
	cl, auds, err := s.parseAccessAud(string(token), true)
	if err != nil {
		return Claims{}, err
	}
	if !slices.Contains(auds, canonicalResource(resource)) {
		return Claims{}, &TokenError{Reason: ReasonAudience, Message: fmt.Sprintf(
			"this access token is for another resource, not %s: the app must ask for a token for this server", trunc(resource, 200))}
	}
	if s.ended(cl.Grant) {
		return Claims{}, &TokenError{Reason: ReasonRevoked, Message: msgRevoked}
	}
	return cl, nil
}

// canonicalResource adds the trailing slash the resource identifier has.
func canonicalResource(r string) string {
	if strings.HasSuffix(r, "/") {
		return r
	}
	return r + "/"
}

// ended reports whether grant gid has ended, after reloading the ended
// grants when their revision moved (checked at most once a second; one
// caller reads while the others go on with what is known).
func (s *Server) ended(gid string) bool {
	now := s.now()
	s.revMu.Lock()
	due := !s.revLoading && (s.revChecked.IsZero() || now.Sub(s.revChecked) >= time.Second || now.Before(s.revChecked))
	if due {
		s.revLoading = true
	}
	s.revMu.Unlock()
	if due {
		err := s.loadEnded()
		s.revMu.Lock()
		s.revLoading, s.revChecked = false, now
		s.revMu.Unlock()
		if err != nil {
			s.log.Warn("oauth: reading the revoked grants; going on with the known ones", "err", err)
		}
	}
	s.revMu.Lock()
	_, gone := s.revoked[gid]
	s.revMu.Unlock()
	return gone
}

// loadEnded reads the ended grants when MetaOAuthRev moved.
func (s *Server) loadEnded() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.revMu.Lock()
	known := s.revRev
	s.revMu.Unlock()
	var rev int64
	var set map[string]time.Time
	err := s.st.View(ctx, func(tx state.Tx) (err error) {
		if rev, err = tx.Count(state.Meta, state.MetaOAuthRev); err != nil || rev == known {
			return err
		}
		set = map[string]time.Time{}
		return revokeds.Scan(tx, state.ScanOptions{}, func(k string, r revokedRecord) error {
			set[k] = r.Time
			return nil
		})
	})
	if err != nil || set == nil {
		return err
	}
	s.revMu.Lock()
	s.revoked, s.revRev = set, rev
	s.revMu.Unlock()
	return nil
}

// Challenge returns the WWW-Authenticate value of a 401 (or 403) of the
// protected resource (RFC 6750 section 3, RFC 9728 section 5.1): err nil for
// a request without a token, a *TokenError for a refused token, and any
// other error as an invalid token. It names the resource metadata and the
// scopes to ask for.
func (s *Server) Challenge(err error) string {
	v := `Bearer resource_metadata="` + s.ResourceMetadataURL() + `", scope="` + strings.Join(ScopeNames(), " ") + `"`
	if err == nil {
		return v
	}
	msg := msgInvalid
	var te *TokenError
	if errors.As(err, &te) {
		msg = te.Message
	}
	return v + `, error="invalid_token", error_description="` + quoteSafe(msg) + `"`
}

// InsufficientScope returns the WWW-Authenticate value of a 403 for a tool
// that needs scope (RFC 6750 section 3.1).
func (s *Server) InsufficientScope(scope string) string {
	return `Bearer resource_metadata="` + s.ResourceMetadataURL() + `", error="insufficient_scope", scope="` + quoteSafe(scope) +
		`", error_description="this needs the ` + quoteSafe(scope) + ` scope: connect the app again and allow it"`
}

// quoteSafe keeps the characters RFC 6750 allows in a quoted value.
func quoteSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x20 && r <= 0x7e && r != '"' && r != '\\' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sortGrants(g []Grant) {
	sort.Slice(g, func(i, j int) bool {
		if !g[i].Created.Equal(g[j].Created) {
			return g[i].Created.After(g[j].Created)
		}
		return g[i].ID < g[j].ID
	})
}

// IsAppToken is IsAccessToken, as the access layer asks it
// (access.AppVerifier).
func (s *Server) IsAppToken(tok []byte) bool { return IsAccessToken(tok) }

// VerifyApp verifies tok as presented to the MCP endpoint (Resource) and
// returns what the access layer needs of it (access.AppVerifier). Errors
// are Verify's *TokenError.
func (s *Server) VerifyApp(tok []byte) (access.AppClaims, error) {
	cl, err := s.Verify(tok, s.resource)
	if err != nil {
		return access.AppClaims{}, err
	}
	return access.AppClaims{Account: cl.Account, Tier: cl.Tier, Collection: cl.Has(ScopeCollection)}, nil
}

var _ access.AppVerifier = (*Server)(nil)
