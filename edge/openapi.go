package edge

import (
	"embed"
	"encoding/json"
	"maps"
	"net"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/cardedge/cardedge/jsonschema"
	"github.com/cardedge/cardedge/pokemontcg"
)

// The OpenAPI document (OpenAPI 3.1, info.version APIVersion) is generated
// from the route table, so that it cannot drift from what the server
// validates:
//
//   - paths: every public route (not internal, not removed), its query and
//     path parameters as the router parses them;
//   - operationId: the route's name (its metrics label) in lowerCamelCase,
//     card_price_history -> cardPriceHistory; unique (TestOpenAPI_Document)
//     and stable: a client generated from the document keeps its method
//     names as long as the route keeps its name;
//   - tags: one per resource, the register function that added the route
//     (registerRoutes);
//   - response schemas: read off the Go type of each route's payload
//     (payloadTypes) by package schema, one component per route schema
//     name; a value that may be null has a list of types;
//   - examples: a real response of each route on the tiny test snapshot,
//     edge/testdata/examples/<route>.json, written by TestOpenAPI_Examples
//     (make golden) and embedded in the binary;
//   - servers: Options.PublicURL, or the address the server listens on.
//
// edge/testdata/openapi.json is the document as served with PublicURL
// http://127.0.0.1:8080 (TestOpenAPI_Document compares; make golden
// rewrites it); make lint runs Redocly's recommended rules on it.

//go:embed testdata/examples/*.json testdata/examples/sources/*.json
var exampleFiles embed.FS

