package openapi

import (
	"maps"
	"path"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/cardedge/cardedge/jsonschema"
)

// Document is what Build makes the document of: the server it is served
// at, the API's version, components besides the payloads' and the
// operations, in the order their schemas are read.
type Document struct {
	// Version is info.version.
	Version string
	// ServerURL and ServerDescription are the one entry of servers.
	ServerURL, ServerDescription string
	// Schemas are components the reflector does not make, put in first
	// (the bodies that Operation.Responses refer to).
	Schemas map[string]any
	// Operations are the paths' operations.
	Operations []Operation
}

// Operation is one operation of the document, described as data.
type Operation struct {
	// Method and Path are the operation's: GET, /api/v3/cards/{card_id}.
	// Every {variable} of Path is a required path parameter.
	Method, Path string
	// Name is the route's name; the operationId is OperationID(Name).
	Name string
	// Summary and Tag (one of Tags) describe it.
	Summary, Tag string
	// Params are its query parameters.
	Params []Param
	// Keyless operations also answer without a key; APIKey ones also take
	// one in X-Api-Key (pokemontcg.io's header).
	Keyless, APIKey bool
	// Contract is the 200's envelope {contract, data}; Payload the Go type
	// of data (nil: any object), read by package jsonschema; Schema the
	// component name of Payload's schema.
	Contract string
	Payload  reflect.Type
	Schema   string
	// Responses, when not nil, are the responses by status instead of the
	// envelope's (bodies that are not envelopes); the default response is
	// added when they have none. Build adds to the maps: make new ones for
	// each document.
	Responses map[string]any
	// BodyTypes are the media types of the request body (nil: none).
	BodyTypes []string
	// Example is the operation's recorded exchange on the tiny test
	// snapshot; SourcesExample one on a snapshot built from the sources'
	// fixtures (envelope responses only). Nil when none.
	Example, SourcesExample *Example
}

// Param is one query parameter.
type Param struct {
	Name, Description string
	Type              ParamType
	// MaxLength bounds a String (0 = 256).
	MaxLength int
	// Enum are an Enum's values.
	Enum []string
	// Min and Max bound an Integer or a Number when HasMin and HasMax.
	Min, Max       float64
	HasMin, HasMax bool
	// Default is the default as a client would send it ("" = none); the
	// document gives it the parameter's type.
	Default string
	// Extension marks a parameter the spec does not have (x-extension).
	Extension bool
}

// ParamType is the type of a query parameter.
type ParamType uint8

const (
	String  ParamType = iota
	Integer           // a whole number
	Number            // a double
	Boolean
	Enum // a string of Param.Enum
	Date // YYYY-MM-DD
)

// Tag is one tag of the document.
type Tag struct{ Name, Description string }

