package edge

import (
	"strconv"
	"strings"
)

// openAPI describes the curated public routes (OpenAPI 3.1, info.version
// 0.3.0), generated from the route table so that it cannot drift from what
// the server validates.
func (s *Server) openAPI() map[string]any {
	paths := map[string]any{}
	for _, rt := range s.router.routes {
		if rt.removed || rt.internal || rt.name == "openapi" || rt.name == "keys_usage" {
			continue
		}
		op := map[string]any{
			"operationId": rt.name,
			"summary":     rt.summary,
			"parameters":  openAPIParams(rt),
			"responses":   openAPIResponses(rt),
		}
		if !rt.keyless {
			op["security"] = []any{map[string]any{"bearer": []any{}}}
		} else {
			op["security"] = []any{map[string]any{}, map[string]any{"bearer": []any{}}}
		}
		if rt.method == "POST" {
			types, content := rt.bodyTypes, map[string]any{}
			if types == nil {
				types = []string{"application/json"}
			}
			for _, t := range types {
				schema := map[string]any{"type": "string"}
				if t == "application/json" {
					schema = map[string]any{"type": "object"}
				}
				content[t] = map[string]any{"schema": schema}
			}
			op["requestBody"] = map[string]any{"required": true, "content": content}
			op["responses"].(map[string]any)["413"] = map[string]any{"description": "Request body too large", "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorV1"}}}}
		}
		item, _ := paths[rt.pattern].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.pattern] = item
		}
		item[strings.ToLower(rt.method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "cardedge market data API",
			"version":     APIVersion,
			"description": "Read-only market intelligence for trading cards. Every response is {contract, data}; errors are error.v1; 422 bodies are HTTPValidationError.",
		},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"schemas": map[string]any{
				"ErrorV1": map[string]any{"type": "object", "required": []any{"contract", "error"}, "properties": map[string]any{
					"contract": map[string]any{"const": "error.v1"},
					"error": map[string]any{"type": "object", "required": []any{"code", "message"}, "properties": map[string]any{
						"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"},
						"details": map[string]any{"type": "object"}}}}},
				"HTTPValidationError": map[string]any{"type": "object", "properties": map[string]any{
					"detail": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []any{"loc", "msg", "type"}, "properties": map[string]any{
						"loc": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}},
						"msg": map[string]any{"type": "string"}, "type": map[string]any{"type": "string"},
						"input": map[string]any{}, "ctx": map[string]any{"type": "object"}}}}}},
			},
		},
	}
}

func openAPIParams(rt *route) []any {
	var out []any
	for _, v := range rt.segs {
		if strings.HasPrefix(v, "{") {
			out = append(out, map[string]any{"name": strings.Trim(v, "{}"), "in": "path", "required": true, "schema": map[string]any{"type": "string", "maxLength": 128}})
		}
	}
	for _, p := range rt.params {
		schema := map[string]any{}
		switch p.kind {
		case kString:
			schema["type"] = "string"
			maxLen := p.maxLen
			if maxLen == 0 {
				maxLen = 256
			}
			schema["maxLength"] = maxLen
		case kEnum:
			schema["type"] = "string"
			schema["enum"] = p.enum
		case kInt, kFloat:
			schema["type"] = "integer"
			if p.kind == kFloat {
				schema["type"] = "number"
			}
			if p.hasMin {
				schema["minimum"] = p.min
			}
			if p.hasMax {
				schema["maximum"] = p.max
			}
		case kBool:
			schema["type"] = "boolean"
		case kDate:
			schema["type"] = "string"
			schema["format"] = "date"
			schema["maxLength"] = 10
		}
		if p.def != "" {
			switch p.kind {
			case kInt:
				n, _ := strconv.Atoi(p.def)
				schema["default"] = n
			case kFloat:
				f, _ := strconv.ParseFloat(p.def, 64)
				schema["default"] = f
			case kBool:
				schema["default"] = p.def == "true"
			default:
				schema["default"] = p.def
			}
		}
		param := map[string]any{"name": p.name, "in": "query", "required": false, "description": p.doc, "schema": schema}
		if p.extension {
			param["x-extension"] = true
		}
		out = append(out, param)
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func openAPIResponses(rt *route) map[string]any {
	envelope := map[string]any{"type": "object", "required": []any{"contract", "data"}, "properties": map[string]any{
		"contract": map[string]any{"const": rt.contract},
		"data":     dataSchema(rt.name),
	}}
	errRef := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorV1"}}}
	return map[string]any{
		"200": map[string]any{"description": "OK, contract " + rt.contract, "content": map[string]any{"application/json": map[string]any{"schema": envelope}}},
		"304": map[string]any{"description": "Not modified (If-None-Match matched the ETag)"},
		"401": map[string]any{"description": "Missing or invalid key", "content": errRef},
		"403": map[string]any{"description": "Tier not allowed", "content": errRef},
		"404": map[string]any{"description": "Unknown card, set or game", "content": errRef},
		"422": map[string]any{"description": "Validation error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/HTTPValidationError"}}}},
		"429": map[string]any{"description": "Rate or quota limit; see Retry-After", "content": errRef},
	}
}
