package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
	"github.com/cardedge/cardedge/state/statetest"
)

// The resources (resources/list, resources/templates/list, resources/read)
// driven over real JSON-RPC against an in-process server over a tiny
// snapshot, behind a small front door (hostEnv) that authenticates as the
// edge does: API keys, and connected apps' tokens (a fake verifier).

// hostApps is a fake access.AppVerifier: tokens "app_..." with the claims
// of the map.
type hostApps map[string]access.AppClaims

func (a hostApps) IsAppToken(tok []byte) bool { return bytes.HasPrefix(tok, []byte("app_")) }

func (a hostApps) VerifyApp(tok []byte) (access.AppClaims, error) {
	if cl, ok := a[string(tok)]; ok {
		return cl, nil
	}
	return access.AppClaims{}, apperr.Errorf(apperr.EUNAUTHORIZED, "unknown app token")
}

// Tokens of the connected apps of hostEnv.
const (
	appPro       = "app_pro_collection"    // Pro, collection scope: the chat tools
	appProNoColl = "app_pro_no_collection" // Pro, without the scope
	appFree      = "app_free_collection"   // Free, with the scope (no Apps access)
	appAccount   = "a_hostpro"
)

// hostEnv is an MCP server over a tiny snapshot behind a front door, with
// an API key per tier.
type hostEnv struct {
	url  string
	acc  *access.Service
	keys map[access.Tier]string // secret per tier
	ids  map[access.Tier]string // key id per tier
}

// mustHostEnv serves the package's tiny snapshot: the access layer over a
// state file, the collections (appAccount holds two copies of en:base1-4),
// the MCP server, and an httptest server whose handler authenticates the
// Bearer credential (authenticate: access.AuthenticateMCP) into the request
// context.
func mustHostEnv(tb testing.TB) *hostEnv {
	tb.Helper()
	l := tinyView(tb) // the package's tiny snapshot (main_test.go)
	st := statetest.MustOpen(tb)
	apps := hostApps{
		appPro:       {Account: appAccount, Tier: access.Pro, Collection: true},
		appProNoColl: {Account: "a_hostnocoll", Tier: access.Pro},
		appFree:      {Account: "a_hostfree", Tier: access.Free, Collection: true},
	}
	acc, err := access.Open(access.Options{State: st, Apps: apps})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { acc.Close() })
	e := &hostEnv{acc: acc, keys: map[access.Tier]string{}, ids: map[access.Tier]string{}}
	for _, tier := range []access.Tier{access.Free, access.Pro, access.Elite} {
		secret, k, err := access.Keys{State: st}.Create(context.Background(), access.KeySpec{Tier: tier, Name: tb.Name()})
		if err != nil {
			tb.Fatal(err)
		}
		e.keys[tier], e.ids[tier] = secret, k.ID
	}
	if err := acc.Sync(); err != nil {
		tb.Fatal(err)
	}
	colls := collection.New(collection.Options{State: st})
	v := l.Acquire()
	_, err = colls.Add(context.Background(), v, collection.AccountOwner(appAccount), collection.Change{Game: "pokemon", CardID: "en:base1-4", Quantity: 2})
	v.Release()
	if err != nil {
		tb.Fatal(err)
	}
	al, err := alert.New(alert.Options{State: st})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := cardmcp.New(cardmcp.Options{Snapshots: l, Access: acc, State: st, Collections: colls, Alerts: al, WebsiteURL: "https://cardedge.example/dashboard"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(authenticate(acc, srv)) // the edge's front door (main_test.go)
	tb.Cleanup(ts.Close)
	e.url = ts.URL + "/api/v3/mcp/"
	return e
}

// used is the units key tier's key spent today.
func (e *hostEnv) used(tb testing.TB, tier access.Tier) int64 {
	tb.Helper()
	u, err := e.acc.Usage(e.ids[tier])
	if err != nil {
		tb.Fatal(err)
	}
	return u.Today.Used
}

// hostSession is one MCP session of one credential.
type hostSession struct {
	tb      testing.TB
	env     *hostEnv
	token   string
	id      string // Mcp-Session-Id
	version string // negotiated protocol version
	next    int
}

// hostReply is one JSON-RPC answer.
type hostReply struct {
	status int
	header http.Header
	body   []byte
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// session initializes a session of token with protocol version version.
func (e *hostEnv) session(tb testing.TB, token, version string) *hostSession {
	tb.Helper()
	s := &hostSession{tb: tb, env: e, token: token}
	r := s.post(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize",
		"params": map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "hosts-test", "version": "1"}}})
	if r.status != 200 || r.Error != nil {
		tb.Fatalf("initialize: %d %s", r.status, r.body)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(r.Result, &res)
	s.id, s.version = r.header.Get(cardmcp.HeaderSessionID), res.ProtocolVersion
	if r := s.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); r.status != http.StatusAccepted {
		tb.Fatalf("notifications/initialized: %d %s", r.status, r.body)
	}
	return s
}

