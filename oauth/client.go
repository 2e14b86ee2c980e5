package oauth

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cardedge/cardedge/state"
)

// Token endpoint authentication methods (RFC 7591 section 2).
const (
	AuthNone              = "none"                // public clients: PKCE alone
	AuthClientSecretPost  = "client_secret_post"  // client_secret in the form
	AuthClientSecretBasic = "client_secret_basic" // HTTP Basic
)

// Grant types and the response type a client may use.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantRefreshToken      = "refresh_token"
	ResponseTypeCode       = "code"
)

// Limits of client metadata.
const (
	maxRedirectURIs   = 10
	maxRedirectURILen = 512
	maxClientNameLen  = 100
	maxRegisterBody   = 16 << 10
)

// Client is an app that may ask for authorization: registered here (RFC
// 7591) or described by its Client ID Metadata Document.
type Client struct {
	ID           string    `json:"client_id"`
	Name         string    `json:"client_name,omitempty"`
	RedirectURIs []string  `json:"redirect_uris"`
	AuthMethod   string    `json:"token_endpoint_auth_method"`
	GrantTypes   []string  `json:"grant_types"`
	SecretHash   string    `json:"secret_sha256,omitempty"` // client_secret_* only
	Registered   time.Time `json:"registered,omitzero"`
	Addr         string    `json:"addr,omitempty"` // the registering address
	// Renewed is when a grant last renewed the record's TTL.
	Renewed time.Time `json:"renewed,omitzero"`
	// Document is true for a client of a Client ID Metadata Document (its
	// ID is the document's URL); such a client is never stored.
	Document bool `json:"-"`
}

// DisplayName returns the name to show: the client's name, else its
// redirect host.
func (c Client) DisplayName() string {
	if c.Name != "" {
		return c.Name
	}
	if len(c.RedirectURIs) > 0 {
		return RedirectHost(c.RedirectURIs[0])
	}
	return c.ID
}

// RedirectHost returns the host a redirect URI sends the browser to (or its
// scheme, for an app's private-use scheme: "vscode:").
func RedirectHost(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	if u.Host != "" {
		return u.Host
	}
	return u.Scheme + ":"
}

var clients = state.NewTable[Client](state.OAuthClients)

// clientMetadata is the JSON of a registration request (RFC 7591 section
// 2) and of a Client ID Metadata Document. Fields this server does not use
// (logo_uri, client_uri, contacts, software_id...) are accepted and
// ignored: a logo or link chosen by the app is never shown.
type clientMetadata struct {
	ClientID      string          `json:"client_id"`
	ClientSecret  json.RawMessage `json:"client_secret"`
	RedirectURIs  []string        `json:"redirect_uris"`
	ClientName    string          `json:"client_name"`
	AuthMethod    string          `json:"token_endpoint_auth_method"`
	GrantTypes    []string        `json:"grant_types"`
	ResponseTypes []string        `json:"response_types"`
	Scope         string          `json:"scope"`
	JWKS          json.RawMessage `json:"jwks"`
	JWKSURI       string          `json:"jwks_uri"`
}

