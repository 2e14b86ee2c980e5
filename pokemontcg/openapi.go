package pokemontcg

import (
	"reflect"

	"github.com/cardedge/cardedge/jsonschema"
)

// schemaRef refers to a schema of Schemas in an OpenAPI document.
func schemaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// Schemas are the JSON Schemas of /v2's bodies, named for an OpenAPI
// document's components: the card and set objects (V2Card, V2Set, read
// off Card and Set, with no field required since select may leave any
// out) and their parts (V2Ability, V2TCGPlayer ...), the bodies (V2CardList,
// V2Card as {"data": card} is V2CardItem, V2SetList, V2SetItem, V2Strings)
// and V2Error. Responses refers to them.
func Schemas() map[string]any {
	defs := map[string]any{}
	pkg := reflect.TypeFor[Card]().PkgPath()
	r := &jsonschema.Reflector{RefPrefix: "#/components/schemas/", Defs: defs, Name: func(t reflect.Type) string {
		if t.PkgPath() == pkg && t.Name() != "" {
			return "V2" + t.Name()
		}
		return ""
	}}
	r.Of(reflect.TypeFor[Card]())
	r.Of(reflect.TypeFor[Set]())
	for _, name := range []string{"V2Card", "V2Set"} {
		delete(defs[name].(jsonschema.Schema), "required")
	}
	integer := jsonschema.Schema{"type": "integer"}
	object := func(props map[string]any, required ...any) jsonschema.Schema {
		return jsonschema.Schema{"type": "object", "required": required, "additionalProperties": false, "properties": props}
	}
	list := func(item string) jsonschema.Schema {
		return object(map[string]any{"data": jsonschema.Schema{"type": "array", "items": schemaRef(item)},
			"page": integer, "pageSize": integer, "count": integer, "totalCount": integer},
			"data", "page", "pageSize", "count", "totalCount")
	}
	defs["V2CardList"] = list("V2Card")
	defs["V2SetList"] = list("V2Set")
	defs["V2CardItem"] = object(map[string]any{"data": schemaRef("V2Card")}, "data")
	defs["V2SetItem"] = object(map[string]any{"data": schemaRef("V2Set")}, "data")
	defs["V2Strings"] = object(map[string]any{"data": jsonschema.Schema{"type": "array", "items": jsonschema.Schema{"type": "string"}}}, "data")
	defs["V2Error"] = object(map[string]any{"error": object(map[string]any{"message": jsonschema.Schema{"type": "string"}, "code": integer},
		"message", "code")}, "error")
	return defs
}

// Responses are the documented responses of e, as OpenAPI 3.1 response
// objects by status, their bodies Schemas' components: the 200 body as
// pokemontcg.io's, 304 for a matching If-None-Match, and the errors in
// pokemontcg.io's shape (V2Error).
func (e *Endpoint) Responses() map[string]any {
	body := "V2Strings"
	switch e.kind {
	case kindCards:
		body = "V2CardList"
	case kindCard:
		body = "V2CardItem"
	case kindSets:
		body = "V2SetList"
	case kindSet:
		body = "V2SetItem"
	}
	header := func(desc string) map[string]any {
		return map[string]any{"description": desc, "schema": jsonschema.Schema{"type": "string"}}
	}
	errBody := map[string]any{"application/json": map[string]any{"schema": schemaRef("V2Error")}}
	resp := func(desc string) map[string]any { return map[string]any{"description": desc, "content": errBody} }
	return map[string]any{
		"200": map[string]any{"description": "OK, as pokemontcg.io answers",
			"headers": map[string]any{"ETag": header("Validator of the body (If-None-Match)"), "Cache-Control": header("private, max-age=60")},
			"content": map[string]any{"application/json": map[string]any{"schema": schemaRef(body)}}},
		"304":     map[string]any{"description": "Not modified (If-None-Match matched the ETag)"},
		"400":     resp("A q, orderBy, select, page or pageSize that does not parse: the message names it"),
		"401":     resp("An X-Api-Key (or Authorization) that is not a valid cardedge key"),
		"404":     resp("No card or set of that id"),
		"429":     resp("Rate or quota limit; see Retry-After"),
		"default": resp("Any other error (500 an internal error, 503 the state store unreachable)"),
	}
}
