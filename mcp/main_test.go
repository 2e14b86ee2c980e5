package mcp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/chattoken"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/mcp/mcptest"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	"github.com/cardedge/cardedge/state/statetest"
)

// The tools' behaviour over real MCP JSON-RPC: an in-process server over the
// tiny snapshot (built by the real builder) and a fresh state store, with
// real keys and chat-user tokens, driven by mcptest's client over httptest.

// tiny is the snapshot the package's tests read, built on first use.
var tiny snapshotstest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	tiny.Close()
	os.Exit(code)
}

// fixedView is the live snapshot of a test: one view that never swaps.
type fixedView struct{ v *live.View }

func (f fixedView) Acquire() *live.View { return f.v }

// tinyView is the shared tiny snapshot as the tools read it.
func tinyView(tb testing.TB) fixedView {
	t := tiny.Get(tb)
	return fixedView{live.NewView(t.Reader, t.Index, nil)}
}

// testServer is an MCP server as cmd/cardedge wires it (access with chat
// tokens, one collection service) behind a stand-in for the edge's HTTP
// layer, which authenticates the Bearer key or chat-user token and puts the
// caller in the request's context; httptest serves it at mcptest.Path.
type testServer struct {
	URL    string
	State  *statebolt.Store
	Access *access.Service
	Tokens *chattoken.Service
	Alerts *alert.Service
}

// mustServer starts a server over st (a fresh store when nil): two servers
// over one store are two processes sharing a state file.
func mustServer(tb testing.TB, st *statebolt.Store) *testServer {
	tb.Helper()
	if st == nil {
		st = statetest.MustOpen(tb)
	}
	s := &testServer{State: st}
	var err error
	if s.Tokens, err = chattoken.New(context.Background(), chattoken.Options{State: st}); err != nil {
		tb.Fatal(err)
	}
	if s.Access, err = access.Open(access.Options{State: st, SyncInterval: -1, Chat: s.Tokens}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Access.Close() })
	al, err := alert.New(alert.Options{State: st})
	if err != nil {
		tb.Fatal(err)
	}
	s.Alerts = al
	srv, err := mcp.New(mcp.Options{Snapshots: tinyView(tb), Access: s.Access, State: st,
		Collections: collection.New(collection.Options{State: st}), Alerts: al})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	mux := http.NewServeMux()
	mux.Handle(mcptest.Path, authenticate(s.Access, srv))
	hs := httptest.NewServer(mux)
	tb.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// authenticate is what the edge does in front of MCP (edge/mcpmount.go): a
// key, chat-user token or connected app's token is required, its caller
// goes into the context.
func authenticate(acc *access.Service, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		c, err := acc.AuthenticateMCP([]byte(r.Header.Get("Authorization")), host)
		if err == nil {
			err = access.RequireKey(c)
		}
		if err != nil {
			http.Error(w, apperr.ErrorMessage(err), apperr.HTTPStatus(apperr.ErrorCode(err)))
			return
		}
		next.ServeHTTP(w, r.WithContext(access.WithCaller(r.Context(), c)))
	})
}

// key creates a key in the server's store and loads it.
func (s *testServer) key(tb testing.TB, tier access.Tier, unmetered bool) string {
	tb.Helper()
	secret, _, err := access.Keys{State: s.State}.Create(context.Background(), access.KeySpec{Tier: tier, Name: "mcp-" + tb.Name(), Unmetered: unmetered})
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Access.Sync(); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// token mints a chat-user token of account (its tier as of now).
func (s *testServer) token(tb testing.TB, account string, tier access.Tier) string {
	tb.Helper()
	tok, err := s.Tokens.Mint(account, tier)
	if err != nil {
		tb.Fatal(err)
	}
	return tok.Value
}

// open initializes a session of key (or token).
func (s *testServer) open(tb testing.TB, key string) *mcptest.Session {
	tb.Helper()
	return mcptest.Open(tb, s.URL, key)
}

// used is today's usage of the key whose secret is key (what GET
// /keys/usage reports, without charging for the read).
func (s *testServer) used(tb testing.TB, key string) int {
	tb.Helper()
	c, err := s.Access.Authenticate([]byte("Bearer "+key), "")
	if err != nil {
		tb.Fatal(err)
	}
	u, err := s.Access.Usage(c.KeyID)
	if err != nil {
		tb.Fatal(err)
	}
	return int(u.Today.Used)
}

// accountUsage is today's chat usage of account as the state store has it
// after a sync.
func (s *testServer) accountUsage(tb testing.TB, account string) int64 {
	tb.Helper()
	if err := s.Access.Sync(); err != nil {
		tb.Fatal(err)
	}
	var n int64
	err := s.State.View(context.Background(), func(tx state.Tx) (err error) {
		n, err = tx.Count(state.Usage, account+"/"+time.Now().UTC().Format("2006-01-02"))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// asOf is the day the tiny snapshot is as of.
func asOf(tb testing.TB) string {
	tb.Helper()
	return tiny.Get(tb).AsOf.String()
}

var items = mcptest.Items

func truncate(v any) string { return mcptest.Truncate(mcptest.JSON(v)) }