// parseClientMetadata decodes and checks a registration request or a
// metadata document: a JSON object with valid redirect URIs, a name of
// printable characters, the code response type and the grant types this
// server has. document selects the rules of Client ID Metadata Documents
// (public clients only). Errors are invalid_client_metadata or
// invalid_redirect_uri.
func parseClientMetadata(body []byte, document bool) (Client, error) {
	var m clientMetadata
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil {
		return Client{}, metadataErr("the client metadata is not a JSON object of RFC 7591's fields: %v", jsonProblem(err))
	}
	if dec.More() {
		return Client{}, metadataErr("the client metadata has data after its JSON object")
	}
	var c Client
	if len(m.RedirectURIs) == 0 {
		return Client{}, oauthErr(CodeInvalidRedirectURI, 400, "redirect_uris is required: name the URIs the app receives its codes at")
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return Client{}, oauthErr(CodeInvalidRedirectURI, 400, "at most %d redirect_uris, not %d", maxRedirectURIs, len(m.RedirectURIs))
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return Client{}, err
		}
		if !slices.Contains(c.RedirectURIs, u) {
			c.RedirectURIs = append(c.RedirectURIs, u)
		}
	}
	name, err := cleanName(m.ClientName)
	if err != nil {
		return Client{}, err
	}
	c.Name = name
	for _, rt := range m.ResponseTypes {
		if rt != ResponseTypeCode {
			return Client{}, metadataErr("response type %q is not supported: only \"code\"", trunc(rt, 40))
		}
	}
	c.GrantTypes = []string{GrantAuthorizationCode, GrantRefreshToken}
	if len(m.GrantTypes) > 0 {
		c.GrantTypes = nil
		for _, g := range m.GrantTypes {
			if g != GrantAuthorizationCode && g != GrantRefreshToken {
				return Client{}, metadataErr("grant type %q is not supported: only authorization_code and refresh_token", trunc(g, 40))
			}
			if !slices.Contains(c.GrantTypes, g) {
				c.GrantTypes = append(c.GrantTypes, g)
			}
		}
		if !slices.Contains(c.GrantTypes, GrantAuthorizationCode) {
			return Client{}, metadataErr("grant_types must include authorization_code")
		}
	}
	if m.Scope != "" {
		if _, err := parseScope(m.Scope); err != nil {
			return Client{}, metadataErr("%s", err.(*Error).Description)
		}
	}
	if len(m.JWKS) > 0 || m.JWKSURI != "" {
		return Client{}, metadataErr("jwks and jwks_uri are not supported: this server has no private_key_jwt client authentication")
	}
	c.AuthMethod = m.AuthMethod
	if document {
		// A document is public: anyone can read it, so it can hold no
		// secret (draft-ietf-oauth-client-id-metadata-document section 4.1).
		if len(m.ClientSecret) > 0 {
			return Client{}, metadataErr("a client metadata document must not contain a client_secret")
		}
		if c.AuthMethod == "" {
			c.AuthMethod = AuthNone
		}
		if c.AuthMethod != AuthNone {
			return Client{}, metadataErr("token_endpoint_auth_method %q is not supported for a client metadata document: use \"none\"", trunc(c.AuthMethod, 40))
		}
		c.ID = m.ClientID
		return c, nil
	}
	if m.ClientID != "" || len(m.ClientSecret) > 0 {
		return Client{}, metadataErr("client_id and client_secret are assigned by the server, not sent")
	}
	if c.AuthMethod == "" {
		c.AuthMethod = AuthClientSecretBasic // RFC 7591 section 2's default
	}
	if c.AuthMethod != AuthNone && c.AuthMethod != AuthClientSecretPost && c.AuthMethod != AuthClientSecretBasic {
		return Client{}, metadataErr("token_endpoint_auth_method %q is not supported: use none, client_secret_post or client_secret_basic", trunc(c.AuthMethod, 40))
	}
	return c, nil
}

func metadataErr(format string, args ...any) *Error {
	return oauthErr(CodeInvalidClientMetadata, 400, format, args...)
}

// jsonProblem says what is wrong with JSON without echoing much of it.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q must be %s", trunc(te.Field, 40), te.Type)
	}
	return "invalid JSON"
}

// cleanName checks a client name: at most maxClientNameLen characters,
// valid UTF-8, no control or format characters (no bidirectional tricks),
// spaces collapsed.
func cleanName(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", metadataErr("client_name is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", metadataErr("client_name must not contain control or formatting characters")
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxClientNameLen {
		return "", metadataErr("client_name is longer than %d characters", maxClientNameLen)
	}
	return s, nil
}

// blockedSchemes can never be redirect URIs: they run or read content
// instead of handing a code to an app.
var blockedSchemes = []string{"javascript", "data", "vbscript", "file", "about", "blob", "filesystem", "view-source", "ws", "wss", "ftp", "mailto"}

// checkRedirectURI checks a redirect URI a client names (RFC 9700 section
// 4.1; RFC 8252 for native apps): absolute, no fragment, no user info; https
// with a host; http only on a loopback host; or an app's private-use scheme
// (reverse domain name style, such as "com.example.app:/callback", or
// "vscode://...").
func checkRedirectURI(raw string) error {
	bad := func(why string) error {
		return oauthErr(CodeInvalidRedirectURI, 400, "redirect URI %q %s", trunc(raw, 100), why)
	}
	if raw == "" || len(raw) > maxRedirectURILen {
		return bad(fmt.Sprintf("must be 1 to %d bytes", maxRedirectURILen))
	}
	for _, r := range raw {
		if r <= ' ' || r == 0x7f || r > 0x7e {
			return bad("must be plain ASCII without spaces (percent-encode other characters)")
		}
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return bad("is not an absolute URI")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return bad("must not have a fragment")
	}
	if u.User != nil {
		return bad("must not contain a user name or password")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "https":
		if u.Host == "" || u.Hostname() == "" {
			return bad("has no host")
		}
	case scheme == "http":
		if !loopbackHost(u.Hostname()) {
			return bad("must be https (http only on a loopback host, for apps on this computer: http://127.0.0.1:PORT/...)")
		}
	case slices.Contains(blockedSchemes, scheme):
		return bad("has a scheme that cannot receive a code")
	default:
		if u.Opaque != "" && !strings.HasPrefix(u.Opaque, "/") {
			return bad("is not an app's redirect URI (scheme:/path or scheme://host/path)")
		}
	}
	if scheme != u.Scheme {
		return bad("must have a lowercase scheme")
	}
	return nil
}

