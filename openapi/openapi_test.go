package openapi_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/cardedge/cardedge/openapi"
	"github.com/cardedge/cardedge/snapshots/jsontext/jsontexttest"
)

func TestOperationID(t *testing.T) {
	for in, want := range map[string]string{"card_price_history": "cardPriceHistory", "search": "search", "prices_get": "pricesGet", "v2_cards": "v2Cards"} {
		if got := openapi.OperationID(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// mustOp builds a document of ops and returns the operation at method and
// path.
func mustOp(tb testing.TB, method, path string, ops ...openapi.Operation) (doc, op map[string]any) {
	tb.Helper()
	doc = openapi.Build(openapi.Document{Version: "9.9.9", ServerURL: "http://127.0.0.1:8080", ServerDescription: "here", Operations: ops})
	item, _ := doc["paths"].(map[string]any)[path].(map[string]any)
	op, _ = item[method].(map[string]any)
	if op == nil {
		tb.Fatalf("no operation %s %s in %s", method, path, jsontexttest.MustMarshal(tb, doc["paths"]))
	}
	return doc, op
}

func TestBuild_Parameters(t *testing.T) {
	_, op := mustOp(t, "get", "/api/v3/cards/{card_id}/sales", openapi.Operation{Method: "GET", Path: "/api/v3/cards/{card_id}/sales", Name: "card_sales",
		Params: []openapi.Param{
			{Name: "q", Description: "Text.", Type: openapi.String},
			{Name: "cursor", Type: openapi.String, MaxLength: 512},
			{Name: "sort", Type: openapi.Enum, Enum: []string{"a", "b"}, Default: "a"},
			{Name: "limit", Type: openapi.Integer, Min: 1, Max: 200, HasMin: true, HasMax: true, Default: "50"},
			{Name: "offset", Type: openapi.Integer, HasMin: true, Default: "0"},
			{Name: "min_price_usd", Type: openapi.Number, Max: 1e9, HasMin: true, HasMax: true, Default: "2.5", Extension: true},
			{Name: "raw_only", Type: openapi.Boolean, Default: "false"},
			{Name: "since", Type: openapi.Date, MaxLength: 99},
		}})
	got := op["parameters"].([]any)
	want := []string{
		`{"in":"path","name":"card_id","required":true,"schema":{"maxLength":128,"type":"string"}}`,
		`{"description":"Text.","in":"query","name":"q","required":false,"schema":{"maxLength":256,"type":"string"}}`,
		`{"description":"","in":"query","name":"cursor","required":false,"schema":{"maxLength":512,"type":"string"}}`,
		`{"description":"","in":"query","name":"sort","required":false,"schema":{"default":"a","enum":["a","b"],"type":"string"}}`,
		`{"description":"","in":"query","name":"limit","required":false,"schema":{"default":50,"maximum":200,"minimum":1,"type":"integer"}}`,
		`{"description":"","in":"query","name":"offset","required":false,"schema":{"default":0,"minimum":0,"type":"integer"}}`,
		`{"description":"","in":"query","name":"min_price_usd","required":false,"schema":{"default":2.5,"format":"double","maximum":1000000000,"minimum":0,"type":"number"},"x-extension":true}`,
		`{"description":"","in":"query","name":"raw_only","required":false,"schema":{"default":false,"type":"boolean"}}`,
		`{"description":"","in":"query","name":"since","required":false,"schema":{"format":"date","maxLength":10,"type":"string"}}`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d parameters, want %d: %s", len(got), len(want), jsontexttest.MustMarshal(t, got))
	}
	for i := range want {
		if g := jsontexttest.MustMarshal(t, got[i]); g != want[i] {
			t.Errorf("parameter %d:\n got %s\nwant %s", i, g, want[i])
		}
	}
	if _, op := mustOp(t, "get", "/x", openapi.Operation{Method: "GET", Path: "/x", Name: "x"}); jsontexttest.MustMarshal(t, op["parameters"]) != "[]" {
		t.Errorf("no parameters: %s, want []", jsontexttest.MustMarshal(t, op["parameters"]))
	}
}

func TestBuild_Security(t *testing.T) {
	for _, c := range []struct {
		name            string
		keyless, apiKey bool
		want            string
	}{
		{"keyed", false, false, `[{"bearer":[]}]`},
		{"keyless", true, false, `[{},{"bearer":[]}]`},
		{"v2", true, true, `[{},{"bearer":[]},{"apiKey":[]}]`},
	} {
		_, op := mustOp(t, "get", "/x", openapi.Operation{Method: "GET", Path: "/x", Name: "x", Keyless: c.keyless, APIKey: c.apiKey})
		if got := jsontexttest.MustMarshal(t, op["security"]); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// Types of the naming test: Location is also time's.
type (
	Location    struct{ City string }
	page[T any] struct {
		Items []T `json:"items"`
	}
	row struct {
		Here  Location       `json:"here"`
		There *time.Location `json:"there"`
	}
	wrapped struct {
		Row row `json:"row"`
	}
)

func TestBuild_Components(t *testing.T) {
	doc, _ := mustOp(t, "get", "/rows",
		openapi.Operation{Method: "GET", Path: "/rows", Name: "rows", Contract: "rows.v1", Payload: reflect.TypeFor[page[row]](), Schema: "RowPage"},
		openapi.Operation{Method: "GET", Path: "/row", Name: "row", Contract: "row.v1", Payload: reflect.TypeFor[wrapped](), Schema: "Wrapped"},
		openapi.Operation{Method: "GET", Path: "/any", Name: "any", Contract: "any.v1"})
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, want := range map[string]string{
		// A generic page is inline, then a component of the schema name.
		"RowPage": `{"additionalProperties":false,"properties":{"items":{"items":{"$ref":"#/components/schemas/Row"},"type":"array"}},"required":["items"],"type":"object"}`,
		// Named by the Go name, upper-cased; time's Location with its package's name.
		"Row":          `{"additionalProperties":false,"properties":{"here":{"$ref":"#/components/schemas/Location"},"there":{"anyOf":[{"$ref":"#/components/schemas/TimeLocation"},{"type":"null"}]}},"required":["here","there"],"type":"object"}`,
		"Location":     `{"additionalProperties":false,"properties":{"City":{"type":"string"}},"required":["City"],"type":"object"}`,
		"TimeLocation": `{"additionalProperties":false,"properties":{},"type":"object"}`,
		"Wrapped":      `{"additionalProperties":false,"properties":{"row":{"$ref":"#/components/schemas/Row"}},"required":["row"],"type":"object"}`,
	} {
		if got := jsontexttest.MustMarshal(t, schemas[name]); got != want {
			t.Errorf("component %s:\n got %s\nwant %s", name, got, want)
		}
	}
	ok := func(path string) string {
		op := doc["paths"].(map[string]any)[path].(map[string]any)["get"].(map[string]any)
		return jsontexttest.MustMarshal(t, op["responses"].(map[string]any)["200"])
	}
	if got, want := ok("/rows"), `{"content":{"application/json":{"schema":{"properties":{"contract":{"const":"rows.v1","type":"string"},"data":{"$ref":"#/components/schemas/RowPage"}},"required":["contract","data"],"type":"object"}}},"description":"OK, contract rows.v1"}`; got != want {
		t.Errorf("200 of /rows:\n got %s\nwant %s", got, want)
	}
	if got, want := ok("/any"), `{"content":{"application/json":{"schema":{"properties":{"contract":{"const":"any.v1","type":"string"},"data":{"type":"object"}},"required":["contract","data"],"type":"object"}}},"description":"OK, contract any.v1"}`; got != want {
		t.Errorf("200 of /any (no payload type):\n got %s\nwant %s", got, want)
	}
	for _, name := range []string{"ErrorV1", "HTTPValidationError"} {
		if schemas[name] == nil {
			t.Errorf("no component %s", name)
		}
	}
}

func TestBuild_Examples(t *testing.T) {
	ex := &openapi.Example{Request: "/rows?limit=1", Body: json.RawMessage(`{"ids":["a"]}`), Response: json.RawMessage(`{"contract":"rows.v1","data":{}}`)}
	_, op := mustOp(t, "post", "/rows", openapi.Operation{Method: "POST", Path: "/rows", Name: "rows", Contract: "rows.v1",
		BodyTypes: []string{"text/csv", "application/json"}, Example: ex, SourcesExample: &openapi.Example{Request: "/rows?src=1", Response: json.RawMessage(`1`)}})
	if got, want := jsontexttest.MustMarshal(t, op["requestBody"]), `{"content":{"application/json":{"example":{"ids":["a"]},"schema":{"type":"object"}},"text/csv":{"schema":{"type":"string"}}},"required":true}`; got != want {
		t.Errorf("requestBody:\n got %s\nwant %s", got, want)
	}
	resps := op["responses"].(map[string]any)
	if resps["413"] == nil {
		t.Errorf("an operation with a body has no 413")
	}
	exs := resps["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["examples"].(map[string]any)
	if got := jsontexttest.MustMarshal(t, exs["tiny"].(map[string]any)["value"]); got != string(ex.Response) {
		t.Errorf("tiny example %s, want %s", got, ex.Response)
	}
	if got, want := exs["sources"].(map[string]any)["summary"], "POST /rows?src=1 (real sources)"; got != want {
		t.Errorf("sources example's summary %q, want %q", got, want)
	}
}

func TestBuild_RawResponses(t *testing.T) {
	resps := map[string]any{
		"200": map[string]any{"description": "The file", "headers": openapi.Headers("Content-Length", "Bytes.", "ETag", "Validator."),
			"content": map[string]any{"application/gzip": map[string]any{}}},
		"304": map[string]any{"description": "Not modified", "headers": openapi.Headers("ETag", "Validator.")},
		"416": map[string]any{"description": "Bad range", "content": map[string]any{"application/problem+json": map[string]any{}}},
	}
	ex := &openapi.Example{Request: "/files/a", Responses: map[string]openapi.RawResponse{
		"200": {Headers: map[string]string{"Content-Length": "42", "ETag": `"abc"`, "Not-Described": "x"}},
		"416": {RequestHeaders: map[string]string{"Range": "bytes=9-", "If-Range": `"abc"`}, Headers: map[string]string{}, Body: json.RawMessage(`{"e":1}`)},
		"500": {Headers: map[string]string{"ETag": "x"}}, // a status the document does not describe: ignored
	}}
	_, op := mustOp(t, "get", "/files/{name}", openapi.Operation{Method: "GET", Path: "/files/{name}", Name: "file", Responses: resps, Example: ex})
	got := op["responses"].(map[string]any)
	for _, c := range []struct{ status, want string }{
		{"200", `{"content":{"application/gzip":{}},"description":"The file","headers":{"Content-Length":{"description":"Bytes.","example":42,"schema":{"minimum":0,"type":"integer"}},"ETag":{"description":"Validator.","example":"\"abc\"","schema":{"type":"string"}}}}`},
		{"304", `{"description":"Not modified","headers":{"ETag":{"description":"Validator.","schema":{"type":"string"}}}}`},
		{"416", `{"content":{"application/problem+json":{"examples":{"tiny":{"description":"A real response of this route on the tiny test snapshot (recorded by the edge's tests, edge/testdata/examples).","summary":"GET /files/a, If-Range: \"abc\", Range: bytes=9-","value":{"e":1}}}}},"description":"Bad range"}`},
	} {
		if g := jsontexttest.MustMarshal(t, got[c.status]); g != c.want {
			t.Errorf("response %s:\n got %s\nwant %s", c.status, g, c.want)
		}
	}
	if got["default"] == nil || got["500"] != nil {
		t.Errorf("responses %v: want the default added and nothing else", jsontexttest.MustMarshal(t, got))
	}
}

func TestIsJSONMediaType(t *testing.T) {
	for mt, want := range map[string]bool{"application/json": true, "application/schema+json": true, "application/gzip": false, "text/json": false, "application/jsonx": false} {
		if got := openapi.IsJSONMediaType(mt); got != want {
			t.Errorf("%s: %v, want %v", mt, got, want)
		}
	}
}
