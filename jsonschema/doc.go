// Package schema derives JSON Schemas from Go types by reflection, so that
// a published schema is read off the types that make the JSON: the REST
// payloads of the OpenAPI document (package edge) and the output schemas of
// the MCP tools (package mcp) come from here.
//
// The schemas keep to keywords that JSON Schema 2020-12 (the dialect of
// OpenAPI 3.1) and draft-07 (which many MCP hosts validate with) read
// alike. A value that may be null has a list of types, ["string", "null"],
// never OpenAPI 3.0's nullable.
//
// It imports only the standard library.
package jsonschema
