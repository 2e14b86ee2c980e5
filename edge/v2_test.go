package edge

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/valyala/fasthttp"
)

// v2Body decodes a /v2 answer.
func v2Body(t *testing.T, r memoReply) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
		t.Fatalf("%d %s: %v", r.Status, r.Body, err)
	}
	return m
}

// TestV2 drives the /v2 routes through the front door on the tiny
// snapshot: bodies as pokemontcg.io's (no envelope), the card as the
// catalog encodes it, keys in X-Api-Key, the Playground's page cap, and
// errors in pokemontcg.io's shape with their statuses.
func TestV2(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 64<<20)
	key := []string{"X-Api-Key", e.elite}
	v := e.srv.live.Acquire()
	cat := pokemontcg.Of(v)
	v.Release()
	if cat == nil || len(cat.Cards()) == 0 {
		t.Fatal("no /v2 catalog")
	}

	r := e.get(t, "/v2/cards/base1-4", key...)
	if r.Status != 200 || r.Headers["X-Service-Tier"] != "elite" || !strings.HasPrefix(r.Body, `{"data":{"id":"base1-4","name":"Charizard",`) {
		t.Fatalf("card: %d %v %.200s", r.Status, r.Headers, r.Body)
	}
	c, _ := cat.CardByID("base1-4")
	if want := `{"data":` + string(cat.Card(c).AppendJSON(nil, pokemontcg.All)) + `}`; r.Body != want {
		t.Errorf("card body\n got %s\nwant %s", r.Body, want)
	}
	d := v2Body(t, r)["data"].(map[string]any)
	if ce := d["cardedge"].(map[string]any); ce["detail"] != "/api/v3/cards/en:base1-4" || ce["priceSource"] != "synthetic" {
		t.Errorf("cardedge %v", ce)
	}
	if tp, ok := d["tcgplayer"].(map[string]any); !ok || tp["url"] != "https://www.tcgplayer.com/product/42382" {
		t.Errorf("tcgplayer %v", d["tcgplayer"])
	}
	// The same request again is a memo hit, keyed by X-Api-Key; the key's
	// bytes in Authorization (no Bearer) are not.
	hits := e.memoHits()
	if again := e.get(t, "/v2/cards/base1-4", key...); again.Body != r.Body || e.memoHits() != hits+1 {
		t.Errorf("repeat: %d, memo hits %d -> %d", again.Status, hits, e.memoHits())
	}
	if bad := e.get(t, "/v2/cards/base1-4", "Authorization", e.elite); bad.Status != 401 {
		t.Errorf("Authorization without Bearer: %d %s", bad.Status, bad.Body)
	}
	if r := e.get(t, "/v2/cards/base1-4", "Authorization", "Bearer "+e.elite); r.Status != 200 || r.Headers["X-Service-Tier"] != "elite" {
		t.Errorf("Bearer on /v2: %d %v", r.Status, r.Headers)
	}

	r = e.get(t, "/v2/cards?q=set.id:base1%20supertype:pok%C3%A9mon&orderBy=-hp,name&pageSize=5&page=2&select=id,hp,name", key...)
	m := v2Body(t, r)
	if r.Status != 200 || m["page"] != 2.0 || m["pageSize"] != 5.0 || m["count"] != 5.0 || m["totalCount"].(float64) < 50 {
		t.Fatalf("list: %d %.300s", r.Status, r.Body)
	}
	for _, x := range m["data"].([]any) {
		if len(x.(map[string]any)) != 3 {
			t.Errorf("select id,hp,name: %v", x)
		}
	}

	for _, tc := range []struct {
		uri, headers string
		status       int
		message      string
	}{
		{"/v2/cards?q=legailities.standard:legal", "key", 400, `q: "legailities.standard:legal" at position 0: unknown field "legailities.standard"`},
		{"/v2/cards?q=hp:[1%20TO", "key", 400, `q: `},
		{"/v2/cards?orderBy=nmae", "key", 400, `orderBy: unknown field "nmae"`},
		{"/v2/cards?select=id,nmae", "key", 400, `select: unknown field "nmae"`},
		{"/v2/cards?page=0", "key", 400, `page must be a whole number from 1, not "0"`},
		{"/v2/cards?q=" + strings.Repeat("x", 1025), "key", 400, "1024"},
		{"/v2/cards/base1-9999", "key", 404, `no card with id "base1-9999"`},
		{"/v2/sets/nope", "key", 404, `no set with id "nope"`},
		{"/v2/nope", "key", 404, "no route GET /v2/nope"},
		{"/v2/cards/base1-4", "bad", 401, "invalid X-Api-Key"},
	} {
		h := key
		if tc.headers == "bad" {
			h = []string{"X-Api-Key", "nope"}
		}
		r := e.get(t, tc.uri, h...)
		var body struct {
			Error struct {
				Message string `json:"message"`
				Code    int    `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(r.Body), &body)
		if r.Status != tc.status || body.Error.Code != tc.status || !strings.Contains(body.Error.Message, tc.message) {
			t.Errorf("%s: %d %s, want %d with %q", tc.uri, r.Status, r.Body, tc.status, tc.message)
		}
	}

	// Without a key: the Playground, its pages capped at 50.
	r = e.get(t, "/v2/cards?pageSize=250")
	if m := v2Body(t, r); r.Status != 200 || r.Headers["X-Service-Tier"] != "playground" || m["pageSize"] != 50.0 || len(m["data"].([]any)) != 50 ||
		int(m["totalCount"].(float64)) != len(cat.Cards()) {
		t.Errorf("playground: %d %v %v %v", r.Status, r.Headers["X-Service-Tier"], m["pageSize"], m["totalCount"])
	}
	for _, path := range []string{"types", "subtypes", "supertypes", "rarities", "sets"} {
		r := e.get(t, "/v2/"+path, key...)
		if m := v2Body(t, r); r.Status != 200 || len(m["data"].([]any)) == 0 {
			t.Errorf("%s: %d %.200s", path, r.Status, r.Body)
		}
	}
	// /api/v3 reads no X-Api-Key: a Playground call (429 after the one
	// above, within the second).
	if r := e.get(t, "/api/v3/cards/en:base1-4", key...); r.Headers["X-Service-Tier"] != "playground" {
		t.Errorf("X-Api-Key on /api/v3 is read: %v", r.Headers)
	}
	if r := e.get(t, "/v2/sets/base1?select=id,releaseDate", key...); r.Body != `{"data":{"id":"base1","releaseDate":"1999/01/09"}}` {
		t.Errorf("set: %d %s", r.Status, r.Body)
	}
}

// BenchmarkHandleV2Cached is BenchmarkHandleCached for /v2: a page of 102
// cards (all of base1 in the tiny snapshot, about 200 KB) asked again with
// the same X-Api-Key, answered by the front-door memo.
func BenchmarkHandleV2Cached(b *testing.B) {
	srv, secret := newBenchServer(b, 64<<20)
	var req fasthttp.Request
	req.SetRequestURI("http://edge/v2/cards?q=set.id:base1&pageSize=250")
	req.Header.Set("X-Api-Key", secret)
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
	srv.handle(&ctx)
	if ctx.Response.StatusCode() != 200 {
		b.Fatalf("status %d: %.300s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	b.ReportMetric(float64(len(ctx.Response.Body())), "body_bytes")
	b.ReportAllocs()
	for b.Loop() {
		ctx.Response.Reset()
		srv.handle(&ctx)
	}
}
