package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/openapi"
	"github.com/cardedge/cardedge/openapi/openapitest"
	"github.com/valyala/fasthttp"
)

var update = flag.Bool("update", false, "rewrite the golden files: testdata/examples/*.json and testdata/openapi.json")

// exampleRequests are the requests whose responses are the document's
// examples, one per public route, made in this order with one Pro key
// (history windows keep them short). A route missing here fails
// TestOpenAPI_Examples.
var exampleRequests = []struct {
	route, method, target, ctype, body string
}{
	{"cards_list", "GET", "/api/v3/cards?limit=2&sort=price", "", ""},
	{"card_get", "GET", "/api/v3/cards/en:base1-4?include=market_summary,recent_sales", "", ""},
	{"card_analytics", "GET", "/api/v3/cards/en:base1-4/analytics?window=1m", "", ""},
	{"card_market_history", "GET", "/api/v3/cards/en:base1-4/market-history?condition=raw:near_mint", "", ""},
	{"card_marketplace_sales", "GET", "/api/v3/cards/en:base1-4/marketplace-sales?limit=3", "", ""},
	{"card_price_history", "GET", "/api/v3/cards/en:base1-4/price-history?grade=slab:10", "", ""},
	{"card_sales", "GET", "/api/v3/cards/en:base1-4/sales?limit=2", "", ""},
	{"card_partner_history", "GET", "/api/v3/cards/en:base1-4/partner-history", "", ""},
	{"card_vwap", "GET", "/api/v3/cards/en:base1-4/vwap", "", ""},
	{"cards_batch", "POST", "/api/v3/cards/batch", "application/json", `{"ids":["en:base1-4","en:base1-2"]}`},
	{"trending", "GET", "/api/v3/trending?limit=3", "", ""},
	{"market_volume", "GET", "/api/v3/market/volume?days=7", "", ""},
	{"shop_listings", "GET", "/api/v3/shop/listings?card_id=en:base1-4&limit=2", "", ""},
	{"sets_list", "GET", "/api/v3/sets?limit=2", "", ""},
	{"set_get", "GET", "/api/v3/sets/en:base1", "", ""},
	{"set_breakdown", "GET", "/api/v3/sets/en:base1/breakdown", "", ""},
	{"set_price_distribution", "GET", "/api/v3/sets/en:base1/price-distribution", "", ""},
	{"set_trending_cards", "GET", "/api/v3/sets/en:base1/trending-cards?limit=3", "", ""},
	{"set_volume_history", "GET", "/api/v3/sets/en:base1/volume-history?days=28&granularity=weekly", "", ""},
	{"search", "GET", "/api/v3/search?q=charizard&limit=2", "", ""},
	{"lookup", "GET", "/api/v3/lookup?q=chari&limit=3", "", ""},
	{"quote", "GET", "/api/v3/quote?q=charizard%20base&grade=slab:10", "", ""},
	{"prices_get", "GET", "/prices?ids=en:base1-4", "", ""},
	{"prices_post", "POST", "/prices", "application/json", `{"ids":["en:base1-4","42382"],"source":"all"}`},
	{"imports_preview", "POST", "/api/v3/me/imports/preview", "application/json",
		`{"rows":[{"card_id":"en:base1-4","quantity":1,"grade":"slab:9","price_paid":250},{"name":"Pikachu","quantity":2}]}`},
	{"imports_confirm", "POST", "/api/v3/me/imports/confirm", "application/json", `{"preview_id":"$preview_id"}`},
	{"collection_get", "GET", "/api/v3/me/collection?limit=2", "", ""},
	// Alerts, webhooks and the collection's history (#33): ids made here
	// ($rule_id, $want_id, $endpoint_id) go into later targets; the
	// evaluation of the snapshot runs before alert_events (exampleBefore).
	{"alerts_create", "POST", "/api/v3/me/alerts", "application/json", `{"game":"pokemon","card_id":"en:base1-4","grade":"raw:near_mint","kind":"at_or_above","price_usd":0.01}`},
	{"alerts_list", "GET", "/api/v3/me/alerts", "", ""},
	{"alerts_get", "GET", "/api/v3/me/alerts/$rule_id", "", ""},
	{"alerts_replace", "PUT", "/api/v3/me/alerts/$rule_id", "application/json", `{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_above","price_usd":1,"source":"own"}`},
	{"want_list_create", "POST", "/api/v3/me/want-list", "application/json", `{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_below","price_usd":250,"quantity":1,"note":"for the binder"}`},
	{"want_list_list", "GET", "/api/v3/me/want-list", "", ""},
	{"want_list_get", "GET", "/api/v3/me/want-list/$want_id", "", ""},
	{"want_list_replace", "PUT", "/api/v3/me/want-list/$want_id", "application/json", `{"game":"pokemon","card_id":"en:base1-4","kind":"at_or_below","price_usd":200,"quantity":2}`},
	{"webhooks_create", "POST", "/api/v3/me/webhooks", "application/json", `{"url":"https://93.184.216.34/cardedge","description":"my receiver"}`},
	{"webhooks_list", "GET", "/api/v3/me/webhooks", "", ""},
	{"webhooks_get", "GET", "/api/v3/me/webhooks/$endpoint_id", "", ""},
	{"webhooks_replace", "PUT", "/api/v3/me/webhooks/$endpoint_id", "application/json", `{"url":"https://93.184.216.34/cardedge","description":"my receiver","types":["alert.triggered"]}`},
	{"webhooks_test", "POST", "/api/v3/me/webhooks/$endpoint_id/test", "", ""},
	{"alert_events", "GET", "/api/v3/me/alert-events?limit=1", "", ""},
	{"webhooks_log", "GET", "/api/v3/me/webhooks/$endpoint_id/log?limit=2", "", ""},
	{"webhooks_roll_secret", "POST", "/api/v3/me/webhooks/$endpoint_id/roll-secret", "", ""},
	{"webhooks_disable", "POST", "/api/v3/me/webhooks/$endpoint_id/disable", "", ""},
	{"webhooks_enable", "POST", "/api/v3/me/webhooks/$endpoint_id/enable", "", ""},
	{"webhooks_notices", "GET", "/api/v3/me/webhook-notices", "", ""},
	{"alert_feed_get", "GET", "/api/v3/me/feed", "", ""},
	{"alert_feed_roll", "POST", "/api/v3/me/feed/roll", "", ""},
	{"collection_history", "GET", "/api/v3/me/collection/history", "", ""},
	{"collection_completion", "GET", "/api/v3/me/collection/completion", "", ""},
	{"want_list_delete", "DELETE", "/api/v3/me/want-list/$want_id", "", ""},
	{"alerts_delete", "DELETE", "/api/v3/me/alerts/$rule_id", "", ""},
	{"webhooks_delete", "DELETE", "/api/v3/me/webhooks/$endpoint_id", "", ""},
	{"methodology", "GET", "/api/v3/methodology", "", ""},
	{"keys_usage", "GET", "/keys/usage", "", ""},
	{"bulk_list", "GET", "/api/v3/bulk", "", ""},
}

