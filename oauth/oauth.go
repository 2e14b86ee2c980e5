package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/state"
)

// Defaults of Options.
const (
	DefaultAccessTTL       = time.Hour
	DefaultRefreshIdle     = 30 * 24 * time.Hour
	DefaultCodeTTL         = time.Minute
	DefaultRequestTTL      = 10 * time.Minute
	DefaultUnusedClientTTL = 24 * time.Hour
	DefaultRegisterPerHour = 20
	DefaultResourcePath    = "/api/v3/mcp/"
	DefaultConsentPath     = "/dashboard/connect"
)

// codeRecordTTL is how long a code's record stays after it was issued: long
// past its validity (CodeTTL), so that a second use is recognized.
const codeRecordTTL = 10 * time.Minute

// Options configure a Server. Every zero value has a documented default.
type Options struct {
	// State is the state store (required): the buckets OAuth* and the
	// signing keys in Secrets.
	State state.Store
	// Accounts is the account service (required): it writes the audit
	// events of grants, refreshes and revocations.
	Accounts *account.Service
	// PublicURL is the URL people and apps reach the server at (required):
	// the issuer ("https://api.example.com", no path) of the metadata and
	// tokens; the protected resource is PublicURL + ResourcePath. It must
	// be https, except on a loopback host (tests, a laptop).
	PublicURL string
	// ResourcePath is the path of the protected resource, the MCP
	// endpoint; empty means DefaultResourcePath ("/api/v3/mcp/").
	ResourcePath string
	// ConsentPath is the dashboard page that asks the signed-in account
	// (package web); /oauth/authorize sends the browser there with
	// "?request=<id>". Empty means DefaultConsentPath.
	ConsentPath string
	// ServiceDocumentation is the URL of the page that says how to connect
	// apps (the metadata's service_documentation); empty leaves it out.
	ServiceDocumentation string

	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives internal problems; nil means discard.
	Logger *slog.Logger

	// AccessTTL is how long an access token works; zero means 1 hour.
	AccessTTL time.Duration
	// RefreshIdle is how long a refresh token (and its grant) lives
	// unused; zero means 30 days. Each refresh starts it again.
	RefreshIdle time.Duration
	// CodeTTL is how long an authorization code works; zero means 1
	// minute.
	CodeTTL time.Duration
	// RequestTTL is how long an authorization request waits for the
	// account's answer (sign-in and consent); zero means 10 minutes.
	RequestTTL time.Duration
	// UnusedClientTTL is how long a dynamically registered client lives
	// before its first grant; zero means 24 hours.
	UnusedClientTTL time.Duration
	// RegisterPerHour is how many clients one address may register per
	// hour (every replica counts in the store); zero means 20, negative
	// means no registration at all (Client ID Metadata Documents only).
	RegisterPerHour int
	// KeyGrace is how long a retired signing key keeps verifying after
	// Rotate; zero means twice AccessTTL.
	KeyGrace time.Duration

	// CIMD configures the fetching of Client ID Metadata Documents.
	CIMD CIMDOptions
}

// CIMDOptions configure how Client ID Metadata Documents are fetched.
type CIMDOptions struct {
	// Disabled refuses client ids that are URLs.
	Disabled bool
	// Timeout bounds one fetch; zero means 5 seconds.
	Timeout time.Duration
	// MaxBytes bounds a document; zero means 5120 (the draft's 5 KB).
	MaxBytes int64
	// AllowPrivate lets documents be fetched from loopback, private,
	// link-local and other non-public addresses. Only tests set it: in
	// production it would let anyone make the server fetch from its own
	// network (SSRF).
	AllowPrivate bool
	// RootCAs, when set, are the CAs trusted for the documents' TLS
	// instead of the system's (tests).
	RootCAs *x509.CertPool
	// CacheMin and CacheMax clamp how long a fetched document is used
	// (its Cache-Control max-age, else an hour); zero means 5 minutes and
	// 24 hours.
	CacheMin, CacheMax time.Duration
	// MaxCached bounds the documents kept in memory; zero means 1000.
	MaxCached int
}

