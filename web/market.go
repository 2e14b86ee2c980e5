package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// The market pages (cards, sets, movers, the collection) read the live
// snapshot through the domain code the REST routes use (snapshots.Reader,
// index, pricing, resolve, collection): the edge hands them its live
// snapshot (Options.Snapshots), never an HTTP call to itself. The account's
// tier applies as it does to the account's keys: its history window clamps
// every history (access.ClampSince), and each page of market data is charged
// to the account's daily quota (Options.Charge).

// Snapshots is the live snapshot as the pages read it: package live's Live.
type Snapshots interface {
	// Acquire pins the live snapshot (View.Release unpins it).
	Acquire() *live.View
}

// Charger charges market pages to an account: the edge's access layer,
// under the account's id with its tier's daily quota and rate (the quota the
// account's web chat spends too). EQUOTA when spent (RetryAfter in the
// decision), EUNAUTHORIZED for a disabled account.
type Charger interface {
	ChargeAccount(accountID string, tier access.Tier, units int) (access.Decision, error)
}

// market is one market page's view: the snapshot (released by done) and the
// account's tier.
type market struct {
	*live.View
	tier access.Tier
	game string
}

// done releases the page's snapshot.
func (m *market) done() { m.View.Release() }

// since clamps a history start to the tier's window (ok false: unlimited and
// not given: from the first point).
func (m *market) since(d snapshots.Day, set bool) (snapshots.Day, bool) {
	_, limited := access.WindowStart(m.AsOf, m.tier)
	return access.ClampSince(m.AsOf, m.tier, d, set), set || limited
}

// windowText says the account's history window ("7 days (from 2026-11-14)"
// or "unlimited").
func (m *market) windowText() string {
	start, ok := access.WindowStart(m.AsOf, m.tier)
	if !ok {
		return "unlimited"
	}
	n := access.LimitsOf(m.tier).HistoryDays
	return strconv.Itoa(n) + " days (" + start.String() + " to " + m.AsOf.String() + ")"
}

// longerWindow says which tiers see more history than the account's
// ("Longer history comes with Pro (7 days) and Elite (all history)."), or ""
// for a tier that sees all of it.
func (m *market) longerWindow() string {
	own := access.LimitsOf(m.tier).HistoryDays
	if own == 0 {
		return ""
	}
	var parts []string
	for _, t := range []access.Tier{access.Free, access.Pro, access.Elite} {
		switch d := access.LimitsOf(t).HistoryDays; {
		case d == 0:
			parts = append(parts, tierName(t)+" (all history)")
		case d > own:
			parts = append(parts, tierName(t)+" ("+strconv.Itoa(d)+" days)")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	list := parts[len(parts)-1]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " and " + list
	}
	return "Longer history comes with " + list + "; the operator of this server sets your tier."
}

// tierName is a tier's name as pages write it (Free, Pro, Elite).
func tierName(t access.Tier) string {
	s := t.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// openMarket takes the live snapshot for a market page of si, charged units
// to the account. On false the page was answered (no snapshot, a spent
// quota, a bad game); otherwise the caller must call m.done.
func (h *Handler) openMarket(w http.ResponseWriter, r *http.Request, si signedIn, units int) (*market, bool) {
	if h.opts.Snapshots == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Market data is not available on this server.")
		return nil, false
	}
	if h.opts.Charge != nil && units > 0 {
		d, err := h.opts.Charge.ChargeAccount(si.account.ID, si.account.Tier, units)
		if err != nil {
			if apperr.ErrorCode(err) == apperr.EQUOTA {
				if d.RetryAfter > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(d.RetryAfter))
				}
				h.renderError(w, r, http.StatusTooManyRequests, quotaMessage(si.account.Tier, d, h.now()))
				return nil, false
			}
			h.fail(w, r, err)
			return nil, false
		}
	}
	s := h.opts.Snapshots.Acquire()
	m := &market{View: s, tier: si.account.Tier}
	m.game = r.URL.Query().Get("game")
	games := s.Reader.Manifest().Games
	if m.game == "" && len(games) > 0 {
		m.game = games[0]
	}
	if !s.Reader.Manifest().HasGame(m.game) {
		s.Release()
		h.renderError(w, r, http.StatusNotFound, "There is no game “"+m.game+"” in this snapshot.")
		return nil, false
	}
	return m, true
}

// quotaMessage says that the account's quota (or rate) is spent and when it
// comes back.
func quotaMessage(t access.Tier, d access.Decision, now time.Time) string {
	if d.Reason == access.ReasonRate {
		return "Too many pages at once for your account's rate limit. Wait " + strconv.Itoa(max(1, d.RetryAfter)) + " seconds, then reload."
	}
	lim := access.LimitsOf(t)
	left := time.Duration(d.RetryAfter) * time.Second
	return "Your account’s daily quota of " + formatInt(int64(lim.DailyQuota)) + " calls (" + t.String() +
		" tier; market pages, the chat and the collection count against it) is spent. It resets at 00:00 UTC, in " +
		strconv.Itoa(int(left.Hours())) + " h " + strconv.Itoa(int(left.Minutes())%60) + " min."
}

// owner is the account's collection owner.
func (si signedIn) owner() collection.Owner { return collection.AccountOwner(si.account.ID) }
