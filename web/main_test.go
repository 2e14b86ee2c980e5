package web_test

import (
	"context"
	"os"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/chattoken"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
	"github.com/cardedge/cardedge/web"
	"github.com/cardedge/cardedge/web/webtest"
)

// The dashboard's behaviour over net/http, in-process: web.New over a test
// state store with the real account and access services, and for the
// market pages the tiny snapshot (built by the real builder on first use),
// driven by webtest's browser-like client.

// tiny is the snapshot the market pages read, built on first use.
var tiny snapshotstest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	tiny.Close()
	os.Exit(code)
}

// MustHandler returns a dashboard over a fresh state store; o's Accounts and
// Usage are filled in.
func MustHandler(tb testing.TB, o web.Options) *web.Handler {
	tb.Helper()
	return mustWired(tb, o).Handler
}

// dashboard is a dashboard and the services behind it.
type dashboard struct {
	*web.Handler
	State    *statebolt.Store
	Access   *access.Service
	Accounts *account.Service
}

// base is the URL the in-process clients address (no listener).
const base = "http://dashboard.test"

// mustWired builds a dashboard over a fresh state store with the real
// account and access services (o's Accounts and Usage).
func mustWired(tb testing.TB, o web.Options) *dashboard {
	tb.Helper()
	d := mustServices(tb, statetest.MustOpen(tb), nil)
	o.Accounts, o.Usage = d.Accounts, d.Access
	var err error
	if d.Handler, err = web.New(o); err != nil {
		tb.Fatal(err)
	}
	return d
}

// mustServices opens the account and access services over st (access
// verifying chat-user tokens with chat, when not nil; synced by the tests).
func mustServices(tb testing.TB, st *statebolt.Store, chat access.ChatVerifier) *dashboard {
	tb.Helper()
	d := &dashboard{State: st}
	var err error
	if d.Accounts, err = account.New(account.Options{State: st}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Accounts.Close() })
	if d.Access, err = access.Open(access.Options{State: st, SyncInterval: -1, Chat: chat}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Access.Close() })
	return d
}

// fixedView is the live snapshot of a test: one view that never swaps.
type fixedView struct{ v *live.View }

func (f fixedView) Acquire() *live.View { return f.v }

// mustDashboard is a dashboard as cmd/cardedge wires it: open sign-up, the
// market pages over the tiny snapshot, charged to the account's quota by
// the access service, the collections, the chat's tokens.
func mustDashboard(tb testing.TB) *dashboard {
	tb.Helper()
	t := tiny.Get(tb)
	st := statetest.MustOpen(tb)
	tokens, err := chattoken.New(context.Background(), chattoken.Options{State: st})
	if err != nil {
		tb.Fatal(err)
	}
	d := mustServices(tb, st, tokens)
	if d.Handler, err = web.New(web.Options{Accounts: d.Accounts, Usage: d.Access, Signup: true, ChatTokens: tokens,
		Snapshots: fixedView{live.NewView(t.Reader, t.Index, nil)}, Collections: collection.New(collection.Options{State: st}), Charge: d.Access}); err != nil {
		tb.Fatal(err)
	}
	return d
}

// client is a browser of its own (a client address of its own).
func (d *dashboard) client(tb testing.TB) *webtest.Client {
	return webtest.New(tb, base, webtest.InProcess(d.Handler))
}

// signedIn is a signed-in client of a new account of tier and the account's
// id (the tier set by the operator, as `cardedge accounts set-tier` does).
func (d *dashboard) signedIn(tb testing.TB, tier access.Tier) (*webtest.Client, string) {
	tb.Helper()
	c := d.client(tb)
	email := webtest.UniqueEmail(tb)
	c.SignUp(email)
	a, err := d.Accounts.Lookup(context.Background(), email)
	if err != nil {
		tb.Fatal(err)
	}
	if tier != a.Tier {
		if _, err := d.Accounts.SetTier(context.Background(), a.ID, tier, account.Client{}); err != nil {
			tb.Fatal(err)
		}
	}
	return c, a.ID
}

// caller is the caller of a key, as the edge authenticates it (after a
// sync, which loads new keys).
func (d *dashboard) caller(tb testing.TB, secret string) (access.Caller, error) {
	tb.Helper()
	if err := d.Access.Sync(); err != nil {
		tb.Fatal(err)
	}
	return d.Access.Authenticate([]byte("Bearer "+secret), "192.0.2.1")
}
