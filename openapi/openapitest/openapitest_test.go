package openapitest_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/openapi/openapitest"
)

const doc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/things/{id}": {"get": {"responses": {
      "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
      "304": {"description": "not modified"}
    }}},
    "/others": {"get": {"responses": {
      "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array"}}}},
      "default": {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    }}}
  },
  "components": {"schemas": {
    "Error": {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}},
    "Thing": {"type": "object", "required": ["name", "note", "legacy"], "additionalProperties": false, "properties": {
      "name": {"type": "string"},
      "note": {"type": ["string", "null"]},
      "legacy": {"type": "string", "nullable": true},
      "tags": {"type": "array", "items": {"type": "string"}}
    }}
  }}
}`

func TestDocument_ValidateResponse(t *testing.T) {
	d, err := openapitest.Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, body string
		ok         bool
	}{
		{"OK", `{"name": "a", "note": "n", "legacy": "l"}`, true},
		{"null in a type list", `{"name": "a", "note": null, "legacy": "l"}`, true},
		// OpenAPI 3.0's nullable means nothing under 3.1 (kin-openapi's 3.0
		// semantics let this pass).
		{"ErrNullableKeyword", `{"name": "a", "note": null, "legacy": null}`, false},
		{"ErrNull", `{"name": null, "note": null, "legacy": "l"}`, false},
		{"ErrMissing", `{"name": "a", "legacy": "l"}`, false},
		{"ErrExtra", `{"name": "a", "note": null, "legacy": "l", "x": 1}`, false},
		{"ErrItem", `{"name": "a", "note": null, "legacy": "l", "tags": [1]}`, false},
		{"ErrNotJSON", `{"name": `, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := d.ValidateResponse("GET", "/things/{id}", 200, []byte(c.body))
			if (err == nil) != c.ok {
				t.Errorf("%s: err %v, want ok %v", c.body, err, c.ok)
			}
		})
	}
	if err := d.ValidateResponse("GET", "/things/{id}", 304, nil); err == nil || !strings.Contains(err.Error(), "no application/json response 304") {
		t.Errorf("304 without content: %v", err)
	}
	if d.HasResponse("GET", "/things/{id}", 404) || !d.HasResponse("GET", "/things/{id}", 200) {
		t.Errorf("HasResponse")
	}
	// A status an operation does not list is its default response's.
	if !d.HasResponse("GET", "/others", 503) {
		t.Errorf("HasResponse of a status the default response describes")
	}
	if err := d.ValidateResponse("GET", "/others", 503, []byte(`{"code": "unavailable"}`)); err != nil {
		t.Errorf("503 under default: %v", err)
	}
	if err := d.ValidateResponse("GET", "/others", 503, []byte(`{"message": "no code"}`)); err == nil {
		t.Errorf("a 503 that is not the default response's schema validated")
	}
}

func TestLoad_Err30(t *testing.T) {
	if _, err := openapitest.Load([]byte(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}`)); err == nil {
		t.Errorf("an OpenAPI 3.0 document loaded")
	}
}

func TestCompileSchema(t *testing.T) {
	s, err := openapitest.CompileSchema([]byte(`{"type": "object", "properties": {"n": {"type": ["integer", "null"]}}, "required": ["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := openapitest.Validate(s, []byte(`{"n": null}`)); err != nil {
		t.Errorf("null: %v", err)
	}
	if err := openapitest.Validate(s, []byte(`{"n": 1.5}`)); err == nil {
		t.Errorf("1.5 is not an integer")
	}
}
