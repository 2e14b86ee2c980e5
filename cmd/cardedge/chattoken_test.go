package main_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/chattoken"
	"github.com/cardedge/cardedge/state"
	stateredis "github.com/cardedge/cardedge/state/redis"
	"github.com/cardedge/cardedge/state/redis/redistest"
	"github.com/golang-jwt/jwt/v5"
)

// Chat-user tokens against the real program (env): a signed-in page obtains
// one (POST /dashboard/chat/token), the agent chat and MCP accept it, every
// other route refuses it; with a Pro account's token MCP lists the chat
// tools, with a Free account's or an API key only the ten public tools.

// publicTools are the ten tools every key sees.
var publicTools = []string{"batch_grade_ladder", "compare_set_finish", "get_cohort", "get_listings", "get_prices", "get_sales",
	"pin_cohort", "quote", "rank_set_sales", "search"}

// chatToolNames are the chat tools of Apps access.
var chatToolNames = []string{"add_to_collection", "list_collection", "price_card", "remove_from_collection", "show_cards"}

// chatSession is a signed-in dashboard client of a fresh account of tier
// (free, pro, elite) and its account id.
func chatSession(t *testing.T, tier string) (*dash, string) {
	t.Helper()
	d := newDash(t)
	email := uniqueEmail(t)
	d.signUp(email)
	if tier != "free" {
		if out, err := runMain(t, "accounts", "set-tier", "--state", env.state, email, tier); err != nil {
			t.Fatalf("set-tier: %v %s", err, out)
		}
	}
	out, err := runMain(t, "accounts", "list", "--state", env.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, email) {
			return d, strings.Fields(line)[0]
		}
	}
	t.Fatalf("account %s not listed:\n%s", email, out)
	return nil, ""
}

// chatToken obtains a chat-user token as the chat page's script does.
func (d *dash) chatToken() (string, map[string]any) {
	d.t.Helper()
	p := d.post("/dashboard/chat/token", url.Values{"csrf": {d.csrf("/dashboard/chat")}})
	if p.status != 200 || !strings.HasPrefix(p.header.Get("Content-Type"), "application/json") {
		d.t.Fatalf("chat token: %d %s %.300s", p.status, p.header.Get("Content-Type"), p.body)
	}
	if cc := p.header.Get("Cache-Control"); cc != "no-store" {
		d.t.Errorf("chat token Cache-Control %q", cc)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(p.body), &j); err != nil {
		d.t.Fatal(err)
	}
	tok, _ := j["token"].(string)
	if strings.Count(tok, ".") != 2 {
		d.t.Fatalf("token %q", tok)
	}
	return tok, j
}

