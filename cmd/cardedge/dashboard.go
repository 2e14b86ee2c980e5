package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/state"
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

// mountDashboard builds the account service and the dashboard over st and
// mounts it at /dashboard; tokens mints the web chat's chat-user tokens. The returned function closes the account service
// (it waits for its background audit writes).
func mountDashboard(srv *edge.Server, cfg ServeConfig, st state.Store, acc *access.Service, tokens web.ChatTokens, log *slog.Logger) (func(), error) {
	open, err := signupOpen(cfg.Signup, cfg.Addr)
	if err != nil {
		return nil, err
	}
	accts, err := account.New(account.Options{State: st, Logger: log, KeyMaxDays: cfg.KeyMaxDays})
	if err != nil {
		return nil, err
	}
	h, err := web.New(web.Options{Accounts: accts, Usage: acc, PublicURL: cfg.PublicURL, Signup: open, Logger: log, ChatTokens: tokens,
		// The market pages read the live snapshot the REST routes serve, and
		// the collection the account's keys and chat share.
		Snapshot: func() (web.Snapshot, func()) {
			s := srv.Snapshot()
			return web.Snapshot{Reader: s.Reader, Index: s.Index, AsOf: s.AsOf, ID: s.Manifest().SnapshotID}, s.Release
		},
		Collections: srv.Collections(),
		// Market pages spend the account's own quota, as its chat does.
		Charge: acc,
	})
	if err != nil {
		accts.Close()
		return nil, err
	}
	srv.MountDashboard(h)
	return func() { accts.Close() }, nil
}

// dashboardURL is where people open the dashboard of a server listening on
// addr.
func dashboardURL(publicURL, addr string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/") + web.Base
	}
	return "http://" + addr + web.Base
}
