package edge

import (
	"strings"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/valyala/fasthttp"
)

// The Atom feed of an account's alerts (package alert), for people without
// a server: GET /api/v3/me/feed returns its secret URL (made on first use),
// POST /api/v3/me/feed/roll replaces it (the old URL stops at once), and
// GET /feeds/alerts/<token>.atom is the feed itself: no key (a feed reader
// sends none), not charged, 404 for an unknown or rolled token. The feed
// route is left out of the OpenAPI document (its body is Atom, its URL a
// secret); docs/alerts.md describes it.

// FeedPath is where the feeds are: + the token + ".atom".
const FeedPath = "/feeds/alerts/"

func (s *Server) registerFeedRoutes() {
	s.router.add(&route{method: "GET", pattern: "/api/v3/me/feed", name: "alert_feed_get", contract: "alert-feed.v1",
		summary: "The secret URL of the caller's Atom feed of alerts (made on first use)", schema: "AlertFeed",
		handle: func(r *request) (any, error) { return s.handleFeedToken(r, false) }})
	s.router.add(&route{method: "POST", pattern: "/api/v3/me/feed/roll", name: "alert_feed_roll", contract: "alert-feed.v1",
		summary: "Replace the feed's secret URL: the old one stops at once", schema: "AlertFeed", noBody: true,
		handle: func(r *request) (any, error) { return s.handleFeedToken(r, true) }})
	s.router.add(&route{method: "GET", pattern: FeedPath + "{file}", name: "alert_feed", internal: true, keyless: true, uncharged: true,
		raw: s.handleFeed})
}

// feedURL is the feed's URL of token: absolute at the public URL (or the
// listening address), else a path.
func (s *Server) feedURL(token string) string {
	base, _ := s.serverURL()
	return strings.TrimRight(base, "/") + FeedPath + token + ".atom"
}

func (s *Server) handleFeedToken(r *request, roll bool) (any, error) {
	a, err := s.alerts()
	if err != nil {
		return nil, err
	}
	var token string
	if roll {
		token, err = a.RollFeed(r.ctx, s.alertAccount(r))
	} else {
		token, err = a.FeedToken(r.ctx, s.alertAccount(r))
	}
	if err != nil {
		return nil, err
	}
	return alert.FeedLink{URL: s.feedURL(token), Token: token}, nil
}

// handleFeed serves GET /feeds/alerts/<token>.atom.
func (s *Server) handleFeed(r *request) {
	a, err := s.alerts()
	if err != nil {
		s.writeError(r.ctx, err)
		return
	}
	token, ok := strings.CutSuffix(r.vars.list()[0], ".atom")
	if !ok {
		s.writeError(r.ctx, apperr.Errorf(apperr.ENOTFOUND, "no such feed"))
		return
	}
	base, _ := s.serverURL()
	base = strings.TrimRight(base, "/")
	b, err := a.Feed(r.ctx, token, alert.FeedInfo{SelfURL: s.feedURL(token), AlternateURL: base + DashboardPath + "/alerts"})
	if err != nil {
		s.writeError(r.ctx, err)
		return
	}
	r.ctx.Response.Header.Set("Cache-Control", "private, max-age=300")
	r.ctx.Response.Header.Set("X-Robots-Tag", "noindex")
	r.ctx.SetContentType("application/atom+xml; charset=utf-8")
	r.ctx.SetStatusCode(fasthttp.StatusOK)
	r.ctx.SetBody(b)
}