// example is one route's recorded exchange.
type example struct {
	Request  string          `json:"request"`
	Body     json.RawMessage `json:"body,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// Responses are the recorded responses, by status, of a route whose
	// body is not a JSON envelope (route.responses: bulk files, schemas).
	Responses map[string]rawResponse `json:"responses,omitempty"`
}

// rawResponse is one recorded response of a route with route.responses:
// the request headers that asked for it, the response headers the document
// describes, and the body when it is JSON (a file's bytes are not kept).
type rawResponse struct {
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
	Headers        map[string]string `json:"headers"`
	Body           json.RawMessage   `json:"body,omitempty"`
}

// routeExample returns the recorded example of a route (false when none).
func routeExample(name string) (example, bool) { return recordedExample("", name) }

// recordedExample returns a route's example recorded in a directory of
// testdata/examples: "" on the tiny snapshot, sources on one built from the
// sources' fixtures.
func recordedExample(dir, name string) (example, bool) {
	b, err := exampleFiles.ReadFile(path.Join("testdata/examples", dir, name+".json"))
	if err != nil {
		return example{}, false
	}
	var ex example
	if err := json.Unmarshal(b, &ex); err != nil {
		panic("edge: example of " + name + ": " + err.Error())
	}
	return ex, true
}

// resourceTags describe the tags, one per resource, in document order.
var resourceTags = []struct{ name, description string }{
	{"Cards", "The card catalog with market data: list, detail with includes, histories, sales, analytics and batch lookups."},
	{"Sets", "Sets of a game: directory, detail, rarity breakdown, price distribution, trending cards and volume."},
	{"Market", "Market-wide views: trending leaderboards, volume by set, shop listings."},
	{"Prices", "Current prices of many cards by source (own, partner, observed, and the real-price sources tcgplayer, cardmarket, pricecharting), never blended."},
	{"Imports", "Collection uploads: preview (resolve and value rows), then confirm into the key's collection."},
	{"Collection", "The caller's collection, valued as of the snapshot."},
	{"Search", "Full-text search and the typeahead lookup."},
	{"Quote", "The keyless quote of one free-text card reference."},
	{"Methodology", "The estimator's rules and thresholds, as the code uses them."},
	{"Bulk", "The snapshot's data as files: per game cards, sets, prices and price history as gzip JSON Lines, with SHA-256, row counts, resumable downloads and a JSON Schema each."},
	{"Keys", "The calling key's usage and quota."},
	{"Alerts", "Want lists and price alerts of the caller's account: rules fired once per crossing at each new snapshot, their events, and the secret URL of their Atom feed."},
	{"Webhooks", "Webhook endpoints of the caller's account: alerts delivered signed per Standard Webhooks, with retries, a delivery log, test events and secret rolls."},
	{"pokemontcg-v2", "pokemontcg.io's v2 API over the English Pokémon cards and sets, as its SDKs read it: an app moves by changing its base URL (docs/pokemontcg-migration.md). Bodies and errors are pokemontcg.io's, not envelopes; a cardedge key goes in X-Api-Key (or Authorization)."},
}

// operationID returns the operationId of a route: its name in
// lowerCamelCase.
func operationID(name string) string {
	var b strings.Builder
	up := false
	for _, r := range name {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r, up = unicode.ToUpper(r), false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// publicRoute reports whether a route is in the document.
func publicRoute(rt *route) bool {
	return !rt.removed && !rt.internal && rt.name != "openapi"
}

// serverURL is the document's server: PublicURL, else the listening
// address (http), else "/" (the document's own origin: a client resolves it
// against the URL it fetched the document from). The request's Host header
// is never used: it is the client's to choose, and a shared cache in front
// would hand a forged one to everybody.
func (s *Server) serverURL() (url, description string) {
	if u := strings.TrimRight(s.opts.PublicURL, "/"); u != "" {
		return u, "This server (its public URL)"
	}
	if a, _ := s.listenAddr.Load().(string); a != "" {
		if host, _, err := net.SplitHostPort(a); err == nil {
			if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
				return "http://" + a, "This server (the address it listens on; serve with --public-url to publish another)"
			}
		}
	}
	return "/", "This server (the origin the document was fetched from)"
}

// openAPI builds the document.
func (s *Server) openAPI() map[string]any {
	paths := map[string]any{}
	schemas := map[string]any{
		"ErrorV1": map[string]any{"type": "object", "required": []any{"contract", "error"}, "properties": map[string]any{
			"contract": map[string]any{"type": "string", "const": "error.v1"},
			"error": map[string]any{"type": "object", "required": []any{"code", "message"}, "properties": map[string]any{
				"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"},
				"details": map[string]any{"type": "object"}}}}},
		"HTTPValidationError": map[string]any{"type": "object", "properties": map[string]any{
			"detail": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []any{"loc", "msg", "type"}, "properties": map[string]any{
				"loc": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}},
				"msg": map[string]any{"type": "string"}, "type": map[string]any{"type": "string"},
				"input": map[string]any{}, "ctx": map[string]any{"type": "object"}}}}}},
	}
	maps.Copy(schemas, pokemontcg.Schemas()) // the /v2 routes' bodies (route.responses refers to them)
	refl := newDocReflector(s.router.routes, schemas)
	for _, rt := range s.router.routes {
		if !publicRoute(rt) {
			continue
		}
		op := map[string]any{
			"operationId": operationID(rt.name),
			"summary":     rt.summary,
			"tags":        []any{rt.tag},
			"parameters":  openAPIParams(rt),
		}
		if rt.responses != nil {
			op["responses"] = rawResponses(rt)
		} else {
			op["responses"] = openAPIResponses(rt, refl)
		}
		if !rt.keyless {
			op["security"] = []any{map[string]any{"bearer": []any{}}}
		} else {
			op["security"] = []any{map[string]any{}, map[string]any{"bearer": []any{}}}
		}
		if rt.bare {
			op["security"] = append(op["security"].([]any), map[string]any{"apiKey": []any{}})
		}
		if (rt.method == "POST" || rt.method == "PUT") && !rt.noBody {
			types, content := rt.bodyTypes, map[string]any{}
			if types == nil {
				types = []string{"application/json"}
			}
			ex, hasEx := routeExample(rt.name)
			for _, t := range types {
				mt := map[string]any{"schema": map[string]any{"type": "string"}}
				if t == "application/json" {
					mt["schema"] = map[string]any{"type": "object"}
					if hasEx && len(ex.Body) > 0 {
						mt["example"] = ex.Body
					}
				}
				content[t] = mt
			}
			op["requestBody"] = map[string]any{"required": true, "content": content}
			op["responses"].(map[string]any)["413"] = map[string]any{"description": "Request body too large", "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorV1"}}}}
		}
		item, _ := paths[rt.pattern].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.pattern] = item
		}
		item[strings.ToLower(rt.method)] = op
	}
	tags := []any{}
	for _, t := range resourceTags {
		tags = append(tags, map[string]any{"name": t.name, "description": t.description})
	}
	url, desc := s.serverURL()
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "cardedge market data API",
			"version": APIVersion,
			"description": "Read-only market intelligence for trading cards. Every response is {contract, data}; errors are error.v1; " +
				"422 bodies are HTTPValidationError. Keys are Bearer tokens; routes marked keyless also answer without one (the Playground: " +
				"1 request per second per address, lists capped at 50 rows). Grades: every grade parameter reads the usual spellings " +
				"(PSA 10, psa10, BGS 9.5, cgc 10, raw, NM, near mint, Raw, near mint, and the codes raw:near_mint, slab:10); every grade an answer " +
				"returns is its code (grade: raw:<condition> or <grader>:<number>, slab being the top grader, PSA) beside its name as people read it " +
				"(grade_name: PSA 10, BGS 9.5, CGC 10, Raw, near mint). The reference page is /api/v3/docs.",
			"license": map[string]any{"name": "Proprietary", "identifier": "LicenseRef-cardedge-proprietary"},
		},
		"servers": []any{map[string]any{"url": url, "description": desc}},
		"tags":    tags,
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer",
				"description": "An API key: Authorization: Bearer <key>."},
				"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": "X-Api-Key", "description": "An API key as pokemontcg.io's SDKs send it (/v2 only)."}},
			"schemas": schemas,
		},
	}
}

func openAPIParams(rt *route) []any {
	var out []any
	for _, v := range rt.segs {
		if strings.HasPrefix(v, "{") {
			out = append(out, map[string]any{"name": strings.Trim(v, "{}"), "in": "path", "required": true, "schema": map[string]any{"type": "string", "maxLength": 128}})
		}
	}
	for _, p := range rt.params {
		schema := map[string]any{}
		switch p.kind {
		case kString:
			schema["type"] = "string"
			maxLen := p.maxLen
			if maxLen == 0 {
				maxLen = 256
			}
			schema["maxLength"] = maxLen
		case kEnum:
			schema["type"] = "string"
			schema["enum"] = p.enum
		case kInt, kFloat:
			schema["type"] = "integer"
			if p.kind == kFloat {
				schema["type"], schema["format"] = "number", "double"
			}
			if p.hasMin {
				schema["minimum"] = p.min
			}
			if p.hasMax {
				schema["maximum"] = p.max
			}
		case kBool:
			schema["type"] = "boolean"
		case kDate:
			schema["type"] = "string"
			schema["format"] = "date"
			schema["maxLength"] = 10
		}
		if p.def != "" {
			switch p.kind {
			case kInt:
				n, _ := strconv.Atoi(p.def)
				schema["default"] = n
			case kFloat:
				f, _ := strconv.ParseFloat(p.def, 64)
				schema["default"] = f
			case kBool:
				schema["default"] = p.def == "true"
			default:
				schema["default"] = p.def
			}
		}
		param := map[string]any{"name": p.name, "in": "query", "required": false, "description": p.doc, "schema": schema}
		if p.extension {
			param["x-extension"] = true
		}
		out = append(out, param)
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// newDocReflector derives the document's schemas: every named struct type
// is a component (client generators make one type of each), named by the
// route's schema name when it is a route's payload, else by its Go name
// with the first letter upper-cased (and its package's name before it when
// two packages have a type of that name).
func newDocReflector(routes []*route, defs map[string]any) *jsonschema.Reflector {
	byType := map[reflect.Type]string{}
	for _, rt := range routes {
		if v, ok := payloadTypes[rt.name]; ok && rt.schema != "" && publicRoute(rt) {
			byType[reflectType(v)] = rt.schema
		}
	}
	taken := map[string]reflect.Type{}
	for t, n := range byType {
		taken[n] = t
	}
	return &jsonschema.Reflector{RefPrefix: "#/components/schemas/", Defs: defs, Name: func(t reflect.Type) string {
		if n, ok := byType[t]; ok {
			return n
		}
		if t.Name() == "" || strings.ContainsAny(t.Name(), "[.") {
			return "" // anonymous or generic: inline
		}
		n := strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
		if prev, ok := taken[n]; ok && prev != t {
			n = strings.ToUpper(path.Base(t.PkgPath())[:1]) + path.Base(t.PkgPath())[1:] + n
		}
		taken[n] = t
		byType[t] = n
		return n
	}}
}

// openAPIResponses describes a route's responses; the schemas of its
// payload go into the reflector's components.
func openAPIResponses(rt *route, refl *jsonschema.Reflector) map[string]any {
	data := map[string]any{"type": "object"}
	if v, ok := payloadTypes[rt.name]; ok {
		data = refl.Of(reflectType(v))
		if _, named := data["$ref"]; !named && rt.schema != "" { // a generic page: a component of the route's schema name
			refl.Defs[rt.schema] = data
			data = map[string]any{"$ref": "#/components/schemas/" + rt.schema}
		}
	}
	envelope := map[string]any{"type": "object", "required": []any{"contract", "data"}, "properties": map[string]any{
		"contract": map[string]any{"type": "string", "const": rt.contract},
		"data":     data,
	}}
	ok := map[string]any{"schema": envelope}
	if ex, found := routeExample(rt.name); found {
		ok["examples"] = map[string]any{"tiny": map[string]any{
			"summary": rt.method + " " + ex.Request,
			"description": "A real response of this route on the tiny test snapshot (recorded by the edge's tests, " +
				"edge/testdata/examples; ids and dates of the day normalized).",
			"value": ex.Response,
		}}
	}
	if ex, found := recordedExample("sources", rt.name); found {
		ok["examples"].(map[string]any)["sources"] = map[string]any{"summary": rt.method + " " + ex.Request + " (real sources)",
			"description": "A real response of this route on a snapshot built from the hand-written fixtures of Cardmarket's price guide and TCGplayer's " +
				"prices (builder/testdata/sources, two days; recorded by the edge's tests, edge/testdata/examples/sources).", "value": ex.Response}
	}
	errRef := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorV1"}}}
	return map[string]any{
		"200":     map[string]any{"description": "OK, contract " + rt.contract, "content": map[string]any{"application/json": ok}},
		"304":     map[string]any{"description": "Not modified (If-None-Match matched the ETag)"},
		"401":     map[string]any{"description": "Missing or invalid key", "content": errRef},
		"403":     map[string]any{"description": "Tier not allowed", "content": errRef},
		"404":     map[string]any{"description": "Unknown card, set or game", "content": errRef},
		"422":     map[string]any{"description": "Validation error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/HTTPValidationError"}}}},
		"429":     map[string]any{"description": "Rate or quota limit; see Retry-After", "content": errRef},
		"default": defaultResponse(),
	}
}

// defaultResponse is every operation's default response: the errors of any
// route that the document does not list per status.
func defaultResponse() map[string]any {
	return map[string]any{"description": "Any other error: 400 a malformed request, 500 an internal error, " +
		"503 the state store cannot be reached (a fleet's Redis down: nothing was changed; see Retry-After)",
		"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorV1"}}}}
}

// rawResponses makes the responses of a route with route.responses and
// adds its recorded example: each recorded header's value as the header's
// example, each JSON body as its media type's example.
func rawResponses(rt *route) map[string]any {
	resps := rt.responses()
	if resps["default"] == nil {
		resps["default"] = defaultResponse()
	}
	ex, ok := routeExample(rt.name)
	if !ok {
		return resps
	}
	for status, rec := range ex.Responses {
		r, _ := resps[status].(map[string]any)
		if r == nil {
			continue
		}
		headers, _ := r["headers"].(map[string]any)
		for name, v := range rec.Headers {
			if h, ok := headers[name].(map[string]any); ok {
				var example any = v
				if n, err := strconv.Atoi(v); err == nil && (name == "Content-Length" || name == "Retry-After") {
					example = n
				}
				h["example"] = example
			}
		}
		if len(rec.Body) == 0 {
			continue
		}
		content, _ := r["content"].(map[string]any)
		for mt, m := range content {
			if m, ok := m.(map[string]any); ok && isJSONMediaType(mt) {
				summary := rt.method + " " + ex.Request
				for _, name := range slices.Sorted(maps.Keys(rec.RequestHeaders)) {
					summary += ", " + name + ": " + rec.RequestHeaders[name]
				}
				m["examples"] = map[string]any{"tiny": map[string]any{"summary": summary,
					"description": "A real response of this route on the tiny test snapshot (recorded by the edge's tests, edge/testdata/examples).",
					"value":       rec.Body}}
			}
		}
	}
	return resps
}

// isJSONMediaType reports whether a media type is JSON (application/json,
// application/*+json).
func isJSONMediaType(mt string) bool {
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// sortedRouteNames lists the public routes' names, sorted (tests).
func (s *Server) sortedRouteNames() []string {
	var out []string
	for _, rt := range s.router.routes {
		if publicRoute(rt) {
			out = append(out, rt.name)
		}
	}
	sort.Strings(out)
	return out
}