// post sends one JSON-RPC message with the session's headers.
func (s *hostSession) post(msg map[string]any) hostReply {
	s.tb.Helper()
	return s.env.post(s.tb, s.token, s.id, s.version, msg)
}

// post sends msg with token's Bearer credential, session id sid and the
// protocol version header version ("" sends none), and extra headers
// (name, value pairs).
func (e *hostEnv) post(tb testing.TB, token, sid, version string, msg map[string]any, extra ...string) hostReply {
	tb.Helper()
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest("POST", e.url, bytes.NewReader(b))
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(cardmcp.HeaderSessionID, sid)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	r := hostReply{status: resp.StatusCode, header: resp.Header}
	r.body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(r.body, &r); err != nil {
			tb.Fatalf("%v: not JSON-RPC: %s", msg["method"], r.body)
		}
	}
	return r
}

// call sends a request and decodes its result into out; it fails the test
// on an error.
func (s *hostSession) call(method string, params map[string]any, out any) hostReply {
	s.tb.Helper()
	s.next++
	r := s.post(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": method, "params": params})
	if r.status != 200 || r.Error != nil {
		s.tb.Fatalf("%s %v: %d %s", method, params, r.status, r.body)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			s.tb.Fatalf("%s: %v: %s", method, err, r.Result)
		}
	}
	return r
}

