package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/oauth"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/cardedge/cardedge/state/statetest"
)

// Two replicas over one Redis (each with its own connection pool, as two
// processes): a flow that hops between them works, concurrent refreshes
// with one token never both succeed, and a revocation on one is refused by
// the other within a second.
func TestRedis_Replicas(t *testing.T) {
	rs := redistest.Start(t, false)
	clock := statetest.NewClock(t0)
	ctx := context.Background()
	replica := func() (*oauth.Server, *account.Service) {
		st, err := stateredis.Open(rs.URL(), stateredis.Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		accts, err := account.New(account.Options{State: st, Now: clock.Now, Hash: account.HashParams{Memory: 64, Time: 1, Threads: 1}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := oauth.New(ctx, oauth.Options{State: st, Accounts: accts, PublicURL: "https://cards.example.com", Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s, accts
	}
	a, accts := replica()
	b, _ := replica()
	acct, err := accts.Create(ctx, "ada@example.com", "a long and unusual passphrase", access.Pro, account.Client{})
	if err != nil {
		t.Fatal(err)
	}
	const redirect = "https://claude.ai/api/mcp/auth_callback"
	c, _, err := a.Register(ctx, []byte(`{"client_name":"Claude","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`), "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	verifier, challenge := pkce("rd")
	to, err := b.Authorize(ctx, authParams(c.ID, redirect, challenge))
	if err != nil {
		t.Fatal(err)
	}
	reqID, _ := url.QueryUnescape(strings.TrimPrefix(to, oauth.DefaultConsentPath+"?request="))
	to, err = a.Approve(ctx, reqID, acct, []string{oauth.ScopeMarket})
	if err != nil {
		t.Fatal(err)
	}
	code := mustQuery(t, to).Get("code")
	tok, err := b.Token(ctx, oauth.TokenRequest{GrantType: "authorization_code", Code: code, RedirectURI: redirect, CodeVerifier: verifier,
		Client: oauth.ClientCredentials{ID: c.ID}}, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Verify([]byte(tok.AccessToken), a.Resource()); err != nil {
		t.Fatalf("verify on the other replica: %v", err)
	}

	// The same refresh token on both replicas at once: at most one wins.
	var wg sync.WaitGroup
	results := make([]error, 8)
	for i := range results {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = s.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", RefreshToken: tok.RefreshToken,
				Client: oauth.ClientCredentials{ID: c.ID}}, "192.0.2.1")
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range results {
		if err == nil {
			won++
		} else if e, ok := err.(*oauth.Error); !ok || e.Code != oauth.CodeInvalidGrant || e.Status != http.StatusBadRequest {
			t.Errorf("refresh: %v", err)
		}
	}
	if won > 1 {
		t.Errorf("%d concurrent refreshes with one token succeeded", won)
	}
	// The losers were reuses: the grant has ended, on both replicas.
	clock.Advance(time.Second)
	for name, s := range map[string]*oauth.Server{"a": a, "b": b} {
		if _, err := s.Verify([]byte(tok.AccessToken), s.Resource()); reason(err) != oauth.ReasonRevoked {
			t.Errorf("replica %s after the reuse: %v", name, err)
		}
	}
	if g, _ := b.Grants(ctx, acct.ID); len(g) != 0 {
		t.Errorf("grants: %+v", g)
	}
}
