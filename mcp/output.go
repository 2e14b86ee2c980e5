package mcp

import (
	"encoding/json"
	"reflect"

	"github.com/cardedge/cardedge/jsonschema"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// Structured results. Every tool declares an outputSchema: the schema of the
// envelope (contract, as_of, snapshot_id, cost, data) whose data is one of
// the Go types the tool returns (toolDef.out), read off those types by
// package jsonschema, the same reader as the OpenAPI document's. A result
// carries the envelope twice: as JSON text in its first content block (what
// a client without structured output reads) and as structuredContent, the
// same bytes. handler refuses (as an internal error) data of a type the tool
// did not declare, so the schema cannot describe another type than the one
// encoded.

// outputSchema is a tool's outputSchema: the envelope with data any of outs,
// a nullable value spelled anyOf its type and null (jsonschema.AnyOfNull: the
// MCP Inspector's --strict check calls type lists less portable).
func outputSchema(name string, outs []any) json.RawMessage {
	var alts []any
	for _, v := range outs {
		alts = append(alts, jsonschema.Of(reflect.TypeOf(v)))
	}
	data := alts[0]
	if len(alts) > 1 {
		data = map[string]any{"anyOf": alts}
	}
	s := map[string]any{
		"type":                 "object",
		"required":             []any{"contract", "as_of", "snapshot_id", "market_source", "synthetic", "cost", "data"},
		"additionalProperties": false,
		"properties": map[string]any{
			"contract":    map[string]any{"type": "string", "const": "mcp." + name + ".v1"},
			"as_of":       map[string]any{"type": "string", "description": "The snapshot's as_of day, YYYY-MM-DD: its today."},
			"snapshot_id": map[string]any{"type": "string"},
			"market_source": map[string]any{"type": "string", "enum": []any{"synthetic", "feed", "sources"},
				"description": "Where the snapshot's market data comes from: synthetic (synthesized: the offline default), feed (cardedge's own feeds) or sources (the marketplaces' files; each price says its source)."},
			"synthetic": map[string]any{"type": "boolean", "description": "The snapshot's market data is synthesized: not real prices."},
			"cost":      map[string]any{"type": "integer", "description": "Units of the key's daily quota this call spent."},
			"data":      data,
		},
	}
	b, err := json.Marshal(jsonschema.AnyOfNull(s))
	if err != nil {
		panic("mcp: output schema of " + name + ": " + err.Error())
	}
	return b
}

// def pairs a tool with its handler and the Go types of its data (a zero
// value of each), and sets the tool's outputSchema from them.
func def(tool mcpproto.Tool, fn toolFunc, outs ...any) toolDef {
	tool.RawOutputSchema = outputSchema(tool.Name, outs)
	return toolDef{tool: tool, fn: fn, out: outs}
}

// declared reports whether data is of one of the declared types.
func declared(data any, outs []any) bool {
	t := reflect.TypeOf(data)
	for _, v := range outs {
		if reflect.TypeOf(v) == t {
			return true
		}
	}
	return false
}

// hints are a tool's annotations: a title, and what it does to the world.
// Every tool reads only this server's snapshot and state (openWorldHint
// false); the public tools destroy nothing, and those that pin a cohort
// write one (readOnlyHint false) but the same call again pins the same
// cohort (idempotentHint true). Charging the key's quota is not counted as
// modifying the environment. The collection's chat tools that change it
// take changeHints.
func hints(title string, readOnly bool) mcpproto.ToolOption {
	return annotate(title, readOnly, false, true)
}

// changeHints are the annotations of a chat tool that changes the account's
// collection so that the same call again changes it again (not idempotent):
// add_to_collection adds copies, remove_from_collection removes some
// (destructive).
func changeHints(title string, destructive bool) mcpproto.ToolOption {
	return annotate(title, false, destructive, false)
}

func annotate(title string, readOnly, destructive, idempotent bool) mcpproto.ToolOption {
	openWorld := false
	return func(tool *mcpproto.Tool) {
		tool.Title = title
		tool.Annotations = mcpproto.ToolAnnotation{Title: title, ReadOnlyHint: &readOnly, DestructiveHint: &destructive,
			IdempotentHint: &idempotent, OpenWorldHint: &openWorld}
	}
}
