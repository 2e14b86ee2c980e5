package oauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document):
// a client id that is an https URL names a JSON document, served there by
// the app's maker, that holds the client's metadata. The server fetches it
// when it meets the id, with a timeout and a size limit, from public
// addresses only (the address connected to is checked, after DNS, so a name
// that resolves to the server's own network is refused), follows no
// redirect, and keeps it in memory for its Cache-Control max-age clamped to
// [CacheMin, CacheMax]. A failed fetch is remembered for a minute.

// cimdFailTTL is how long a failed fetch is remembered.
const cimdFailTTL = time.Minute

type cimdEntry struct {
	c       Client
	err     error
	expires time.Time
}

type cimdFetcher struct {
	o     CIMDOptions
	now   func() time.Time
	httpc *http.Client

	mu      sync.Mutex
	entries map[string]cimdEntry
}

func newCIMDFetcher(o CIMDOptions, now func() time.Time) *cimdFetcher {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 5120
	}
	if o.CacheMin <= 0 {
		o.CacheMin = 5 * time.Minute
	}
	if o.CacheMax <= 0 {
		o.CacheMax = 24 * time.Hour
	}
	if o.MaxCached <= 0 {
		o.MaxCached = 1000
	}
	dialer := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("oauth: client metadata document: address %q: %w", address, err)
			}
			if !PublicAddr(ap.Addr()) {
				return fmt.Errorf("oauth: client metadata document: %s is not a public address", ap.Addr())
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would connect for us, unchecked
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           10,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &cimdFetcher{o: o, now: now, entries: map[string]cimdEntry{},
		httpc: &http.Client{Transport: tr, Timeout: o.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return errNoRedirect }}}
}

var errNoRedirect = errors.New("redirects are not followed")

// PublicAddr reports whether a is an address a metadata document may be
// fetched from: a global unicast address that is not private, loopback,
// link-local, shared (CGNAT), documentation, benchmarking, reserved, or an
// IPv6 form that embeds an IPv4 address (mapped, NAT64, 6to4, Teredo).
func PublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2001:db8::/32", "2002::/16", "100::/64", "fc00::/7", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// checkClientIDURL checks a client id that is a URL against the draft's
// rules: https, a host, a path other than "/", no dot segments, no
// fragment, no user info; a query is refused too (the draft discourages it).
func checkClientIDURL(id string) (*url.URL, error) {
	bad := func(why string) error {
		return invalidClient("client id %q is not a valid client metadata document URL: %s", trunc(id, 100), why)
	}
	if len(id) > 512 {
		return nil, bad("longer than 512 bytes")
	}
	u, err := url.Parse(id)
	if err != nil {
		return nil, bad("it does not parse")
	}
	switch {
	case u.Scheme != "https":
		return nil, bad("it must be https")
	case u.Host == "" || u.Hostname() == "":
		return nil, bad("it has no host")
	case u.User != nil:
		return nil, bad("it must not contain a user name or password")
	case u.Fragment != "" || strings.Contains(id, "#"):
		return nil, bad("it must not have a fragment")
	case u.RawQuery != "" || strings.Contains(id, "?"):
		return nil, bad("it must not have a query")
	case u.Path == "" || u.Path == "/":
		return nil, bad("it must have a path")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, "%2e") || strings.EqualFold(seg, "%2e%2e") {
			return nil, bad("it must not contain . or .. segments")
		}
	}
	return u, nil
}

// client returns the client of the document at id, fetched or cached.
func (f *cimdFetcher) client(ctx context.Context, id string) (Client, error) {
	u, err := checkClientIDURL(id)
	if err != nil {
		return Client{}, err
	}
	now := f.now()
	f.mu.Lock()
	e, ok := f.entries[id]
	f.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.c, e.err
	}
	c, ttl, err := f.fetch(ctx, u, id)
	if err != nil {
		ttl = cimdFailTTL
		var oe *Error
		if !errors.As(err, &oe) {
			err = invalidClient("the client metadata document at %q could not be read: %v", trunc(id, 100), err)
		}
	}
	f.mu.Lock()
	if len(f.entries) >= f.o.MaxCached { // drop the expired, then any, down to half
		for k, old := range f.entries {
			if !now.Before(old.expires) {
				delete(f.entries, k)
			}
		}
		for k := range f.entries {
			if len(f.entries) <= f.o.MaxCached/2 {
				break
			}
			delete(f.entries, k)
		}
	}
	f.entries[id] = cimdEntry{c: c, err: err, expires: now.Add(ttl)}
	f.mu.Unlock()
	return c, err
}

// fetch reads and checks the document at u and returns its client and how
// long to keep it.
func (f *cimdFetcher) fetch(ctx context.Context, u *url.URL, id string) (Client, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Client{}, 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "cardedge-oauth (client metadata document fetch)")
	resp, err := f.httpc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already
		}
		return Client{}, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Client{}, 0, fmt.Errorf("HTTP status %d", resp.StatusCode)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return Client{}, 0, fmt.Errorf("its Content-Type is %q, not application/json", trunc(resp.Header.Get("Content-Type"), 60))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.o.MaxBytes+1))
	if err != nil {
		return Client{}, 0, err
	}
	if int64(len(body)) > f.o.MaxBytes {
		return Client{}, 0, fmt.Errorf("it is larger than %d bytes", f.o.MaxBytes)
	}
	c, err := ParseMetadataDocument(body, id)
	if err != nil {
		return Client{}, 0, err
	}
	return c, f.cacheFor(resp.Header.Get("Cache-Control")), nil
}

// ParseMetadataDocument parses and checks a Client ID Metadata Document
// fetched from URL id: its client_id must be id exactly, and its metadata
// that of a public client (see parseClientMetadata). Errors are *Error
// (invalid_client_metadata, invalid_redirect_uri or invalid_client).
func ParseMetadataDocument(body []byte, id string) (Client, error) {
	c, err := parseClientMetadata(body, true)
	if err != nil {
		return Client{}, err
	}
	if c.ID != id {
		return Client{}, invalidClient("the client metadata document's client_id %q is not its URL %q", trunc(c.ID, 100), trunc(id, 100))
	}
	c.Document = true
	return c, nil
}

// cacheFor returns how long to keep a document: its max-age clamped to
// [CacheMin, CacheMax], an hour without one.
func (f *cimdFetcher) cacheFor(cc string) time.Duration {
	d := time.Hour
	for _, part := range strings.Split(cc, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch strings.ToLower(k) {
		case "max-age":
			if n, err := strconv.Atoi(strings.Trim(v, `"`)); err == nil && n >= 0 {
				d = time.Duration(n) * time.Second
			}
		case "no-store", "no-cache":
			d = 0
		}
	}
	return min(max(d, f.o.CacheMin), f.o.CacheMax)
}