// rawExampleRequests are the requests whose responses are the examples of
// the routes whose bodies are not JSON envelopes (route.responses): one
// per status the example shows, made with the same key. $etag is the ETag
// of the route's 200.
var rawExampleRequests = []struct {
	route, target string
	status        int
	headers       []string
}{
	{"bulk_download", "/api/v3/bulk/pokemon-sets", 200, nil},
	{"bulk_download", "/api/v3/bulk/pokemon-sets", 206, []string{"Range", "bytes=100-199"}},
	{"bulk_download", "/api/v3/bulk/pokemon-sets", 304, []string{"If-None-Match", "$etag"}},
	{"bulk_download", "/api/v3/bulk/pokemon-sets", 416, []string{"Range", "bytes=100000000-"}},
	{"bulk_schema", "/api/v3/bulk/pokemon-sets/schema", 200, nil},
	{"bulk_schema", "/api/v3/bulk/pokemon-sets/schema", 304, []string{"If-None-Match", "$etag"}},
	{"v2_cards", "/v2/cards?q=name:charizard&orderBy=-set.releaseDate&pageSize=1", 200, nil},
	{"v2_cards", "/v2/cards?q=name:charizard%20hp:[150%20TO", 400, nil},
	{"v2_card", "/v2/cards/base1-4", 200, nil},
	{"v2_card", "/v2/cards/base1-9999", 404, nil},
	{"v2_sets", "/v2/sets?q=legalities.standard:legal&pageSize=1", 200, nil},
	{"v2_set", "/v2/sets/base1", 200, nil},
	{"v2_types", "/v2/types", 200, nil},
	{"v2_subtypes", "/v2/subtypes", 200, nil},
	{"v2_supertypes", "/v2/supertypes", 200, nil},
	{"v2_rarities", "/v2/rarities", 200, nil},
}

