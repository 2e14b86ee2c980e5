package oauth

import (
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/apperr"
)

// Paths of the endpoints Handler serves.
const (
	PathASMetadata  = "/.well-known/oauth-authorization-server"
	PathPRMetadata  = "/.well-known/oauth-protected-resource"
	PathRegister    = "/oauth/register"
	PathAuthorize   = "/oauth/authorize"
	PathToken       = "/oauth/token"
	PathRevoke      = "/oauth/revoke"
	maxFormBody     = 64 << 10
	metadataMaxAge  = 3600
	registerRetryIn = 3600
)

// Handler returns the HTTP endpoints of the authorization server (net/http;
// package edge mounts them through its adaptor, as it mounts the
// dashboard): the metadata of the authorization server (RFC 8414) and of
// the protected resource (RFC 9728, at the root and path-suffixed forms),
// registration (RFC 7591), authorization, token and revocation (RFC 7009).
// Requests' client address is their RemoteAddr.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathASMetadata, s.handleASMetadata)
	mux.HandleFunc("GET "+PathPRMetadata, s.handlePRMetadata)
	suffix := strings.TrimSuffix(s.opts.ResourcePath, "/")
	mux.HandleFunc("GET "+PathPRMetadata+suffix, s.handlePRMetadata)
	mux.HandleFunc("GET "+PathPRMetadata+suffix+"/", s.handlePRMetadata)
	mux.HandleFunc("POST "+PathRegister, s.handleRegister)
	mux.HandleFunc("GET "+PathAuthorize, s.handleAuthorize)
	mux.HandleFunc("POST "+PathAuthorize, s.handleAuthorize)
	mux.HandleFunc("POST "+PathToken, s.handleToken)
	mux.HandleFunc("POST "+PathRevoke, s.handleRevoke)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		if r.URL.Path != PathAuthorize {
			// Browser-based MCP clients call these from their own origin;
			// no cookie is read here, so any origin may.
			h.Set("Access-Control-Allow-Origin", "*")
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
				h.Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// ASMetadata is the authorization server's metadata (RFC 8414).
type ASMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseISSSupported bool     `json:"authorization_response_iss_parameter_supported"`
	ServiceDocumentation              string   `json:"service_documentation,omitempty"`
	ResourceIndicatorsSupported       bool     `json:"resource_indicators_supported"`
	ProtectedResources                []string `json:"protected_resources,omitempty"`
}

// Metadata returns the authorization server's metadata.
func (s *Server) Metadata() ASMetadata {
	auth := []string{AuthNone, AuthClientSecretPost, AuthClientSecretBasic}
	m := ASMetadata{
		Issuer: s.issuer, AuthorizationEndpoint: s.issuer + PathAuthorize, TokenEndpoint: s.issuer + PathToken,
		RevocationEndpoint: s.issuer + PathRevoke, ScopesSupported: ScopeNames(),
		ResponseTypesSupported: []string{ResponseTypeCode}, ResponseModesSupported: []string{"query"},
		GrantTypesSupported:               []string{GrantAuthorizationCode, GrantRefreshToken},
		TokenEndpointAuthMethodsSupported: auth, RevocationEndpointAuthMethods: auth,
		CodeChallengeMethodsSupported:     []string{"S256"},
		ClientIDMetadataDocumentSupported: !s.opts.CIMD.Disabled, AuthorizationResponseISSSupported: true,
		ServiceDocumentation: s.opts.ServiceDocumentation,
		ProtectedResources:   []string{s.resource},
	}
	if s.opts.RegisterPerHour >= 0 {
		m.RegistrationEndpoint = s.issuer + PathRegister
	}
	return m
}

// PRMetadata is the protected resource's metadata (RFC 9728).
type PRMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// ResourceMetadata returns the protected resource's metadata.
func (s *Server) ResourceMetadata() PRMetadata {
	return PRMetadata{Resource: s.resource, AuthorizationServers: []string{s.issuer}, ScopesSupported: ScopeNames(),
		BearerMethodsSupported: []string{"header"}, ResourceName: "cardedge MCP server",
		ResourceDocumentation: s.opts.ServiceDocumentation}
}

func (s *Server) handleASMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(metadataMaxAge))
	writeJSON(w, http.StatusOK, s.Metadata())
}