// refused sends a request that must answer a JSON-RPC error, and returns it.
func (s *hostSession) refused(method string, params map[string]any) hostReply {
	s.tb.Helper()
	s.next++
	r := s.post(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": method, "params": params})
	if r.status != 200 || r.Error == nil {
		s.tb.Fatalf("%s %v: want a JSON-RPC error, got %d %s", method, params, r.status, r.body)
	}
	return r
}

// resourceEnvelope is a resource's text: the envelope of a tool result.
type resourceEnvelope struct {
	Contract   string          `json:"contract"`
	AsOf       string          `json:"as_of"`
	SnapshotID string          `json:"snapshot_id"`
	Cost       int             `json:"cost"`
	Data       json.RawMessage `json:"data"`
}

// read reads uri and returns its one content's envelope.
func (s *hostSession) read(uri string) resourceEnvelope {
	s.tb.Helper()
	var res struct {
		Contents []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	s.call("resources/read", map[string]any{"uri": uri}, &res)
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
		s.tb.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	var env resourceEnvelope
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &env); err != nil {
		s.tb.Fatalf("read %s: %v", uri, err)
	}
	return env
}

// dailyRemaining is the daily quota left that a response's RateLimit header
// says (-1 when it has none).
func dailyRemaining(h http.Header) int {
	m := regexp.MustCompile(`"daily";r=(\d+)`).FindStringSubmatch(h.Get(access.HeaderRateLimit))
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestServer_Resources(t *testing.T) {
	e := mustHostEnv(t)
	key := e.session(t, e.keys[access.Elite], "2025-11-25")
	app := e.session(t, appPro, "2025-11-25")

	t.Run("List", func(t *testing.T) {
		var res struct {
			Resources []map[string]any `json:"resources"`
		}
		key.call("resources/list", nil, &res)
		if len(res.Resources) != 1 {
			t.Fatalf("resources: %v", res.Resources)
		}
		r := res.Resources[0]
		if r["uri"] != cardmcp.CollectionURI || r["name"] != "collection" || r["title"] != "My collection" || r["mimeType"] != "application/json" ||
			!strings.Contains(r["description"].(string), "API key") {
			t.Errorf("collection resource: %v", r)
		}
	})

	t.Run("Templates", func(t *testing.T) {
		var res struct {
			ResourceTemplates []map[string]any `json:"resourceTemplates"`
		}
		key.call("resources/templates/list", nil, &res)
		got := map[string]map[string]any{}
		for _, rt := range res.ResourceTemplates {
			got[rt["uriTemplate"].(string)] = rt
		}
		for tpl, title := range map[string]string{"cardedge://cards/{+id}": "Card", "cardedge://sets/{+id}": "Card set", "cardedge://movers/{+game}": "This week's movers"} {
			rt := got[tpl]
			if rt == nil || rt["title"] != title || rt["mimeType"] != "application/json" || rt["name"] == "" ||
				!strings.Contains(rt["description"].(string), "1 unit") {
				t.Errorf("template %s: %v", tpl, rt)
			}
		}
		if len(got) != 3 {
			t.Errorf("%d templates: %v", len(got), res.ResourceTemplates)
		}
	})

	t.Run("Card", func(t *testing.T) {
		before := e.used(t, access.Elite)
		env := key.read("cardedge://cards/en:base1-4")
		if env.Contract != "mcp.resource.card.v1" || env.Cost != 1 || env.AsOf != snapshotstest.AsOf || env.SnapshotID == "" {
			t.Errorf("envelope: %+v", env)
		}
		if got, want := e.used(t, access.Elite)-before, int64(1); got != want {
			t.Errorf("a read cost %d units, want %d", got, want)
		}
		var card struct {
			CardID    string           `json:"card_id"`
			URL       string           `json:"url"`
			Printings []map[string]any `json:"printings"`
		}
		json.Unmarshal(env.Data, &card)
		if card.CardID != "en:base1-4" || card.URL != "/dashboard/cards/en:base1-4" || len(card.Printings) < 2 {
			t.Errorf("card: %s", env.Data)
		}
		// The same card as show_cards shows it (the chat tools' caller).
		var res struct {
			StructuredContent struct {
				Data struct {
					Cards []json.RawMessage `json:"cards"`
				} `json:"data"`
			} `json:"structuredContent"`
		}
		app.call("tools/call", map[string]any{"name": "show_cards", "arguments": map[string]any{"ids": []string{"en:base1-4"}}}, &res)
		if cards := res.StructuredContent.Data.Cards; len(cards) != 1 || !jsonEqual(cards[0], env.Data) {
			t.Errorf("show_cards' card differs from the resource's:\n%s\n%s", cards, env.Data)
		}
		// Percent-encoded (a client expanding {id}) and a partner product id.
		for _, uri := range []string{"cardedge://cards/en%3Abase1-4", "cardedge://cards/42382"} {
			if got := key.read(uri); !jsonEqual(got.Data, env.Data) {
				t.Errorf("%s: %s", uri, got.Data)
			}
		}
	})

	t.Run("Set", func(t *testing.T) {
		env := key.read("cardedge://sets/en:base1")
		var set struct {
			SetID  string `json:"set_id"`
			URL    string `json:"url"`
			Market struct {
				PricedCards int     `json:"priced_cards"`
				ValueUSD    float64 `json:"value_usd"`
			} `json:"market"`
			Rarities []map[string]any `json:"rarities"`
			TopCards []struct {
				CardID   string   `json:"card_id"`
				SetID    string   `json:"set_id"`
				PriceUSD *float64 `json:"price_usd"`
			} `json:"top_cards"`
		}
		json.Unmarshal(env.Data, &set)
		if env.Contract != "mcp.resource.set.v1" || set.SetID != "en:base1" || set.URL != "/dashboard/sets/en:base1" || set.Market.PricedCards == 0 ||
			set.Market.ValueUSD <= 0 || len(set.Rarities) == 0 || len(set.TopCards) == 0 || len(set.TopCards) > cardmcp.SetTopCards {
			t.Fatalf("set: %s", env.Data)
		}
		for i, c := range set.TopCards {
			if c.SetID != "en:base1" {
				t.Errorf("top card %s is of set %s", c.CardID, c.SetID)
			}
			if i > 0 && c.PriceUSD != nil && set.TopCards[i-1].PriceUSD != nil && *c.PriceUSD > *set.TopCards[i-1].PriceUSD {
				t.Errorf("top cards out of order at %d: %v > %v", i, *c.PriceUSD, *set.TopCards[i-1].PriceUSD)
			}
		}
	})

	t.Run("Movers", func(t *testing.T) {
		env := key.read("cardedge://movers/pokemon")
		var m struct {
			Game        string  `json:"game"`
			Metric      string  `json:"metric"`
			MinPriceUSD float64 `json:"min_price_usd"`
			Window      string  `json:"window"`
			Total       int     `json:"total"`
			Gainers     []struct {
				Rank  int     `json:"rank"`
				Value float64 `json:"value"`
			} `json:"gainers"`
			Losers []struct {
				Value float64 `json:"value"`
			} `json:"losers"`
			Basis string `json:"basis"`
		}
		json.Unmarshal(env.Data, &m)
		// The movers' ranking REST's trending route, the dashboard and the
		// chat share (pricing.MoversMetric, MoversLiquidity).
		if m.Metric != pricing.MoversMetric || m.MinPriceUSD != snapshots.USD(pricing.MoversLiquidity().MinPriceCents) {
			t.Errorf("movers ranked by %s from $%v, want the movers' default", m.Metric, m.MinPriceUSD)
		}
		if env.Contract != "mcp.resource.movers.v1" || m.Game != "pokemon" || m.Window != "7d" || m.Total == 0 || m.Basis == "" ||
			len(m.Gainers)+len(m.Losers) == 0 || len(m.Gainers) > cardmcp.MoversLimit || len(m.Losers) > cardmcp.MoversLimit {
			t.Fatalf("movers: %s", env.Data)
		}
		for i, g := range m.Gainers {
			if g.Value <= 0 || g.Rank != i+1 || (i > 0 && g.Value > m.Gainers[i-1].Value) {
				t.Errorf("gainer %d: %+v", i, g)
			}
		}
		for i, l := range m.Losers {
			if l.Value >= 0 || (i > 0 && l.Value < m.Losers[i-1].Value) {
				t.Errorf("loser %d: %+v", i, l)
			}
		}
	})

	// A URI that names nothing is a JSON-RPC error "resource not found"
	// (-32002) whose message says what is wrong; it costs its unit, as a
	// tools/call whose ids do not resolve. A URI of no resource is mcp-go's
	// own -32002, free.
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, tc := range []struct {
			uri, code, msg string
			rpc            int
			cost           int64
		}{
			{"cardedge://cards/en:nope-999", apperr.ENOTFOUND, `no card has the id "en:nope-999"`, -32002, 1},
			{"cardedge://sets/en:nope", apperr.ENOTFOUND, `no set has the id "en:nope"`, -32002, 1},
			{"cardedge://movers/chess", apperr.ENOTFOUND, `no game "chess"`, -32002, 1},
			{"cardedge://cards/", apperr.EINVALID, "give the id after cardedge://cards/", -32602, 0},
			{"cardedge://cards/%zz", "", "handler not found", -32002, 0},
			{"cardedge://decks/1", "", "handler not found", -32002, 0},
		} {
			before := e.used(t, access.Elite)
			r := key.refused("resources/read", map[string]any{"uri": tc.uri})
			if r.Error.Code != tc.rpc || !strings.Contains(r.Error.Message, tc.msg) {
				t.Errorf("%s: %d %q, want %d %q", tc.uri, r.Error.Code, r.Error.Message, tc.rpc, tc.msg)
			}
			if tc.code != "" && (r.Error.Data["code"] != tc.code || r.Error.Data["uri"] != tc.uri) {
				t.Errorf("%s: data %v", tc.uri, r.Error.Data)
			}
			if got := e.used(t, access.Elite) - before; got != tc.cost {
				t.Errorf("%s cost %d units, want %d", tc.uri, got, tc.cost)
			}
		}
	})

	// The sessionless 2026-07-28 revision says -32602 for a resource not
	// found (SEP-2164), as mcp-go does.
	t.Run("ErrNotFoundModern", func(t *testing.T) {
		const v = "2026-07-28"
		r := e.post(t, e.keys[access.Elite], "", v, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": map[string]any{
			"uri": "cardedge://cards/en:nope-999", "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": v,
				"io.modelcontextprotocol/clientInfo": map[string]any{"name": "hosts-test", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}},
			"Mcp-Method", "resources/read", "Mcp-Name", "cardedge://cards/en:nope-999")
		if r.status != 200 || r.Error == nil || r.Error.Code != -32602 || r.Error.Data["code"] != apperr.ENOTFOUND {
			t.Errorf("modern read of an unknown card: %d %s", r.status, r.body)
		}
	})

	// The collection: for callers with the chat tools only. Anyone else gets
	// a clear refusal and is not charged.
	t.Run("Collection", func(t *testing.T) {
		for _, tc := range []struct {
			name, token, why string
		}{
			{"APIKey", e.keys[access.Pro], "this credential is an API key"},
			{"FreeAccount", appFree, "free tier, without Apps access"},
			{"AppWithoutScope", appProNoColl, "not granted the collection scope"},
		} {
			s := e.session(t, tc.token, "2025-11-25")
			before := e.used(t, access.Pro)
			r := s.refused("resources/read", map[string]any{"uri": cardmcp.CollectionURI})
			if r.Error.Code != -32002 || r.Error.Data["code"] != apperr.EFORBIDDEN || !strings.Contains(r.Error.Message, tc.why) {
				t.Errorf("%s: %d %q %v", tc.name, r.Error.Code, r.Error.Message, r.Error.Data)
			}
			if dailyRemaining(r.header) != -1 {
				t.Errorf("%s: refused read was charged: %s", tc.name, r.header.Get(access.HeaderRateLimit))
			}
			if got := e.used(t, access.Pro) - before; tc.name == "APIKey" && got != 0 {
				t.Errorf("%s: refused read cost %d", tc.name, got)
			}
		}
		r1 := app.call("resources/read", map[string]any{"uri": cardmcp.CollectionURI}, nil)
		env := app.read(cardmcp.CollectionURI)
		r2 := app.call("resources/read", map[string]any{"uri": cardmcp.CollectionURI}, nil)
		var v struct {
			Owner   string `json:"owner"`
			Summary struct {
				Holdings int `json:"holdings"`
				Quantity int `json:"quantity"`
			} `json:"summary"`
			Holdings []struct {
				CardID string `json:"card_id"`
			} `json:"holdings"`
		}
		json.Unmarshal(env.Data, &v)
		if env.Contract != "mcp.resource.collection.v1" || env.Cost != 1 || v.Summary.Holdings != 1 || v.Summary.Quantity != 2 ||
			len(v.Holdings) != 1 || v.Holdings[0].CardID != "en:base1-4" {
			t.Errorf("collection: %+v %s", env, env.Data)
		}
		// Each read spent one unit of the account's quota.
		if a, b := dailyRemaining(r1.header), dailyRemaining(r2.header); a < 0 || a-b != 2 {
			t.Errorf("remaining %d then %d over two reads, want 2 apart", a, b)
		}
	})

	// A key whose quota is spent is refused before the read: HTTP 429 with
	// Retry-After, as a tools/call.
	t.Run("ErrQuota", func(t *testing.T) {
		s := e.session(t, e.keys[access.Pro], "2025-11-25")
		left := int64(access.LimitsOf(access.Pro).DailyQuota) - e.used(t, access.Pro)
		if _, err := e.acc.Charge(access.Caller{KeyID: e.ids[access.Pro], Tier: access.Pro}, int(left)); err != nil {
			t.Fatal(err)
		}
		s.next++
		r := s.post(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": "resources/read", "params": map[string]any{"uri": "cardedge://cards/en:base1-4"}})
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Errorf("read over quota: %d %s", r.status, r.body)
		}
	})
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
