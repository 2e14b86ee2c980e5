package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/openapi/openapitest"
)

// TestAlertTools_Declarations: the alert and history tools are chat tools
// (hidden from API keys), each with a title, honest annotations and an
// outputSchema that compiles; none without their services.
func TestAlertTools_Declarations(t *testing.T) {
	if defs := (&Server{}).alertToolDefs(); len(defs) != 0 {
		t.Fatalf("%d alert tools without services", len(defs))
	}
	s := &Server{opts: Options{Alerts: (*alert.Service)(nil), Collections: &collection.Service{}}}
	defs := s.alertToolDefs()
	var names []string
	for _, d := range defs {
		names = append(names, d.tool.Name)
	}
	want := []string{"add_to_want_list", "collection_history", "create_alert", "delete_alert", "list_alerts", "recent_alerts", "set_completion"}
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	writers := map[string]bool{"create_alert": true, "add_to_want_list": true, "delete_alert": true}
	for _, d := range defs {
		tool := d.tool
		a := tool.Annotations
		if !chatTools[tool.Name] {
			t.Errorf("%s is not a chat tool: an API key would see it", tool.Name)
		}
		if tool.Title == "" || a.Title != tool.Title || a.ReadOnlyHint == nil || *a.ReadOnlyHint == writers[tool.Name] {
			t.Errorf("%s: title %q, readOnly %v", tool.Name, tool.Title, a.ReadOnlyHint)
		}
		if a.DestructiveHint == nil || *a.DestructiveHint != (tool.Name == "delete_alert") || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: destructive %v openWorld %v", tool.Name, a.DestructiveHint, a.OpenWorldHint)
		}
		b, _ := json.Marshal(tool)
		var listed struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		json.Unmarshal(b, &listed)
		if _, err := openapitest.CompileSchema(listed.OutputSchema); err != nil {
			t.Errorf("%s: outputSchema does not compile: %v", tool.Name, err)
		}
	}
}