func (s *Server) handlePRMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(metadataMaxAge))
	writeJSON(w, http.StatusOK, s.ResourceMetadata())
}

// registerResponse is the answer of a registration (RFC 7591 section 3.2.1).
type registerResponse struct {
	ClientID              string   `json:"client_id"`
	ClientSecret          string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt      int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt *int64   `json:"client_secret_expires_at,omitempty"`
	ClientName            string   `json:"client_name,omitempty"`
	RedirectURIs          []string `json:"redirect_uris"`
	GrantTypes            []string `json:"grant_types"`
	ResponseTypes         []string `json:"response_types"`
	AuthMethod            string   `json:"token_endpoint_auth_method"`
	Scope                 string   `json:"scope"`
}

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegisterBody))
	if err != nil {
		s.writeError(w, r, metadataErr("the registration request is larger than %d bytes", maxRegisterBody))
		return
	}
	c, secret, err := s.Register(r.Context(), body, clientAddrHost(r.RemoteAddr))
	if err != nil {
		if e, ok := errors.AsType[*Error](err); ok && e.Status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(registerRetryIn))
		}
		s.writeError(w, r, err)
		return
	}
	resp := registerResponse{ClientID: c.ID, ClientSecret: secret, ClientIDIssuedAt: c.Registered.Unix(), ClientName: c.Name,
		RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: []string{ResponseTypeCode}, AuthMethod: c.AuthMethod,
		Scope: strings.Join(ScopeNames(), " ")}
	if secret != "" {
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	}
	if err := r.ParseForm(); err != nil {
		s.authorizePage(w, http.StatusBadRequest, "The request could not be read.")
		return
	}
	to, err := s.Authorize(r.Context(), r.Form)
	if err != nil {
		var ae *AuthorizeError
		if errors.As(err, &ae) {
			s.authorizePage(w, http.StatusBadRequest, ae.Err.Description+".")
			return
		}
		s.log.Error("oauth: authorization request", "err", err)
		st := http.StatusInternalServerError
		if apperr.ErrorCode(err) == apperr.EUNAVAILABLE {
			st = http.StatusServiceUnavailable
		}
		s.authorizePage(w, st, "Something went wrong on our side. Go back to the app and try again in a moment.")
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// authorizePage is the page of an authorization request refused before
// its redirect URI could be trusted: nothing is sent back to the app.
var authorizePage = template.Must(template.New("authorize").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cannot connect the app · cardedge</title></head>
<body><main><h1>Cannot connect the app</h1><p>{{.}}</p>
<p>Nothing was shared with the app. Go back to it and try again, or tell its maker.</p></main></body></html>
`))

func (s *Server) authorizePage(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	authorizePage.Execute(w, msg)
}

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	t, ok := s.readTokenRequest(w, r)
	if !ok {
		return
	}
	resp, err := s.Token(r.Context(), t, clientAddrHost(r.RemoteAddr))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	t, ok := s.readTokenRequest(w, r)
	if !ok {
		return
	}
	if err := s.Revoke(r.Context(), t, r.PostForm.Get("token"), clientAddrHost(r.RemoteAddr)); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// readTokenRequest parses a form POST of the token or revocation endpoint.
func (s *Server) readTokenRequest(w http.ResponseWriter, r *http.Request) (TokenRequest, bool) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/x-www-form-urlencoded") {
		s.writeError(w, r, invalidRequest("the body must be application/x-www-form-urlencoded"))
		return TokenRequest{}, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, invalidRequest("the form could not be read (at most %d bytes)", maxFormBody))
		return TokenRequest{}, false
	}
	if len(r.URL.RawQuery) > 0 {
		s.writeError(w, r, invalidRequest("send the parameters in the body, not the URL"))
		return TokenRequest{}, false
	}
	t, err := ParseTokenRequest(r.PostForm, r.Header.Get("Authorization"))
	if err != nil {
		s.writeError(w, r, err)
		return TokenRequest{}, false
	}
	return t, true
}

// errorBody is an OAuth error's JSON.
type errorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := asOAuthError(err)
	if e.Code == CodeServerError {
		s.log.Error("oauth: request failed", "path", r.URL.Path, "err", err)
	}
	status := httpStatusOf(e)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="cardedge oauth"`)
	}
	writeJSON(w, status, errorBody{Error: e.Code, Description: e.Description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
