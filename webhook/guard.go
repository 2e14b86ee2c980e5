package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MaxURLLen is the longest endpoint URL accepted.
const MaxURLLen = 2000

// ErrRefused means an endpoint's address is one a webhook may not reach
// (the server's own network, a metadata service): at creation, the URL is
// refused (EINVALID); at delivery, the attempt fails without a request.
var ErrRefused = errors.New("webhook: address refused")

// Resolver looks host names up: *net.Resolver (net.DefaultResolver), or a
// test's.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// blocked are the ranges a webhook may not reach unless private addresses
// are allowed: the server's own and neighbouring networks, and addresses
// that embed or translate to them.
var blocked = func() []struct {
	p   netip.Prefix
	why string
} {
	var out []struct {
		p   netip.Prefix
		why string
	}
	for _, b := range [][2]string{
		{"0.0.0.0/8", "unspecified (this network)"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "shared (CGNAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved (broadcast)"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::ffff:0:0/96", "IPv4-mapped"},
		{"::/96", "IPv4-compatible"},
		{"64:ff9b::/96", "NAT64"},
		{"64:ff9b:1::/48", "NAT64 (local)"},
		{"100::/64", "discard"},
		{"2001::/32", "Teredo"},
		{"2001:db8::/32", "documentation"},
		{"2002::/16", "6to4"},
		{"fc00::/7", "private (unique local)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
	} {
		out = append(out, struct {
			p   netip.Prefix
			why string
		}{netip.MustParsePrefix(b[0]), b[1]})
	}
	return out
}()

// metadata are the cloud metadata services: refused even when private
// addresses are allowed.
var metadata = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack, DigitalOcean
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS (IPv6)
}

// Guard decides which addresses a webhook may reach. The zero value refuses
// every blocked range and looks names up with net.DefaultResolver.
type Guard struct {
	// AllowPrivate allows every address but the metadata services
	// (--webhooks-allow-private: tests, closed networks).
	AllowPrivate bool
	// Resolver looks names up; nil means net.DefaultResolver.
	Resolver Resolver
	// Timeout bounds a dial; zero means 10 s.
	Timeout time.Duration
}

// CheckIP returns an error wrapping ErrRefused when ip may not be reached.
func (g Guard) CheckIP(ip netip.Addr) error {
	if !ip.IsValid() {
		return fmt.Errorf("%w: not an IP address", ErrRefused)
	}
	if ip.Zone() != "" {
		return fmt.Errorf("%w: %s has a zone", ErrRefused, ip)
	}
	if metadata[ip] || metadata[ip.Unmap()] {
		return fmt.Errorf("%w: %s is a metadata service", ErrRefused, ip)
	}
	if g.AllowPrivate {
		return nil
	}
	for _, b := range blocked {
		if b.p.Contains(ip) {
			return fmt.Errorf("%w: %s is a %s address", ErrRefused, ip, b.why)
		}
	}
	return nil
}

// ParseURL checks an endpoint URL's form, without looking its host up: http
// or https, a host, no user or password, no fragment, a port from 1 to
// 65535, at most MaxURLLen bytes. An IP address as host is checked
// (CheckIP); a name is checked by CheckURL.
func (g Guard) ParseURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLLen {
		return nil, fmt.Errorf("the URL is %d bytes; at most %d", len(raw), MaxURLLen)
	}
	if strings.TrimSpace(raw) != raw || raw == "" || strings.ContainsAny(raw, " \t\r\n\\") {
		return nil, errors.New("the URL is empty or holds spaces or backslashes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the URL does not parse: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("the URL's scheme is http or https")
	case u.Opaque != "" || u.Host == "":
		return nil, errors.New("the URL has no host")
	case u.User != nil:
		return nil, errors.New("the URL may not carry a user or password")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, errors.New("the URL may not have a fragment")
	}
	host := u.Hostname()
	if host == "" || strings.ContainsAny(host, "%[]") {
		return nil, errors.New("the URL's host is empty or malformed")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, errors.New("the URL's port is 1 to 65535")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, errors.New("the URL's port is empty")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := g.CheckIP(ip); err != nil {
			return nil, err
		}
	} else if !validHostname(host) {
		return nil, fmt.Errorf("the URL's host %q is not a host name", host)
	}
	return u, nil
}

// validHostname reports whether h is a DNS name (letters, digits, hyphens
// and dots; labels of 1 to 63; at most 253).
func validHostname(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	last := strings.ToLower(labels[len(labels)-1])
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") && len(labels) == 1 {
		return false // a number: an IPv4 address in a form some resolvers read (2130706433, 0x7f.1, 127.1)
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// CheckURL is ParseURL, then looks a host name up and checks every address
// it has: a name with any refused address is refused.
func (g Guard) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	u, err := g.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if _, err := g.lookup(ctx, u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// lookup returns the addresses of host (an IP address or a name), every one
// checked.
func (g Guard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, g.CheckIP(ip)
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("the URL's host %s cannot be looked up: %v", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("the URL's host %s has no address", host)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			return nil, fmt.Errorf("%w: %s has a malformed address", ErrRefused, host)
		}
		if v4 := a.IP.To4(); v4 != nil {
			ip = netip.AddrFrom4([4]byte(v4)) // net.IP keeps IPv4 addresses in 16 bytes
		}
		if err := g.CheckIP(ip); err != nil {
			return nil, fmt.Errorf("%s: %w", host, err)
		}
		out = append(out, ip)
	}
	return out, nil
}

// DialContext dials addr ("host:port") for a delivery: it looks the host up
// now (a name that resolved to a public address at creation and resolves to
// a private one now, DNS rebinding, is refused here) and dials the checked
// addresses with a dialer whose Control checks the address it connects to
// once more. For http.Transport.DialContext.
func (g Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := g.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := net.Dialer{Timeout: timeout, Control: g.control}
	var first error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// control is the dialer's last check of the address it connects to.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrRefused, address)
	}
	return g.CheckIP(ap.Addr())
}