// rawExampleHeaders are the response headers a raw example records (those
// the response has).
var rawExampleHeaders = []string{"Content-Length", "ETag", "Accept-Ranges", "Content-Range", "Cache-Control",
	"Content-Disposition", "Repr-Digest", "Last-Modified", "Retry-After"}

// examplesDir holds the recorded examples; openapiGolden the document.
const (
	examplesDir   = "testdata/examples"
	openapiGolden = "testdata/openapi.json"
	goldenURL     = "http://127.0.0.1:8080"
)

// TestOpenAPI_Examples records a real response of every public route on the
// tiny snapshot and compares it with testdata/examples (-update rewrites
// them: make golden). Values of the moment (preview and import ids, the key
// id, today's date and timestamps, seconds to the quota reset) are
// normalized so the files change only when a response's shape or the
// snapshot's data does.
func TestOpenAPI_Examples(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	secret, key, err := e.store.Create(context.Background(), access.KeySpec{Tier: access.Pro, Name: "examples", Unmetered: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.acc.Sync(); err != nil {
		t.Fatal(err)
	}
	doc := mustServedDocument(t, e.srv)
	seen := map[string]bool{}
	vars := map[string]string{}
	norm := normalizer{keyID: key.ID, ids: map[string]string{}}
	var files []string
	for _, x := range exampleRequests {
		seen[x.route] = true
		body, target := x.body, x.target
		for k, v := range vars {
			body = strings.ReplaceAll(body, "$"+k, v)
			target = strings.ReplaceAll(target, "$"+k, v)
		}
		if x.route == "alert_events" {
			e.evaluate(t) // what serve does when a snapshot goes live: the rules fire, the webhooks deliver
		}
		status, resp := e.do(t, x.method, target, x.ctype, body, "Authorization", "Bearer "+secret)
		if status != 200 {
			t.Errorf("%s %s: %d %s", x.method, x.target, status, resp)
			continue
		}
		var envelope struct {
			Data map[string]any `json:"data"`
		}
		json.Unmarshal(resp, &envelope)
		if id, ok := envelope.Data["preview_id"].(string); ok {
			vars["preview_id"] = id
		}
		if v, ok := map[string]string{"alerts_create": "rule_id", "want_list_create": "want_id"}[x.route]; ok {
			vars[v], _ = envelope.Data["id"].(string)
		}
		if ep, ok := envelope.Data["endpoint"].(map[string]any); ok {
			vars["endpoint_id"], _ = ep["id"].(string)
		}
		rt, _, _ := e.srv.router.match(x.method, strings.SplitN(target, "?", 2)[0])
		if rt == nil || rt.name != x.route {
			t.Errorf("%s %s is not route %s", x.method, x.target, x.route)
			continue
		}
		if err := doc.ValidateResponse(x.method, rt.pattern, 200, resp); err != nil {
			t.Errorf("%s %s: the response does not validate against the document:\n%v", x.method, x.target, err)
		}
		ex := openapi.Example{Request: x.target, Response: norm.normalize(resp)}
		if body != "" {
			ex.Body = norm.normalize([]byte(body))
		}
		got, err := json.MarshalIndent(ex, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		file := filepath.Join(examplesDir, x.route+".json")
		files = append(files, x.route+".json")
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("route %s has no example: %v (run make golden)", x.route, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the example of %s (%s) differs from its response; if the change is meant, run make golden and review the diff\n%s",
				x.route, file, firstDiff(want, got))
		}
	}
	files = append(files, recordRawExamples(t, e, doc, secret, norm, seen)...)
	for _, name := range sortedRouteNames(e.srv) {
		if !seen[name] {
			t.Errorf("public route %s has no example request in exampleRequests", name)
		}
	}
	entries, _ := os.ReadDir(examplesDir)
	for _, ent := range entries {
		if !ent.IsDir() && !slices.Contains(files, ent.Name()) { // sources/: TestOpenAPI_SourcesExamples
			if *update {
				os.Remove(filepath.Join(examplesDir, ent.Name()))
				continue
			}
			t.Errorf("%s/%s is the example of no route (run make golden)", examplesDir, ent.Name())
		}
	}
}

// recordRawExamples makes rawExampleRequests and compares (or, with
// -update, writes) each route's example: the status is the one asked for,
// every recorded header and the body's media type are in the document's
// response, and a JSON body validates against its schema. It returns the
// example files.
func recordRawExamples(t *testing.T, e *memoEnv, doc *openapitest.Document, secret string, norm normalizer, seen map[string]bool) []string {
	t.Helper()
	var files []string
	examples := map[string]*openapi.Example{}
	etags := map[string]string{}
	for _, x := range rawExampleRequests {
		seen[x.route] = true
		rt, _, _ := e.srv.router.match("GET", strings.SplitN(x.target, "?", 2)[0])
		if rt == nil || rt.name != x.route || rt.responses == nil {
			t.Errorf("GET %s is not route %s with raw responses", x.target, x.route)
			continue
		}
		hdr := []string{"Authorization", "Bearer " + secret}
		reqHeaders := map[string]string{}
		for i := 0; i+1 < len(x.headers); i += 2 {
			v := strings.ReplaceAll(x.headers[i+1], "$etag", etags[x.route])
			hdr = append(hdr, x.headers[i], v)
			reqHeaders[x.headers[i]] = v
		}
		resp := e.doResponse(t, "GET", x.target, hdr...)
		if got := resp.StatusCode(); got != x.status {
			t.Errorf("GET %s %v: %d, want %d: %.300s", x.target, x.headers, got, x.status, resp.Body())
			continue
		}
		if x.status == 200 {
			etags[x.route] = headerValue(resp, "ETag")
		}
		status := strconv.Itoa(x.status)
		opResp := docResponse(doc, "GET", rt.pattern, status)
		if opResp == nil {
			t.Errorf("%s: the document has no response %s", x.route, status)
			continue
		}
		rec := openapi.RawResponse{Headers: map[string]string{}}
		if len(reqHeaders) > 0 {
			rec.RequestHeaders = reqHeaders
		}
		docHeaders, _ := opResp["headers"].(map[string]any)
		for _, name := range rawExampleHeaders {
			v := headerValue(resp, name)
			if _, ok := docHeaders[name]; v == "" || (name == "Content-Length" && !ok) { // framing, described where it is the file's
				continue
			}
			if _, ok := docHeaders[name]; !ok {
				t.Errorf("%s %s: the response has %s, which the document does not describe", x.route, status, name)
			}
			if name == "Last-Modified" {
				v = "Tue, 01 Jan 2030 00:00:00 GMT"
			}
			rec.Headers[name] = v
		}
		body := resp.Body()
		if len(body) > 0 {
			mt, _, _ := strings.Cut(string(resp.Header.ContentType()), ";")
			content, _ := opResp["content"].(map[string]any)
			if _, ok := content[mt]; !ok {
				t.Errorf("%s %s: Content-Type %s is not in the document", x.route, status, mt)
			}
			if openapi.IsJSONMediaType(mt) {
				rec.Body = norm.normalize(body)
				s, err := doc.Schema(openapitest.Pointer("GET", rt.pattern, x.status, mt))
				if err == nil {
					err = openapitest.Validate(s, body)
				}
				if err != nil {
					t.Errorf("%s %s: the body does not validate against the document: %v", x.route, status, err)
				}
			}
		}
		ex := examples[x.route]
		if ex == nil {
			ex = &openapi.Example{Request: x.target, Responses: map[string]openapi.RawResponse{}}
			examples[x.route] = ex
		}
		ex.Responses[status] = rec
	}
	for _, route := range slices.Sorted(maps.Keys(examples)) {
		files = append(files, route+".json")
		compareExample(t, route, examples[route])
	}
	return files
}

// headerValue is a response header's value, its name in any case (the
// edge sets ETag canonically; Peek would look for Etag).
func headerValue(resp *fasthttp.Response, name string) string {
	if name == "Content-Length" {
		return strconv.Itoa(resp.Header.ContentLength())
	}
	for k, v := range resp.Header.All() {
		if strings.EqualFold(string(k), name) {
			return string(v)
		}
	}
	return ""
}

// docResponse is the response object of an operation's status.
func docResponse(doc *openapitest.Document, method, pattern, status string) map[string]any {
	paths, _ := doc.Raw()["paths"].(map[string]any)
	item, _ := paths[pattern].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	resps, _ := op["responses"].(map[string]any)
	r, _ := resps[status].(map[string]any)
	return r
}

// compareExample compares a route's example with its file (-update
// writes it).
func compareExample(t *testing.T, route string, ex *openapi.Example) {
	t.Helper()
	got, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join(examplesDir, route+".json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("route %s has no example: %v (run make golden)", route, err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the example of %s (%s) differs from its response; if the change is meant, run make golden and review the diff\n%s",
			route, file, firstDiff(want, got))
	}
}

// TestOpenAPI_Document checks the document as served: it is the golden
// testdata/openapi.json (what make lint gives Redocly), its operationIds are
// unique and stable, every public route has a tag and an example, and every
// example validates against its response schema under JSON Schema 2020-12.
func TestOpenAPI_Document(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	e.srv.opts.PublicURL = goldenURL
	raw := servedDocument(t, e.srv)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.WriteFile(openapiGolden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(openapiGolden); err != nil || !bytes.Equal(want, pretty.Bytes()) {
		t.Errorf("%s is not the served document (run make golden and review the diff): %v\n%s", openapiGolden, err, firstDiff(want, pretty.Bytes()))
	}

	doc, err := openapitest.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	paths := doc.Raw()["paths"].(map[string]any)
	for _, rt := range e.srv.router.routes {
		if !publicRoute(rt) {
			continue
		}
		op := paths[rt.pattern].(map[string]any)[strings.ToLower(rt.method)].(map[string]any)
		id := op["operationId"].(string)
		if !regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`).MatchString(id) || id != openapi.OperationID(rt.name) {
			t.Errorf("route %s: operationId %q", rt.name, id)
		}
		if other, dup := ids[id]; dup {
			t.Errorf("operationId %s of both %s and %s", id, other, rt.name)
		}
		ids[id] = rt.name
		if tags, _ := op["tags"].([]any); len(tags) != 1 || !slices.ContainsFunc(openapi.Tags, func(x openapi.Tag) bool { return x.Name == tags[0] }) {
			t.Errorf("route %s: tags %v", rt.name, op["tags"])
		}
		if rt.responses != nil {
			checkRawExamples(t, doc, rt, op)
			continue
		}
		mt := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)
		exs, _ := mt["examples"].(map[string]any)
		tiny, _ := exs["tiny"].(map[string]any)
		if tiny == nil {
			t.Errorf("route %s has no example in the document", rt.name)
			continue
		}
		b, _ := json.Marshal(tiny["value"])
		if err := doc.ValidateResponse(rt.method, rt.pattern, 200, b); err != nil {
			t.Errorf("the example of %s does not validate: %v", rt.name, err)
		}
	}
	// A nullable value is a list of types, never OpenAPI 3.0's nullable.
	if bytes.Contains(raw, []byte(`"nullable"`)) {
		t.Errorf("the document still says nullable")
	}
	// Servers: the public URL, else the listening address, never the Host header.
	if s := doc.Raw()["servers"].([]any)[0].(map[string]any)["url"]; s != goldenURL {
		t.Errorf("servers %v", s)
	}
}

// checkRawExamples checks the document's examples of a route with
// route.responses: each recorded status is described, with the recorded
// headers as its headers' examples and a JSON body as its media type's
// example, valid against its schema.
func checkRawExamples(t *testing.T, doc *openapitest.Document, rt *route, op map[string]any) {
	t.Helper()
	ex := recordedExample("", rt.name)
	if ex == nil || len(ex.Responses) == 0 || ex.Responses["200"].Headers == nil {
		t.Errorf("route %s has no recorded responses (a 200 at least)", rt.name)
		return
	}
	resps, _ := op["responses"].(map[string]any)
	for status, rec := range ex.Responses {
		r, _ := resps[status].(map[string]any)
		if r == nil {
			t.Errorf("route %s: the document has no response %s", rt.name, status)
			continue
		}
		headers, _ := r["headers"].(map[string]any)
		for name, v := range rec.Headers {
			h, _ := headers[name].(map[string]any)
			if got := fmt.Sprint(h["example"]); got != v {
				t.Errorf("route %s %s: header %s example %q, recorded %q", rt.name, status, name, got, v)
			}
		}
		if len(rec.Body) == 0 {
			continue
		}
		found := false
		content, _ := r["content"].(map[string]any)
		for mt, m := range content {
			exs, _ := m.(map[string]any)["examples"].(map[string]any)
			tiny, _ := exs["tiny"].(map[string]any)
			if tiny == nil {
				continue
			}
			found = true
			code, _ := strconv.Atoi(status)
			b, _ := json.Marshal(tiny["value"])
			s, err := doc.Schema(openapitest.Pointer(rt.method, rt.pattern, code, mt))
			if err == nil {
				err = openapitest.Validate(s, b)
			}
			if err != nil {
				t.Errorf("the example of %s %s (%s) does not validate: %v", rt.name, status, mt, err)
			}
		}
		if !found {
			t.Errorf("route %s %s: the recorded body is no example of the document", rt.name, status)
		}
	}
}

func TestOpenAPI_Servers(t *testing.T) {
	for _, c := range []struct{ public, listen, want string }{
		{"https://api.example.com/", "127.0.0.1:8080", "https://api.example.com"},
		{"", "127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"", "[::1]:9000", "http://[::1]:9000"},
		{"", "0.0.0.0:8080", "/"},
		{"", "[::]:8080", "/"},
		{"", "", "/"},
	} {
		s := &Server{opts: Options{PublicURL: c.public}}
		if c.listen != "" {
			s.listenAddr.Store(c.listen)
		}
		if got, _ := s.serverURL(); got != c.want {
			t.Errorf("public %q listen %q: %q, want %q", c.public, c.listen, got, c.want)
		}
	}
}

// sortedRouteNames lists the public routes' names, sorted.
func sortedRouteNames(s *Server) []string {
	var out []string
	for _, rt := range s.router.routes {
		if publicRoute(rt) {
			out = append(out, rt.name)
		}
	}
	sort.Strings(out)
	return out
}

func servedDocument(t *testing.T, srv *Server) []byte {
	t.Helper()
	var req fasthttp.Request
	req.SetRequestURI("http://evil.example/api/v3/openapi.json")
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 9), Port: 4000}, nil)
	srv.handle(&ctx)
	if ctx.Response.StatusCode() != 200 {
		t.Fatalf("openapi.json: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	return append([]byte(nil), ctx.Response.Body()...)
}

func mustServedDocument(t *testing.T, srv *Server) *openapitest.Document {
	t.Helper()
	doc, err := openapitest.Load(servedDocument(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// doResponse makes one request in-process and returns the response (its
// body read, a stream's included).
func (e *memoEnv) doResponse(t *testing.T, method, uri string, headers ...string) *fasthttp.Response {
	t.Helper()
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI("http://edge" + uri)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
	e.srv.handle(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	resp.SetBody(ctx.Response.Body()) // reads and closes a body stream
	return &resp
}

// do makes one request in-process and returns the status and body.
func (e *memoEnv) do(t *testing.T, method, uri, ctype, body string, headers ...string) (int, []byte) {
	t.Helper()
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI("http://edge" + uri)
	if body != "" {
		req.Header.SetContentType(ctype)
		req.SetBodyString(body)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, nil)
	e.srv.handle(&ctx)
	return ctx.Response.StatusCode(), append([]byte(nil), ctx.Response.Body()...)
}

var (
	reVolatileID = regexp.MustCompile(`"((?:imp|col|ci|r|ep|msg|fd|evt)_[A-Za-z0-9_-]{6,}|whsec_[A-Za-z0-9+/=]{20,})"`)
	reReset      = regexp.MustCompile(`"reset_seconds":\d+`)
	reLatency    = regexp.MustCompile(`"latency_ms":[0-9.]+`)
)

// normalizer replaces the values of the moment in the examples: ids made
// by the server (the same id the same placeholder in every example), the
// key id, today's dates and timestamps, the seconds to the quota reset.
type normalizer struct {
	keyID string
	ids   map[string]string
}

func (n *normalizer) normalize(b []byte) json.RawMessage {
	s := string(b)
	for _, m := range reVolatileID.FindAllStringSubmatch(s, -1) {
		if _, ok := n.ids[m[1]]; !ok {
			prefix, _, _ := strings.Cut(m[1], "_")
			n.ids[m[1]] = prefix + "_example" + itoa(len(n.ids)+1)
		}
	}
	for id, repl := range n.ids {
		s = strings.ReplaceAll(s, id, repl)
	}
	s = strings.ReplaceAll(s, n.keyID, "k_example")
	now := time.Now().UTC()
	for _, d := range []time.Time{now, now.Add(24 * time.Hour), now.Add(-24 * time.Hour)} {
		day := d.Format(time.DateOnly)
		s = regexp.MustCompile(regexp.QuoteMeta(day)+`T\d\d:\d\d:\d\d(\.\d+)?Z`).ReplaceAllString(s, "2030-01-01T00:00:00Z")
		s = strings.ReplaceAll(s, `"`+day+`"`, `"2030-01-01"`)
	}
	s = reReset.ReplaceAllString(s, `"reset_seconds":3600`)
	s = reLatency.ReplaceAllString(s, `"latency_ms":12.5`)
	return json.RawMessage(s)
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n- " + truncLine(a) + "\n+ " + truncLine(b)
		}
	}
	return ""
}

func truncLine(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