// Server is the OAuth 2.1 authorization server of the MCP endpoint: client
// registration, authorization requests and their consent, tokens, and the
// verification of access tokens. Its methods are safe for concurrent use.
type Server struct {
	opts     Options
	st       state.Store
	acc      *account.Service
	now      func() time.Time
	log      *slog.Logger
	issuer   string // PublicURL's origin
	resource string // issuer + ResourcePath
	keys     *keyring
	cimd     *cimdFetcher

	revMu      sync.Mutex
	revoked    map[string]time.Time // grant id -> when it ended
	revRev     int64                // MetaOAuthRev of revoked
	revChecked time.Time            // when MetaOAuthRev was last read
	revLoading bool
}

// New returns a Server, creating the first signing key when the store has
// none. It fails on bad options and with the store's error.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.State == nil || o.Accounts == nil {
		return nil, errors.New("oauth: Options.State and Options.Accounts are required")
	}
	issuer, err := parsePublicURL(o.PublicURL)
	if err != nil {
		return nil, err
	}
	if o.ResourcePath == "" {
		o.ResourcePath = DefaultResourcePath
	}
	if !strings.HasPrefix(o.ResourcePath, "/") {
		return nil, fmt.Errorf("oauth: ResourcePath %q must start with /", o.ResourcePath)
	}
	if o.ConsentPath == "" {
		o.ConsentPath = DefaultConsentPath
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	setDefault(&o.AccessTTL, DefaultAccessTTL)
	setDefault(&o.RefreshIdle, DefaultRefreshIdle)
	setDefault(&o.CodeTTL, DefaultCodeTTL)
	setDefault(&o.RequestTTL, DefaultRequestTTL)
	setDefault(&o.UnusedClientTTL, DefaultUnusedClientTTL)
	setDefault(&o.KeyGrace, 2*o.AccessTTL)
	if o.RegisterPerHour == 0 {
		o.RegisterPerHour = DefaultRegisterPerHour
	}
	s := &Server{opts: o, st: o.State, acc: o.Accounts, now: o.Now, log: o.Logger,
		issuer: issuer, resource: issuer + o.ResourcePath, revoked: map[string]time.Time{}, revRev: -1}
	if s.keys, err = newKeyring(ctx, o.State, o.Now, o.Logger); err != nil {
		return nil, err
	}
	s.cimd = newCIMDFetcher(o.CIMD, o.Now)
	return s, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// parsePublicURL returns the origin of the public URL: https, or http on a
// loopback host.
func parsePublicURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("oauth: PublicURL %q must be an origin such as https://api.example.com", raw)
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return "", fmt.Errorf("oauth: PublicURL %q must be https (http only on a loopback host such as 127.0.0.1)", raw)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// loopbackHost reports whether h (no port) names the loopback interface.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && a.IsLoopback()
}

// Issuer returns the authorization server's issuer identifier (its
// origin).
func (s *Server) Issuer() string { return s.issuer }

// Resource returns the protected resource's identifier: the MCP endpoint's
// URL ("https://api.example.com/api/v3/mcp/"), the audience of every access
// token.
func (s *Server) Resource() string { return s.resource }

// ResourceMetadataURL returns the URL of the resource's RFC 9728 metadata
// (the path-suffixed form), which a 401 of the MCP endpoint names in
// WWW-Authenticate.
func (s *Server) ResourceMetadataURL() string {
	return s.issuer + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(s.opts.ResourcePath, "/") + "/"
}

// sameResource reports whether a resource indicator names this server's
// resource: the identifier itself, or without its trailing slash.
func (s *Server) sameResource(r string) bool {
	return r == s.resource || r+"/" == s.resource
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newID returns prefix and 16 random base32 characters (80 bits).
func newID(prefix string) (string, error) {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return prefix + idEncoding.EncodeToString(b[:]), nil
}

// newSecret returns prefix and 32 random bytes in base64url (256 bits).
func newSecret(prefix string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// hashSecret is the stored form of a code, refresh token or client secret.
func hashSecret(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// clientAddrHost returns the IP of a RemoteAddr ("1.2.3.4:5678").
func clientAddrHost(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}
