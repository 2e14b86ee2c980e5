package openapi

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Example is one operation's recorded exchange, as the example files hold
// it.
type Example struct {
	Request  string          `json:"request"`
	Body     json.RawMessage `json:"body,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// Responses are the recorded responses, by status, of an operation
	// whose body is not a JSON envelope (Operation.Responses).
	Responses map[string]RawResponse `json:"responses,omitempty"`
}

// RawResponse is one recorded response of an operation with
// Operation.Responses: the request headers that asked for it, the response
// headers the document describes, and the body when it is JSON (a file's
// bytes are not kept).
type RawResponse struct {
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
	Headers        map[string]string `json:"headers"`
	Body           json.RawMessage   `json:"body,omitempty"`
}

// rawResponses are the Responses of o with the default response and its
// recorded example: each recorded header's value as the header's example,
// each JSON body as its media type's example.
func rawResponses(o *Operation) map[string]any {
	resps := o.Responses
	if resps["default"] == nil {
		resps["default"] = defaultResponse()
	}
	ex := o.Example
	if ex == nil {
		return resps
	}
	for status, rec := range ex.Responses {
		r, _ := resps[status].(map[string]any)
		if r == nil {
			continue
		}
		headers, _ := r["headers"].(map[string]any)
		for name, v := range rec.Headers {
			if h, ok := headers[name].(map[string]any); ok {
				var example any = v
				if n, err := strconv.Atoi(v); err == nil && (name == "Content-Length" || name == "Retry-After") {
					example = n
				}
				h["example"] = example
			}
		}
		if len(rec.Body) == 0 {
			continue
		}
		content, _ := r["content"].(map[string]any)
		for mt, m := range content {
			if m, ok := m.(map[string]any); ok && IsJSONMediaType(mt) {
				summary := o.Method + " " + ex.Request
				for _, name := range slices.Sorted(maps.Keys(rec.RequestHeaders)) {
					summary += ", " + name + ": " + rec.RequestHeaders[name]
				}
				m["examples"] = map[string]any{"tiny": map[string]any{"summary": summary,
					"description": "A real response of this route on the tiny test snapshot (recorded by the edge's tests, edge/testdata/examples).",
					"value":       rec.Body}}
			}
		}
	}
	return resps
}

// IsJSONMediaType reports whether a media type is JSON (application/json,
// application/*+json).
func IsJSONMediaType(mt string) bool {
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}
