package mcp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// validateArgs checks a call's arguments against the tool's input schema
// (the subset the tools use: string, integer, number, boolean and arrays of
// strings, with enum, bounds, lengths and item counts; no unknown
// arguments) and returns an EINVALID error whose message names the argument,
// what it must be and what was sent. A null argument counts as absent.
func validateArgs(tool mcpproto.Tool, args map[string]any) error {
	props := tool.InputSchema.Properties
	var unknown []string
	for _, k := range sortedKeys(args) {
		v := args[k]
		p, ok := props[k].(map[string]any)
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		if v == nil {
			continue
		}
		if err := checkValue(k, p, v); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		return apperr.Errorf(apperr.EINVALID, "unknown argument %s; %s takes: %s", strings.Join(unknown, ", "), tool.Name, strings.Join(sortedKeys(props), ", "))
	}
	for _, r := range tool.InputSchema.Required {
		if args[r] == nil {
			return apperr.Errorf(apperr.EINVALID, "%s is required: %s", r, describe(props[r]))
		}
	}
	return nil
}

func describe(p any) string {
	if m, ok := p.(map[string]any); ok {
		if d, ok := m["description"].(string); ok {
			if i := strings.Index(d, ". "); i > 0 {
				return d[:i+1]
			}
			return d
		}
	}
	return "see the tool's input schema"
}

func checkValue(name string, p map[string]any, v any) error {
	bad := func(format string, args ...any) error {
		return apperr.Errorf(apperr.EINVALID, "%s %s", name, fmt.Sprintf(format, args...))
	}
	switch p["type"] {
	case "string":
		s, ok := v.(string)
		if !ok {
			return bad("must be a string, got %s", jsonType(v))
		}
		return checkString(name, p, s)
	case "integer", "number":
		f, ok := v.(float64)
		if !ok {
			return bad("must be a number, got %s", jsonType(v))
		}
		if p["type"] == "integer" && f != math.Trunc(f) {
			return bad("must be a whole number, got %v", f)
		}
		lo, hasLo := num(p["minimum"])
		hi, hasHi := num(p["maximum"])
		switch {
		case hasLo && hasHi && (f < lo || f > hi):
			return bad("must be from %v to %v, got %v", lo, hi, f)
		case hasLo && f < lo:
			return bad("must be at least %v, got %v", lo, f)
		case hasHi && f > hi:
			return bad("must be at most %v, got %v", hi, f)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return bad("must be true or false, got %s", jsonType(v))
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return bad("must be an array (a JSON list such as [\"en:base1-4\"]), got %s", jsonType(v))
		}
		if n, ok := num(p["maxItems"]); ok && float64(len(list)) > n {
			return bad("has %d items, at most %v per call: split the call", len(list), n)
		}
		if n, ok := num(p["minItems"]); ok && float64(len(list)) < n {
			return bad("has %d items, give at least %v", len(list), n)
		}
		if items, ok := p["items"].(map[string]any); ok && items["type"] == "string" {
			for i, x := range list {
				s, ok := x.(string)
				if !ok {
					return bad("item %d must be a string, got %s", i, jsonType(x))
				}
				if err := checkString(fmt.Sprintf("%s item %d", name, i), items, s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkString(name string, p map[string]any, s string) error {
	if enum, ok := p["enum"].([]string); ok && !slices.Contains(enum, s) {
		return apperr.Errorf(apperr.EINVALID, "%s must be one of %s, got %q", name, strings.Join(enum, ", "), s)
	}
	if n, ok := num(p["maxLength"]); ok && float64(len(s)) > n {
		return apperr.Errorf(apperr.EINVALID, "%s is %d characters long, at most %v", name, len(s), n)
	}
	if n, ok := num(p["minLength"]); ok && float64(len(s)) < n {
		return apperr.Errorf(apperr.EINVALID, "%s is empty", name)
	}
	return nil
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", truncateString(x, 40))
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func truncateString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