// Tags describe the tags, one per resource, in document order.
var Tags = []Tag{
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

// OperationID returns the operationId of a route's name: the name in
// lowerCamelCase (card_price_history -> cardPriceHistory).
func OperationID(name string) string {
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

// Build makes the document.
func Build(d Document) map[string]any {
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
	maps.Copy(schemas, d.Schemas)
	refl := newReflector(d.Operations, schemas)
	for i := range d.Operations {
		o := &d.Operations[i]
		op := map[string]any{
			"operationId": OperationID(o.Name),
			"summary":     o.Summary,
			"tags":        []any{o.Tag},
			"parameters":  parameters(o),
		}
		if o.Responses != nil {
			op["responses"] = rawResponses(o)
		} else {
			op["responses"] = envelopeResponses(o, refl)
		}
		if !o.Keyless {
			op["security"] = []any{map[string]any{"bearer": []any{}}}
		} else {
			op["security"] = []any{map[string]any{}, map[string]any{"bearer": []any{}}}
		}
		if o.APIKey {
			op["security"] = append(op["security"].([]any), map[string]any{"apiKey": []any{}})
		}
		if o.BodyTypes != nil {
			content := map[string]any{}
			for _, t := range o.BodyTypes {
				mt := map[string]any{"schema": map[string]any{"type": "string"}}
				if t == "application/json" {
					mt["schema"] = map[string]any{"type": "object"}
					if o.Example != nil && len(o.Example.Body) > 0 {
						mt["example"] = o.Example.Body
					}
				}
				content[t] = mt
			}
			op["requestBody"] = map[string]any{"required": true, "content": content}
			op["responses"].(map[string]any)["413"] = map[string]any{"description": "Request body too large", "content": ErrorContent()}
		}
		item, _ := paths[o.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[o.Path] = item
		}
		item[strings.ToLower(o.Method)] = op
	}
	tags := []any{}
	for _, t := range Tags {
		tags = append(tags, map[string]any{"name": t.Name, "description": t.Description})
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "cardedge market data API",
			"version": d.Version,
			"description": "Read-only market intelligence for trading cards. Every response is {contract, data}; errors are error.v1; " +
				"422 bodies are HTTPValidationError. Keys are Bearer tokens; routes marked keyless also answer without one (the Playground: " +
				"1 request per second per address, lists capped at 50 rows). Grades: every grade parameter reads the usual spellings " +
				"(PSA 10, psa10, BGS 9.5, cgc 10, raw, NM, near mint, Raw, near mint, and the codes raw:near_mint, slab:10); every grade an answer " +
				"returns is its code (grade: raw:<condition> or <grader>:<number>, slab being the top grader, PSA) beside its name as people read it " +
				"(grade_name: PSA 10, BGS 9.5, CGC 10, Raw, near mint). The reference page is /api/v3/docs.",
			"license": map[string]any{"name": "Proprietary", "identifier": "LicenseRef-cardedge-proprietary"},
		},
		"servers": []any{map[string]any{"url": d.ServerURL, "description": d.ServerDescription}},
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

// parameters are an operation's path parameters, then its query
// parameters.
func parameters(o *Operation) []any {
	var out []any
	for _, v := range strings.Split(strings.Trim(o.Path, "/"), "/") {
		if strings.HasPrefix(v, "{") {
			out = append(out, map[string]any{"name": strings.Trim(v, "{}"), "in": "path", "required": true, "schema": map[string]any{"type": "string", "maxLength": 128}})
		}
	}
	for _, p := range o.Params {
		schema := map[string]any{}
		switch p.Type {
		case String:
			schema["type"] = "string"
			maxLen := p.MaxLength
			if maxLen == 0 {
				maxLen = 256
			}
			schema["maxLength"] = maxLen
		case Enum:
			schema["type"] = "string"
			schema["enum"] = p.Enum
		case Integer, Number:
			schema["type"] = "integer"
			if p.Type == Number {
				schema["type"], schema["format"] = "number", "double"
			}
			if p.HasMin {
				schema["minimum"] = p.Min
			}
			if p.HasMax {
				schema["maximum"] = p.Max
			}
		case Boolean:
			schema["type"] = "boolean"
		case Date:
			schema["type"] = "string"
			schema["format"] = "date"
			schema["maxLength"] = 10
		}
		if p.Default != "" {
			switch p.Type {
			case Integer:
				n, _ := strconv.Atoi(p.Default)
				schema["default"] = n
			case Number:
				f, _ := strconv.ParseFloat(p.Default, 64)
				schema["default"] = f
			case Boolean:
				schema["default"] = p.Default == "true"
			default:
				schema["default"] = p.Default
			}
		}
		param := map[string]any{"name": p.Name, "in": "query", "required": false, "description": p.Description, "schema": schema}
		if p.Extension {
			param["x-extension"] = true
		}
		out = append(out, param)
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// newReflector derives the document's schemas: every named struct type is
// a component (client generators make one type of each), named by the
// operation's Schema when it is an operation's Payload, else by its Go name
// with the first letter upper-cased (and its package's name before it when
// two packages have a type of that name).
func newReflector(ops []Operation, defs map[string]any) *jsonschema.Reflector {
	byType := map[reflect.Type]string{}
	for _, o := range ops {
		if o.Payload != nil && o.Schema != "" {
			byType[o.Payload] = o.Schema
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

// envelopeResponses describes the responses of an operation whose 200 is
// an envelope; the schemas of its payload go into the reflector's
// components.
func envelopeResponses(o *Operation, refl *jsonschema.Reflector) map[string]any {
	data := map[string]any{"type": "object"}
	if o.Payload != nil {
		data = refl.Of(o.Payload)
		if _, named := data["$ref"]; !named && o.Schema != "" { // a generic page: a component of the operation's schema name
			refl.Defs[o.Schema] = data
			data = map[string]any{"$ref": "#/components/schemas/" + o.Schema}
		}
	}
	envelope := map[string]any{"type": "object", "required": []any{"contract", "data"}, "properties": map[string]any{
		"contract": map[string]any{"type": "string", "const": o.Contract},
		"data":     data,
	}}
	ok := map[string]any{"schema": envelope}
	if ex := o.Example; ex != nil {
		ok["examples"] = map[string]any{"tiny": map[string]any{
			"summary": o.Method + " " + ex.Request,
			"description": "A real response of this route on the tiny test snapshot (recorded by the edge's tests, " +
				"edge/testdata/examples; ids and dates of the day normalized).",
			"value": ex.Response,
		}}
	}
	if ex := o.SourcesExample; ex != nil {
		ok["examples"].(map[string]any)["sources"] = map[string]any{"summary": o.Method + " " + ex.Request + " (real sources)",
			"description": "A real response of this route on a snapshot built from the hand-written fixtures of Cardmarket's price guide and TCGplayer's " +
				"prices (builder/testdata/sources, two days; recorded by the edge's tests, edge/testdata/examples/sources).", "value": ex.Response}
	}
	errRef := ErrorContent()
	return map[string]any{
		"200":     map[string]any{"description": "OK, contract " + o.Contract, "content": map[string]any{"application/json": ok}},
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
		"content": ErrorContent()}
}

// ErrorContent is the content of an error.v1 response (a new map each
// call).
func ErrorContent() map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorV1"}}}
}

// Headers describes response headers from name, description pairs:
// strings, but Content-Length and Retry-After (integers).
func Headers(nameDesc ...string) map[string]any {
	out := map[string]any{}
	for i := 0; i+1 < len(nameDesc); i += 2 {
		schema := map[string]any{"type": "string"}
		if nameDesc[i] == "Content-Length" || nameDesc[i] == "Retry-After" {
			schema = map[string]any{"type": "integer", "minimum": 0}
		}
		out[nameDesc[i]] = map[string]any{"description": nameDesc[i+1], "schema": schema}
	}
	return out
}