// Register registers a client (RFC 7591) from the JSON body of a
// registration request sent from addr. It returns the client and, for
// client_secret_* methods, its secret (shown to the client once; stored as
// a hash). The client lives UnusedClientTTL until a grant is made with it.
// Registrations are limited to RegisterPerHour per address (a 429 Error).
func (s *Server) Register(ctx context.Context, body []byte, addr string) (Client, string, error) {
	if s.opts.RegisterPerHour < 0 {
		return Client{}, "", oauthErr(CodeInvalidRequest, http.StatusForbidden, "dynamic client registration is off on this server: use a client metadata document (an https URL as client_id)")
	}
	if len(body) > maxRegisterBody {
		return Client{}, "", metadataErr("the registration request is larger than %d bytes", maxRegisterBody)
	}
	c, err := parseClientMetadata(body, false)
	if err != nil {
		return Client{}, "", err
	}
	if c.ID, err = newID("oc_"); err != nil {
		return Client{}, "", err
	}
	var secret string
	if c.AuthMethod != AuthNone {
		if secret, err = newSecret("ceos_"); err != nil {
			return Client{}, "", err
		}
		c.SecretHash = hashSecret(secret)
	}
	now := s.now().UTC()
	c.Registered, c.Addr = now.Truncate(time.Second), addr
	limitKey := fmt.Sprintf("register/%s/%d", addr, now.Unix()/3600)
	err = s.st.Update(ctx, func(tx state.Tx) error {
		n, err := tx.Count(state.OAuthLimits, limitKey)
		if err != nil {
			return err
		}
		if n >= int64(s.opts.RegisterPerHour) {
			return oauthErr(CodeInvalidRequest, http.StatusTooManyRequests, "too many client registrations from your address; try again within the hour")
		}
		if err := tx.Add(state.OAuthLimits, limitKey, 1, time.Hour); err != nil {
			return err
		}
		return clients.Insert(tx, c.ID, c, s.opts.UnusedClientTTL)
	})
	if err != nil {
		return Client{}, "", err
	}
	return c, secret, nil
}

// lookupClient returns the client of id: registered (read in its own
// transaction) or, for an https URL, its metadata document (fetched or
// cached). Unknown or unusable: invalid_client (401).
func (s *Server) lookupClient(ctx context.Context, id string) (Client, error) {
	if isURLClientID(id) {
		if s.opts.CIMD.Disabled {
			return Client{}, invalidClient("client ids that are URLs (client metadata documents) are not accepted by this server")
		}
		return s.cimd.client(ctx, id)
	}
	var c Client
	err := s.st.View(ctx, func(tx state.Tx) (err error) {
		c, err = getClient(tx, id)
		return err
	})
	return c, err
}

// getClient reads registered client id in tx: invalid_client when there is
// none (never registered, or pruned).
func getClient(tx state.Tx, id string) (Client, error) {
	if id == "" || len(id) > 64 || !strings.HasPrefix(id, "oc_") {
		return Client{}, invalidClient("unknown client %q: register it first (RFC 7591) or use a client metadata document", trunc(id, 64))
	}
	c, err := clients.Get(tx, id)
	if errors.Is(err, state.ErrNotFound) {
		return Client{}, invalidClient("unknown client %q: it was never registered, or was removed after going unused; register again", trunc(id, 64))
	}
	return c, err
}

// isURLClientID reports whether a client id is meant as a metadata
// document's URL.
func isURLClientID(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// ClientCredentials are what a token or revocation request says of its
// client: its id, and its secret for a confidential client (sent in the
// form, or with HTTP Basic).
type ClientCredentials struct {
	ID, Secret string
	Basic      bool // sent with HTTP Basic
}

// authenticate checks a request's client credentials against client c
// (looked up by id): the method it registered, and its secret.
func authenticate(c Client, cred ClientCredentials) error {
	switch c.AuthMethod {
	case AuthNone:
		if cred.Secret != "" {
			return invalidClient("this client is public (token_endpoint_auth_method none): send no client_secret")
		}
		return nil
	case AuthClientSecretPost, AuthClientSecretBasic:
		if cred.Secret == "" {
			return invalidClient("client authentication required: send the client_secret (%s)", c.AuthMethod)
		}
		if cred.Basic != (c.AuthMethod == AuthClientSecretBasic) {
			return invalidClient("this client authenticates with %s", c.AuthMethod)
		}
		if subtle.ConstantTimeCompare([]byte(hashSecret(cred.Secret)), []byte(c.SecretHash)) != 1 {
			return invalidClient("client authentication failed")
		}
		return nil
	}
	return invalidClient("client authentication failed")
}

// renewClient extends a registered client's TTL after a grant used it: the
// refresh tokens' idle lifetime plus a day from now, written at most once a
// day. Document clients are not stored.
func (s *Server) renewClient(tx state.Tx, id string, now time.Time) error {
	if isURLClientID(id) {
		return nil
	}
	c, err := clients.Get(tx, id)
	if errors.Is(err, state.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if now.Sub(c.Renewed) < 24*time.Hour {
		return nil
	}
	c.Renewed = now
	return clients.Put(tx, id, c, s.opts.RefreshIdle+24*time.Hour)
}
