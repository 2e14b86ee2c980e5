package main

import (
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"

	"github.com/cardedge/cardedge/oauth"
)

// AppsTestConfig is what the end-to-end tests of connected apps need of
// serve and nothing else should: a Client ID Metadata Document served over
// https from the test's own loopback server, with a certificate of its own.
// In production the server fetches documents from public addresses only
// (anything else lets anyone who can name a client id make the server
// fetch from its own network: SSRF) and trusts the system's CAs.
//
// Both flags are refused unless the server is reachable from this machine
// only: it listens on a loopback address and its --public-url, when given,
// names a loopback host. Then whoever can make it fetch a document already
// runs on the machine and reaches its private addresses without it, so
// the loosening gives nobody anything; and a production server (an https
// --public-url of a public name, or a non-loopback --addr) cannot be
// started with them by mistake.
type AppsTestConfig struct {
	// CIMDAllowPrivate fetches documents from loopback and private
	// addresses (oauth.CIMDOptions.AllowPrivate).
	CIMDAllowPrivate bool
	// CIMDCAFile is a PEM file of the CAs trusted for documents instead
	// of the system's (oauth.CIMDOptions.RootCAs).
	CIMDCAFile string
}

func (c *AppsTestConfig) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.CIMDAllowPrivate, "oauth-cimd-allow-private", false,
		"TESTS ONLY: fetch apps' Client ID Metadata Documents from loopback and private addresses too (refused unless --addr and --public-url are loopback ones)")
	fs.StringVar(&c.CIMDCAFile, "oauth-cimd-ca", "",
		"TESTS ONLY: PEM `file` of the CAs trusted for apps' Client ID Metadata Documents instead of the system's (refused unless --addr and --public-url are loopback ones)")
}

func (c AppsTestConfig) on() bool { return c.CIMDAllowPrivate || c.CIMDCAFile != "" }

// cimdOptions returns the metadata document options of c for a server
// listening on addr with public URL publicURL ("" for none), or why c is
// refused there.
func (c AppsTestConfig) cimdOptions(publicURL string, addr net.Addr) (oauth.CIMDOptions, error) {
	if !c.on() {
		return oauth.CIMDOptions{}, nil
	}
	if where := reachableBeyondLoopback(publicURL, addr); where != "" {
		return oauth.CIMDOptions{}, fmt.Errorf("--oauth-cimd-allow-private and --oauth-cimd-ca are for tests only: "+
			"they are refused unless the server is reachable from this machine only (a loopback --addr and --public-url), and %s", where)
	}
	o := oauth.CIMDOptions{AllowPrivate: c.CIMDAllowPrivate}
	if c.CIMDCAFile != "" {
		pem, err := os.ReadFile(c.CIMDCAFile)
		if err != nil {
			return oauth.CIMDOptions{}, fmt.Errorf("--oauth-cimd-ca: %w", err)
		}
		o.RootCAs = x509.NewCertPool()
		if !o.RootCAs.AppendCertsFromPEM(pem) {
			return oauth.CIMDOptions{}, fmt.Errorf("--oauth-cimd-ca: %s holds no PEM certificate", c.CIMDCAFile)
		}
	}
	return o, nil
}

// reachableBeyondLoopback says how a server listening on addr with public
// URL publicURL can be reached from other machines, or "" when it cannot.
func reachableBeyondLoopback(publicURL string, addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return fmt.Sprintf("--addr %s is not a loopback address", addr)
	}
	if publicURL == "" {
		return ""
	}
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("--public-url %q is not a URL", publicURL)
	}
	if !loopbackHost(u.Hostname()) {
		return fmt.Sprintf("--public-url %s names %s, not a loopback host", publicURL, u.Hostname())
	}
	return ""
}

// loopbackHost reports whether h (no port) names the loopback interface.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}
