package pokemontcg

import (
	"github.com/cardedge/cardedge/jsonschema"
)

// Responses are the documented responses of e, as OpenAPI 3.1 response
// objects by status: the 200 body as pokemontcg.io's (the list envelope,
// {"data": object} or {"data": [string]}, the card and set objects read
// off Card and Set with no field required, since select may leave any
// out), 304 for a matching If-None-Match, and the errors in pokemontcg.io's
// shape ({"error": {"message", "code"}}).
func (e *Endpoint) Responses() map[string]any {
	var item jsonschema.Schema
	switch e.kind {
	case kindCards, kindCard:
		item = jsonschema.For[Card]()
	case kindSets, kindSet:
		item = jsonschema.For[Set]()
	default:
		item = jsonschema.Schema{"type": "string"}
	}
	delete(item, "required")
	integer := jsonschema.Schema{"type": "integer"}
	body := jsonschema.Schema{"type": "object", "required": []any{"data"}, "additionalProperties": false,
		"properties": map[string]any{"data": item}}
	switch e.kind {
	case kindCards, kindSets, kindTypes, kindSubtypes, kindSupertypes, kindRarities:
		body["properties"] = map[string]any{"data": jsonschema.Schema{"type": "array", "items": item}}
	}
	if e.kind == kindCards || e.kind == kindSets {
		body["required"] = []any{"data", "page", "pageSize", "count", "totalCount"}
		body["properties"] = map[string]any{"data": jsonschema.Schema{"type": "array", "items": item},
			"page": integer, "pageSize": integer, "count": integer, "totalCount": integer}
	}
	errBody := map[string]any{"application/json": map[string]any{"schema": jsonschema.Schema{
		"type": "object", "required": []any{"error"}, "properties": map[string]any{"error": jsonschema.Schema{
			"type": "object", "required": []any{"message", "code"},
			"properties": map[string]any{"message": jsonschema.Schema{"type": "string"}, "code": integer}}}}}}
	header := func(desc string) map[string]any {
		return map[string]any{"description": desc, "schema": jsonschema.Schema{"type": "string"}}
	}
	resp := func(desc string) map[string]any { return map[string]any{"description": desc, "content": errBody} }
	return map[string]any{
		"200": map[string]any{"description": "OK, as pokemontcg.io answers",
			"headers": map[string]any{"ETag": header("Validator of the body (If-None-Match)"), "Cache-Control": header("private, max-age=60")},
			"content": map[string]any{"application/json": map[string]any{"schema": body}}},
		"304":     map[string]any{"description": "Not modified (If-None-Match matched the ETag)"},
		"400":     resp("A q, orderBy, select, page or pageSize that does not parse: the message names it"),
		"401":     resp("An X-Api-Key (or Authorization) that is not a valid cardedge key"),
		"404":     resp("No card or set of that id"),
		"429":     resp("Rate or quota limit; see Retry-After"),
		"default": resp("Any other error (500 an internal error, 503 the state store unreachable)"),
	}
}