// toolNames lists the tools a session sees, sorted.
func toolNames(t *testing.T, s *mcpSession) []string {
	t.Helper()
	r := s.rpc("tools/list", map[string]any{})
	if r.status != 200 {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	var names []string
	for _, x := range r.msg["result"].(map[string]any)["tools"].([]any) {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	sort.Strings(names)
	return names
}

// signingKey reads the current chat-token signing key from the state file.
func signingKey(t *testing.T) (kid string, secret []byte) {
	t.Helper()
	var set struct {
		Keys []struct {
			ID      string    `json:"kid"`
			Secret  []byte    `json:"secret"`
			Retired time.Time `json:"retired"`
		} `json:"keys"`
	}
	err := stateAt(t, env.state).View(context.Background(), func(tx state.Tx) error {
		b, err := tx.Get(state.Secrets, "chat-token")
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &set)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range set.Keys {
		if k.Retired.IsZero() {
			return k.ID, k.Secret
		}
	}
	t.Fatal("no current chat-token key")
	return "", nil
}

// forge signs claims with the server's own key: tokens the dashboard never
// mints (expired, another audience).
func forge(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	kid, secret := signingKey(t)
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestChatToken_Tools(t *testing.T) {
	pro, proID := chatSession(t, "pro")
	proTok, j := pro.chatToken()
	if j["tier"] != "pro" || j["apps_access"] != true || j["chat_url"] != "/api/v3/agent/chat" || j["mcp_url"] != mcpPath {
		t.Errorf("token answer %v", j)
	}
	if exp, err := time.Parse(time.RFC3339, j["expires_at"].(string)); err != nil || time.Until(exp) > 15*time.Minute || time.Until(exp) < 14*time.Minute {
		t.Errorf("expires_at %v (%v): want 15 minutes from now", j["expires_at"], err)
	}

	// A Pro account's token: the ten public tools and the chat tools.
	s := openSession(t, proTok)
	want := slices.Sorted(slices.Values(append(slices.Clone(publicTools), chatToolNames...)))
	if got := toolNames(t, s); !slices.Equal(got, want) {
		t.Errorf("Pro token tools %v, want %v", got, want)
	}
	d := s.ok("show_cards", map[string]any{"ids": []string{"en:base1-4", "no-such-card-zz"}}).data
	cards := items(t, d["cards"])
	if len(cards) != 1 || cards[0]["card_id"] != "en:base1-4" || cards[0]["url"] != "/dashboard/cards/en:base1-4" || cards[0]["name"] != "Charizard" {
		t.Fatalf("show_cards: %s", truncate(mustJSON(d)))
	}
	if len(items(t, cards[0]["printings"])) == 0 || cards[0]["confidence"] == nil || len(items(t, d["unresolved"])) != 1 {
		t.Errorf("show_cards card: %s", truncate(mustJSON(d)))
	}
	pc := s.ok("price_card", map[string]any{"card": "en:base1-4", "grade": "raw:near_mint"})
	if pc.env["cost"] != 1.0 || pc.data["grade"] != "raw:near_mint" || pc.data["confidence"] == nil || pc.data["quote"] == nil {
		t.Errorf("price_card: %s", truncate([]byte(pc.text)))
	}
	s.fails("price_card", map[string]any{"card": "en:base1-4", "printing": "gold-star"}, "not a printing of card en:base1-4")
	// The collection tools change the account's collection.
	if l := s.ok("list_collection", nil).data; l["total"] != 0.0 || l["owner"] != "account" {
		t.Errorf("a new account's collection: %s", truncate(mustJSON(l)))
	}
	add := s.ok("add_to_collection", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 3, "price_paid_usd": 200}).data
	if h := add["holding"].(map[string]any); h["quantity"] != 3.0 || h["paid_usd"] != 600.0 || add["collection"].(map[string]any)["quantity"] != 3.0 {
		t.Errorf("add_to_collection: %s", truncate(mustJSON(add)))
	}
	s.fails("add_to_collection", map[string]any{"card": "pikachu"}, "candidates")
	s.fails("remove_from_collection", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 4}, "holds 3 copies")
	rm := s.ok("remove_from_collection", map[string]any{"card": "en:base1-4", "grade": "slab:10", "quantity": 0}).data
	if rm["holding"].(map[string]any)["quantity"] != 0.0 || rm["collection"].(map[string]any)["holdings"] != 0.0 {
		t.Errorf("remove_from_collection of every copy: %s", truncate(mustJSON(rm)))
	}
	// The public tools answer as for a key.
	if q := s.ok("quote", map[string]any{"ids": []string{"en:base1-4"}}).data; len(items(t, q["items"])) != 1 {
		t.Errorf("quote with a token: %v", q)
	}
	// Charged to the account's chat quota (its tier's: 2,000 a day).
	if rl := pc.header.Get("RateLimit"); !strings.Contains(rl, `"daily";r=`) {
		t.Errorf("RateLimit %q", rl)
	}
	if got := pc.header.Get("X-Service-Tier"); got != "pro" {
		t.Errorf("X-Service-Tier %q", got)
	}
	// show_cards 1 (one card), price_card 1, the failed price_card 1 (the
	// HTTP layer's unit), list, add, remove 1 each, the failed add and
	// remove 1 each, quote 1.
	waitUsage(t, proID, 9)
	if n := chatUsage(t, proID); n != 9 {
		t.Errorf("the account's chat usage is %d units, want 9", n)
	}

	// A Free account's token: the ten public tools; a chat tool is refused
	// and costs nothing.
	free, freeID := chatSession(t, "free")
	freeTok, j := free.chatToken()
	if j["apps_access"] != false {
		t.Errorf("free token answer %v", j)
	}
	fs := openSession(t, freeTok)
	if got := toolNames(t, fs); !slices.Equal(got, publicTools) {
		t.Errorf("Free token tools %v", got)
	}
	r := fs.rpc("tools/call", map[string]any{"name": "show_cards", "arguments": map[string]any{"ids": []string{"en:base1-4"}}})
	if r.status != 200 || (r.msg["error"] == nil && r.msg["result"].(map[string]any)["isError"] != true) {
		t.Errorf("show_cards with a Free token: %d %s", r.status, r.body)
	}
	if n := chatUsage(t, freeID); n != 0 {
		t.Errorf("the refused chat tool cost %d units", n)
	}

	// An API key (even a Pro key) sees the ten public tools only.
	ks := openSession(t, env.keys["pro"])
	if got := toolNames(t, ks); !slices.Equal(got, publicTools) {
		t.Errorf("API key tools %v", got)
	}
	ks.close()
	s.close()
	fs.close()

	// The session of a token is the account's: another account's token
	// cannot use it.
	if r := rpcRaw(t, env.base, freeTok, s.id, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}); r.status != 404 {
		t.Errorf("another account's session: %d", r.status)
	}
}

// chatUsage reads an account's chat usage of today from the state file.
func chatUsage(t *testing.T, account string) int64 {
	t.Helper()
	var n int64
	err := stateAt(t, env.state).View(context.Background(), func(tx state.Tx) (err error) {
		n, err = tx.Count(state.Usage, account+"/"+time.Now().UTC().Format("2006-01-02"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitUsage waits for the access sync (once a second) to store at least
// min units of the account's chat usage.
func waitUsage(t *testing.T, account string, min int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := chatUsage(t, account)
		if n >= min {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("usage of %s: %d units stored, want at least %d", account, n, min)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestChatToken_Refused(t *testing.T) {
	d, id := chatSession(t, "pro")
	tok, _ := d.chatToken()
	now := time.Now()
	claims := func(kv ...any) jwt.MapClaims {
		c := jwt.MapClaims{"iss": "cardedge", "aud": []string{"chat"}, "sub": id, "tier": "pro", "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()}
		for i := 0; i+1 < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	if s := openSession(t, forge(t, claims())); len(toolNames(t, s)) != len(publicTools)+len(chatToolNames) {
		t.Fatal("a forged token with the right claims does not work: the test's forging is wrong")
	}
	parts := strings.Split(tok, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	elite := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"tier":"pro"`, `"tier":"elite"`, 1)))
	for _, tc := range []struct{ name, token, msg string }{
		{"expired", forge(t, claims("iat", now.Add(-20*time.Minute).Unix(), "exp", now.Add(-5*time.Minute).Unix())), "chat token expired"},
		{"tampered", parts[0] + "." + elite + "." + parts[2], "invalid chat token"},
		{"bad signature", parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2])), "invalid chat token"},
		{"wrong audience", forge(t, claims("aud", []string{"api"})), "not a chat token"},
		{"no audience", forge(t, jwt.MapClaims{"iss": "cardedge", "sub": id, "tier": "pro", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix()}), "not a chat token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := rpcRaw(t, env.base, tc.token, "", initializeMsg(0)); r.status != 401 || !strings.Contains(string(r.body), tc.msg) {
				t.Errorf("MCP initialize: %d %s", r.status, r.body)
			}
			if r := do(t, keyedClient, "POST", "/api/v3/agent/chat", tc.token, []byte(`{"message": "top movers this week"}`)); r.status != 401 || !strings.Contains(string(r.body), tc.msg) {
				t.Errorf("agent chat: %d %s", r.status, r.body)
			}
		})
	}

	// A valid token works on the agent chat and MCP only: a REST data route
	// is a 401 that says where it works.
	events, _ := readSSE(t, env.base, tok, `{"message": "top movers this week"}`)
	if text, calls := checkStream(t, events); calls["trending"] == nil || !strings.Contains(text, "7 days") {
		t.Errorf("agent chat with a token: %q %v", text, calls)
	}
	for _, path := range []string{"/api/v3/cards?limit=1", "/api/v3/cards/en:base1-4", "/keys/usage", "/api/v3/search?q=charizard"} {
		r := do(t, keyedClient, "GET", path, tok, nil)
		if r.status != 401 || !strings.Contains(string(r.body), "accepted only by the agent chat") {
			t.Errorf("GET %s with a chat token: %d %s", path, r.status, r.body)
		}
	}
	if r := do(t, keyedClient, "POST", "/prices", tok, []byte(`{"ids": ["en:base1-4"]}`)); r.status != 401 {
		t.Errorf("POST /prices with a chat token: %d %s", r.status, r.body)
	}

	// The token endpoint needs the session and its CSRF token.
	if p := d.post("/dashboard/chat/token", url.Values{"csrf": {"nope"}}); p.status != http.StatusForbidden {
		t.Errorf("token without the CSRF token: %d", p.status)
	}
	if p := newDash(t).post("/dashboard/chat/token", url.Values{}); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/dashboard/signin") {
		t.Errorf("token without a session: %d %s", p.status, p.header.Get("Location"))
	}
}

// runTSChat runs chat.mjs (mcp/testdata/tsclient, the official MCP
// TypeScript SDK installed once by tools/npm/install) with token in mode and
// returns its summary; it skips the test without Node.js 20.19+ and npm.
func runTSChat(t *testing.T, token, mode string) map[string]any {
	t.Helper()
	tools := npmTools(t, "mcp/testdata/tsclient")
	dir := npmWorkdir(t, tools, "mcp/testdata/tsclient", "chat.mjs")
	out := runNode(t, dir, 2*time.Minute, "node", "chat.mjs", env.base+mcpPath, token, mode)
	var sum map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(out), &sum); err != nil {
		t.Fatalf("chat.mjs summary: %v: %s", err, out)
	}
	return sum
}

// TestMCP_TypeScriptSDK_ChatToken: the official TypeScript SDK with chat
// tokens: a Pro account's lists the public and the chat tools and calls the
// chat tools; a Free account's and an API key list the ten public tools;
// expired, tampered and wrong-audience tokens are refused (401) when the
// client connects.
func TestMCP_TypeScriptSDK_ChatToken(t *testing.T) {
	pro, proID := chatSession(t, "pro")
	tok, _ := pro.chatToken()
	sum := runTSChat(t, tok, "apps")
	t.Logf("TypeScript SDK with a Pro token: chat tools %v, calls %v, cost %v", sum["chat_tools"], sum["calls"], sum["cost"])
	if got := fmt.Sprint(sum["chat_tools"]); got != fmt.Sprint(chatToolNames) {
		t.Errorf("chat tools %s, want %v", got, chatToolNames)
	}
	calls := 0
	for _, n := range sum["calls"].(map[string]any) {
		calls += int(n.(float64))
	}
	if structured := int(sum["structured"].(float64)); structured != calls-2 { // price_card of a bad printing and remove_from_collection of nothing are tool errors
		t.Errorf("%d of %d calls answered structuredContent", structured, calls)
	}
	waitUsage(t, proID, int64(sum["cost"].(float64)))

	// add_to_collection changed the account's collection: its keys read it
	// (GET /api/v3/me/collection, collection.v1).
	secret, _ := pro.createKey("collection-reader")
	waitStatus(t, "/api/v3/cards?limit=1", secret, 200) // the key table reloads within a second
	r := do(t, keyedClient, "GET", "/api/v3/me/collection?history=false", secret, nil)
	if r.status != 200 {
		t.Fatalf("GET /api/v3/me/collection: %d %s", r.status, r.body)
	}
	coll := data(t, r)
	var held []string
	for _, h := range items(t, coll["holdings"]) {
		held = append(held, fmt.Sprintf("%s %s %v", h["card_id"], h["grade"], h["quantity"]))
	}
	if fmt.Sprint(held) != "[en:base1-4 slab:9 1]" || coll["owner"] != "account" {
		t.Errorf("the account's collection after the SDK's add and remove: %v (owner %v)", held, coll["owner"])
	}
	// And its collection page (the dashboard's, same account) shows the
	// holding: one row, its card, one copy.
	page := pro.get("/dashboard/collection")
	if page.status != 200 || strings.Count(page.body, `name="card_id"`) != 1 ||
		!strings.Contains(page.body, `name="card_id" value="en:base1-4"`) || !strings.Contains(page.body, `data-label="Copies">1<`) {
		t.Errorf("the collection page after the SDK's add and remove: %d %.2000s", page.status, page.body)
	}

	free, _ := chatSession(t, "free")
	freeTok, _ := free.chatToken()
	if sum := runTSChat(t, freeTok, "public"); len(sum["tools"].([]any)) != len(publicTools) {
		t.Errorf("Free token: %v", sum["tools"])
	}
	if sum := runTSChat(t, env.keys["pro"], "public"); len(sum["tools"].([]any)) != len(publicTools) {
		t.Errorf("API key: %v", sum["tools"])
	}

	now := time.Now()
	parts := strings.Split(tok, ".")
	for name, bad := range map[string]string{
		"expired":        forge(t, jwt.MapClaims{"iss": "cardedge", "aud": "chat", "sub": proID, "tier": "pro", "iat": now.Add(-time.Hour).Unix(), "exp": now.Add(-time.Minute).Unix()}),
		"tampered":       parts[0] + "." + parts[1] + "x." + parts[2],
		"wrong audience": forge(t, jwt.MapClaims{"iss": "cardedge", "aud": "api", "sub": proID, "tier": "pro", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix()}),
	} {
		if sum := runTSChat(t, bad, "refused"); sum["status"] != 401.0 {
			t.Errorf("%s token: %v", name, sum)
		}
	}
}

// TestSecrets_Rotate: cardedge secrets rotate chat-token makes a new
// current signing key in the state file and in a fleet's Redis store, which
// the tokens minted next carry (their kid); the store flags are checked.
func TestSecrets_Rotate(t *testing.T) {
	kidOf := func(t *testing.T, st state.Store) string {
		t.Helper()
		svc, err := chattoken.New(context.Background(), chattoken.Options{State: st})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := svc.Mint("a_rotate", access.Pro)
		if err != nil {
			t.Fatal(err)
		}
		head, err := base64.RawURLEncoding.DecodeString(strings.Split(tok.Value, ".")[0])
		if err != nil {
			t.Fatal(err)
		}
		var h struct {
			Kid string `json:"kid"`
		}
		if err := json.Unmarshal(head, &h); err != nil {
			t.Fatal(err)
		}
		return h.Kid
	}
	rotate := func(t *testing.T, flags ...string) string {
		t.Helper()
		out, err := mainRun(append(append([]string{"secrets", "rotate"}, flags...), "chat-token")...)
		if err != nil {
			t.Fatalf("secrets rotate %v: %v: %s", flags, err, out)
		}
		kid, _, ok := strings.Cut(strings.TrimPrefix(out, "chat-token: new signing key "), ";")
		if !ok || kid == "" {
			t.Fatalf("secrets rotate said %q", out)
		}
		return kid
	}
	t.Run("State", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.bolt")
		k1 := rotate(t, "--state", path)
		k2 := rotate(t, "--state", path)
		if k1 == k2 {
			t.Errorf("a second rotation kept key %s", k1)
		}
		if got := kidOf(t, stateAt(t, path)); got != k2 {
			t.Errorf("a token minted after the rotation carries kid %q, want %q", got, k2)
		}
	})
	t.Run("Redis", func(t *testing.T) {
		rs := redistest.Start(t, false)
		k := rotate(t, "--redis", rs.URL())
		st, err := stateredis.Open(rs.URL(), stateredis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if got := kidOf(t, st); got != k {
			t.Errorf("a token minted after the rotation carries kid %q, want %q", got, k)
		}
	})
	t.Run("ErrFlags", func(t *testing.T) {
		for _, args := range [][]string{
			{"secrets", "rotate", "chat-token"},
			{"secrets", "rotate", "--state", "x.bolt", "--redis", "redis://127.0.0.1:1/0", "chat-token"},
			{"secrets", "rotate", "--state", filepath.Join(t.TempDir(), "s.bolt"), "cursor"},
		} {
			if out, err := mainRun(args...); err == nil {
				t.Errorf("%v: no error: %s", args, out)
			}
		}
	})
}
