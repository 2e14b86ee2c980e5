package main

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/cardedge/cardedge/web"
)

// signupOpen decides --signup: "open" or "closed", or "" for open on a
// loopback address (a developer's own machine) and closed elsewhere (a server
// others reach, where the operator decides).
func signupOpen(mode, addr string) (bool, error) {
	switch mode {
	case "open":
		return true, nil
	case "closed":
		return false, nil
	case "":
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		if strings.EqualFold(host, "localhost") {
			return true, nil
		}
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.IsLoopback(), nil
	}
	return false, fmt.Errorf("--signup must be open or closed, not %q", mode)
}

// dashboardURL is where people open the dashboard of a server listening on
// addr.
func dashboardURL(publicURL, addr string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/") + web.Base
	}
	return "http://" + addr + web.Base
}
