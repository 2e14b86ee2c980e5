package jsonschema_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/jsonschema"
	"github.com/cardedge/cardedge/openapi/openapitest"
)

type inner struct {
	N int `json:"n"`
}

type described struct{}

func (described) MarshalJSON() ([]byte, error) { return []byte(`["x"]`), nil }

func (described) JSONSchema() map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
}

type embedded struct {
	E string `json:"e"`
}

type outer struct {
	embedded
	Name    string           `json:"name"`
	Note    *string          `json:"note"`
	Opt     int              `json:"opt,omitempty"`
	Tags    []string         `json:"tags" nullable:"true"`
	Kind    string           `json:"kind" enum:"a,b"`
	MaybeK  *string          `json:"maybe_kind" enum:"a,b"`
	In      *inner           `json:"in"`
	Ins     []inner          `json:"ins"`
	ByName  map[string]inner `json:"by_name"`
	When    time.Time        `json:"when"`
	Flags   described        `json:"flags"`
	Any     any              `json:"any"`
	Raw     json.RawMessage  `json:"raw"`
	Bytes   []byte           `json:"bytes"`
	skipped string
	Dash    string            `json:"-"`
	Renamed map[string]string `json:"renamed,omitzero"`
	Opt2    *inner            `json:"opt2,omitempty"`
}

func TestOf(t *testing.T) {
	got := jsonschema.For[outer]()
	b, _ := json.Marshal(got)
	for _, want := range []string{
		`"e":{"type":"string"}`,
		`"note":{"type":["string","null"]}`,
		`"tags":{"items":{"type":"string"},"type":["array","null"]}`,
		`"kind":{"enum":["a","b"],"type":"string"}`,
		`"maybe_kind":{"enum":["a","b",null],"type":["string","null"]}`,
		`"in":{"additionalProperties":false,"properties":{"n":{"type":"integer"}},"required":["n"],"type":["object","null"]}`,
		`"when":{"type":"string"}`,
		`"flags":{"items":{"type":"string"},"type":"array"}`,
		`"any":{}`, `"raw":{}`,
		`"bytes":{"contentEncoding":"base64","type":"string"}`,
		`"opt2":{"additionalProperties":false,"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}`,
		`"required":["e","name","note","tags","kind","maybe_kind","in","ins","by_name","when","flags","any","raw","bytes"]`,
		`"additionalProperties":false`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s:\n%s", want, b)
		}
	}
	for _, no := range []string{`"skipped"`, `"Dash"`, `"nullable"`} {
		if strings.Contains(string(b), no) {
			t.Errorf("schema has %s:\n%s", no, b)
		}
	}
	// The schema accepts what encoding/json makes of the type.
	s, err := openapitest.CompileSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	note := "n"
	// A nil slice or map encodes as null, which the schema refuses unless
	// the field is tagged nullable.
	for _, v := range []outer{{Ins: []inner{}, ByName: map[string]inner{}, Bytes: []byte{}}, {skipped: "not encoded", Bytes: []byte("b"), Name: "x", Note: &note, Tags: []string{"t"}, Kind: "a", In: &inner{1}, Ins: []inner{{2}}, ByName: map[string]inner{"k": {3}}, Raw: json.RawMessage(`[1]`)}} {
		if v.Kind == "" {
			v.Kind = "b"
		}
		j, _ := json.Marshal(v)
		if err := openapitest.Validate(s, j); err != nil {
			t.Errorf("%s: %v", j, err)
		}
	}
}

func TestReflector_Named(t *testing.T) {
	r := &jsonschema.Reflector{RefPrefix: "#/$defs/", Name: func(t reflect.Type) string {
		if t == reflect.TypeFor[inner]() {
			return "Inner"
		}
		return ""
	}}
	got := r.Of(reflect.TypeFor[struct {
		A *inner  `json:"a"`
		B []inner `json:"b"`
	}]())
	b, _ := json.Marshal(got)
	for _, want := range []string{`"a":{"anyOf":[{"$ref":"#/$defs/Inner"},{"type":"null"}]}`, `"b":{"items":{"$ref":"#/$defs/Inner"},"type":"array"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s:\n%s", want, b)
		}
	}
	if _, ok := r.Defs["Inner"]; !ok || len(r.Defs) != 1 {
		t.Errorf("defs %v", r.Defs)
	}
}

func TestNullable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":"string"}`, `{"type":["string","null"]}`},
		{`{"type":["string","null"]}`, `{"type":["string","null"]}`},
		{`{"type":["string","integer"]}`, `{"type":["string","integer","null"]}`},
		{`{}`, `{}`},
		{`{"$ref":"#/x"}`, `{"anyOf":[{"$ref":"#/x"},{"type":"null"}]}`},
	} {
		var in map[string]any
		json.Unmarshal([]byte(c.in), &in)
		got, _ := json.Marshal(jsonschema.Nullable(in))
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
}

func TestAnyOfNull(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":["string","null"],"maxLength":3}`, `{"anyOf":[{"maxLength":3,"type":"string"},{"type":"null"}]}`},
		{`{"type":"object","properties":{"a":{"type":["integer","null"]}}}`, `{"properties":{"a":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"type":"object"}`},
		{`{"items":[{"type":["number","null"]}]}`, `{"items":[{"anyOf":[{"type":"number"},{"type":"null"}]}]}`},
		{`{"type":"string"}`, `{"type":"string"}`},
	} {
		var in any
		json.Unmarshal([]byte(c.in), &in)
		got, _ := json.Marshal(jsonschema.AnyOfNull(in))
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
	// The rewritten schema accepts and refuses what the original does.
	orig := jsonschema.For[outer]()
	b, _ := json.Marshal(jsonschema.AnyOfNull(orig))
	s, err := openapitest.CompileSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	note := "n"
	ok, _ := json.Marshal(outer{Note: &note, Kind: "a", Ins: []inner{}, ByName: map[string]inner{}, Bytes: []byte{}})
	bad, _ := json.Marshal(outer{Kind: "c", Ins: []inner{}, ByName: map[string]inner{}, Bytes: []byte{}})
	if err := openapitest.Validate(s, ok); err != nil {
		t.Errorf("%s: %v", ok, err)
	}
	if err := openapitest.Validate(s, bad); err == nil {
		t.Errorf("%s validates", bad)
	}
}
