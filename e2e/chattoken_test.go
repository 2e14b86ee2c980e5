package e2e_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/mcp/mcptest"
	"github.com/cardedge/cardedge/state"
	"github.com/golang-jwt/jwt/v5"
)

// Chat-user tokens against the real program (env): the dashboard mints one
// (POST /dashboard/chat/token; the endpoint itself: web's tests), the agent
// chat and MCP accept it, every other route refuses it, and a token that is
// expired, tampered with or of another audience is refused everywhere; the
// official MCP TypeScript SDK connects with one. (Which tools a token sees
// and what they cost: mcp's TestMCP_ChatTools.)

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
	tok, _ := d.ChatToken()
	now := time.Now()
	claims := func(kv ...any) jwt.MapClaims {
		c := jwt.MapClaims{"iss": "cardedge", "aud": []string{"chat"}, "sub": id, "tier": "pro", "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()}
		for i := 0; i+1 < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	if s := openSession(t, forge(t, claims())); len(s.ToolNames()) != len(mcptest.PublicTools)+len(mcptest.ChatTools) {
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
			if r := mcptest.Post(t, env.base, tc.token, "", mcptest.Initialize(0)); r.Status != 401 || !strings.Contains(string(r.Body), tc.msg) {
				t.Errorf("MCP initialize: %d %s", r.Status, r.Body)
			}
			if r := do(t, keyedClient, "POST", "/api/v3/agent/chat", tc.token, []byte(`{"message": "top movers this week"}`)); r.Status != 401 || !strings.Contains(string(r.Body), tc.msg) {
				t.Errorf("agent chat: %d %s", r.Status, r.Body)
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
		if r.Status != 401 || !strings.Contains(string(r.Body), "accepted only by the agent chat") {
			t.Errorf("GET %s with a chat token: %d %s", path, r.Status, r.Body)
		}
	}
	if r := do(t, keyedClient, "POST", "/prices", tok, []byte(`{"ids": ["en:base1-4"]}`)); r.Status != 401 {
		t.Errorf("POST /prices with a chat token: %d %s", r.Status, r.Body)
	}

	// The token endpoint needs the session and its CSRF token.
	if p := d.Post("/dashboard/chat/token", url.Values{"csrf": {"nope"}}); p.Status != http.StatusForbidden {
		t.Errorf("token without the CSRF token: %d", p.Status)
	}
	if p := newDash(t).Post("/dashboard/chat/token", url.Values{}); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/dashboard/signin") {
		t.Errorf("token without a session: %d %s", p.Status, p.Header.Get("Location"))
	}
}

// runTSChat runs chat.mjs (mcp/testdata/tsclient, the official MCP
// TypeScript SDK installed once by tools/npm/install) with token in mode and
// returns its summary; it skips the test without Node.js 20.19+ and npm.
func runTSChat(t *testing.T, token, mode string) map[string]any {
	t.Helper()
	dir := npmWorkdir(t, "mcp/testdata/tsclient", "chat.mjs")
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
	tok, _ := pro.ChatToken()
	sum := runTSChat(t, tok, "apps")
	t.Logf("TypeScript SDK with a Pro token: chat tools %v, calls %v, cost %v", sum["chat_tools"], sum["calls"], sum["cost"])
	if got := fmt.Sprint(sum["chat_tools"]); got != fmt.Sprint(mcptest.ChatTools) {
		t.Errorf("chat tools %s, want %v", got, mcptest.ChatTools)
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
	secret, _ := pro.CreateKey("collection-reader")
	waitStatus(t, "/api/v3/cards?limit=1", secret, 200) // the key table reloads within a second
	r := do(t, keyedClient, "GET", "/api/v3/me/collection?history=false", secret, nil)
	if r.Status != 200 {
		t.Fatalf("GET /api/v3/me/collection: %d %s", r.Status, r.Body)
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
	page := pro.Get("/dashboard/collection")
	if page.Status != 200 || strings.Count(page.Body, `name="card_id"`) != 1 ||
		!strings.Contains(page.Body, `name="card_id" value="en:base1-4"`) || !strings.Contains(page.Body, `data-label="Copies">1<`) {
		t.Errorf("the collection page after the SDK's add and remove: %d %.2000s", page.Status, page.Body)
	}

	free, _ := chatSession(t, "free")
	freeTok, _ := free.ChatToken()
	if sum := runTSChat(t, freeTok, "public"); len(sum["tools"].([]any)) != len(mcptest.PublicTools) {
		t.Errorf("Free token: %v", sum["tools"])
	}
	if sum := runTSChat(t, env.keys["pro"], "public"); len(sum["tools"].([]any)) != len(mcptest.PublicTools) {
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
