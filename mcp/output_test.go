package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/openapi/openapitest"
)

// TestTools_Declarations: every tool has a title, honest annotations and an
// outputSchema that compiles (JSON Schema 2020-12), whose root is an object
// (as MCP requires) and whose data lists each declared type.
func TestTools_Declarations(t *testing.T) {
	writers := map[string]bool{"pin_cohort": true, "compare_set_finish": true}
	defs := (&Server{}).tools()
	if len(defs) != 10 {
		t.Fatalf("%d tools", len(defs))
	}
	for _, d := range defs {
		tool := d.tool
		a := tool.Annotations
		if tool.Title == "" || a.Title != tool.Title {
			t.Errorf("%s: title %q, annotations.title %q", tool.Name, tool.Title, a.Title)
		}
		if a.ReadOnlyHint == nil || *a.ReadOnlyHint == writers[tool.Name] {
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		}
		if a.DestructiveHint == nil || *a.DestructiveHint || a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: destructive %v idempotent %v openWorld %v", tool.Name, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint)
		}
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var listed struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		json.Unmarshal(b, &listed)
		var root map[string]any
		if err := json.Unmarshal(listed.OutputSchema, &root); err != nil || root["type"] != "object" {
			t.Errorf("%s: outputSchema %s", tool.Name, listed.OutputSchema)
			continue
		}
		if _, err := openapitest.CompileSchema(listed.OutputSchema); err != nil {
			t.Errorf("%s: outputSchema does not compile: %v", tool.Name, err)
		}
		if strings.Contains(string(listed.OutputSchema), `"nullable"`) || strings.Contains(string(listed.OutputSchema), `"$ref"`) {
			t.Errorf("%s: outputSchema has nullable or $ref", tool.Name)
		}
		data := root["properties"].(map[string]any)["data"].(map[string]any)
		if alts, ok := data["anyOf"].([]any); (ok && len(alts) != len(d.out)) || (!ok && len(d.out) != 1) {
			t.Errorf("%s: data schema does not list its %d types", tool.Name, len(d.out))
		}
		if !declared(d.out[0], d.out) || declared(map[string]any{}, d.out) {
			t.Errorf("%s: declared", tool.Name)
		}
	}
}
