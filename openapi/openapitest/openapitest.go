// Package openapitest checks JSON bodies against the response schemas of an
// OpenAPI 3.1 document with JSON Schema 2020-12 semantics (the dialect of
// OpenAPI 3.1: a list of types, "null" among them, is what makes a value
// nullable; OpenAPI 3.0's nullable means nothing), using
// santhosh-tekuri/jsonschema/v6. The edge's tests check the recorded
// examples with it, and the end-to-end tests every real response.
//
// It is named like httptest: a helper of tests, imported by no program.
package openapitest

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL is the location the document is compiled under (never fetched).
const docURL = "https://cardedge.invalid/openapi.json"

// Document is a loaded OpenAPI document whose schemas compile on first use.
type Document struct {
	raw      map[string]any
	compiler *jsonschema.Compiler

	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema
}

// Load parses an OpenAPI 3.1 document.
func Load(doc []byte) (*Document, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("openapitest: %w", err)
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapitest: the document is not a JSON object")
	}
	if s, _ := raw["openapi"].(string); !strings.HasPrefix(s, "3.1.") {
		return nil, fmt.Errorf("openapitest: openapi %q, want 3.1.x", s)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, raw); err != nil {
		return nil, fmt.Errorf("openapitest: %w", err)
	}
	return &Document{raw: raw, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
}

// Raw is the document as decoded JSON (numbers as json.Number).
func (d *Document) Raw() map[string]any { return d.raw }

// Pointer is the JSON pointer of the schema of a response: method and path
// template of the operation, the status, the media type.
func Pointer(method, pattern string, status int, mediaType string) string {
	return pointer(method, pattern, strconv.Itoa(status), mediaType)
}

// pointer is Pointer with the response's key ("200", "default").
func pointer(method, pattern, response, mediaType string) string {
	return "/paths/" + escape(pattern) + "/" + strings.ToLower(method) + "/responses/" + response +
		"/content/" + escape(mediaType) + "/schema"
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Schema compiles (once) the schema at a JSON pointer of the document.
func (d *Document) Schema(pointer string) (*jsonschema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.schemas[pointer]; ok {
		return s, nil
	}
	frag := (&url.URL{Fragment: pointer}).EscapedFragment()
	s, err := d.compiler.Compile(docURL + "#" + frag)
	if err != nil {
		return nil, fmt.Errorf("openapitest: compile %s: %w", pointer, err)
	}
	d.schemas[pointer] = s
	return s, nil
}

// HasResponse reports whether the document describes a JSON body for the
// operation's status: the status's own response, else (a status the
// operation does not list) its default response.
func (d *Document) HasResponse(method, pattern string, status int) bool {
	_, ok := d.response(method, pattern, status)
	return ok
}

// response is the key of the operation's response that describes status
// (the status, else "default"), if it has an application/json body.
func (d *Document) response(method, pattern string, status int) (string, bool) {
	op, _ := d.operation(method, pattern)
	if op == nil {
		return "", false
	}
	rs, _ := op["responses"].(map[string]any)
	key := strconv.Itoa(status)
	if _, listed := rs[key]; !listed {
		key = "default"
	}
	r, _ := rs[key].(map[string]any)
	c, _ := r["content"].(map[string]any)
	_, ok := c["application/json"]
	return key, ok
}

func (d *Document) operation(method, pattern string) (map[string]any, bool) {
	paths, _ := d.raw["paths"].(map[string]any)
	item, _ := paths[pattern].(map[string]any)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	return op, ok
}

// ValidateResponse checks a JSON body against the schema of the operation's
// response of that status (application/json; the default response for a
// status the operation does not list). A status the operation does not
// describe is an error.
func (d *Document) ValidateResponse(method, pattern string, status int, body []byte) error {
	key, ok := d.response(method, pattern, status)
	if !ok {
		return fmt.Errorf("%s %s: the document has no application/json response %d", method, pattern, status)
	}
	s, err := d.Schema(pointer(method, pattern, key, "application/json"))
	if err != nil {
		return err
	}
	return Validate(s, body)
}

// Validate checks a JSON body against a compiled schema.
func Validate(s *jsonschema.Schema, body []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	return s.Validate(v)
}

// CompileSchema compiles one standalone JSON Schema (2020-12 unless it says
// otherwise), e.g. an MCP tool's outputSchema.
func CompileSchema(schema []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const loc = "https://cardedge.invalid/schema.json"
	if err := c.AddResource(loc, v); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}
