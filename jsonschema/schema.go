package jsonschema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// Schema is one JSON Schema as a JSON object.
type Schema = map[string]any

// Describer is a type whose JSON is not what Of reads off its Go type (a
// MarshalJSON of another shape): it describes its JSON itself.
type Describer interface {
	JSONSchema() map[string]any
}

// OneOfer is a type whose JSON takes one of several shapes: OneOf returns a
// value of each (its schema is oneOf theirs, and null too for a pointer).
type OneOfer interface{ OneOf() []any }

var (
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	describer     = reflect.TypeOf((*Describer)(nil)).Elem()
	oneOfer       = reflect.TypeOf((*OneOfer)(nil)).Elem()
	rawMessage    = reflect.TypeOf(json.RawMessage(nil))
)

// Of returns the JSON Schema of the JSON that encoding/json makes of a value
// of type t:
//
//   - a struct is an object of its exported fields (and the fields of its
//     embedded structs) named by their json tags; a field without omitempty
//     or omitzero is required; no other property is allowed;
//   - a pointer is its element's schema that also allows null (but for a
//     field tagged omitempty, which leaves a nil pointer out), and so is a
//     field tagged nullable:"true" (a nil slice or map that means "unknown"
//     or "not applicable"); a field tagged enum:"a,b,c" lists its values;
//   - a slice or array is an array of its element's schema ([]byte is a
//     base64 string), a map an object of its value's schema (a nil slice or
//     map encodes as null: tag the field nullable or never leave it nil);
//   - a type that marshals itself as text is a string; a Describer says its
//     own schema; a OneOfer is oneOf the shapes it lists; an interface or a
//     json.RawMessage allows any value.
//
// A type with its own MarshalJSON is read off its fields like any other:
// it must encode them as encoding/json would, or be a Describer.
//
// The schema uses only keywords that mean the same in JSON Schema 2020-12
// (OpenAPI 3.1) and draft-07 (many MCP hosts): type (a list of types for a
// nullable value), properties, required, additionalProperties, items, enum,
// anyOf, oneOf, $ref.
func Of(t reflect.Type) Schema { return (&Reflector{}).Of(t) }

// For is Of of T.
func For[T any]() Schema { return Of(reflect.TypeFor[T]()) }

// Reflector derives schemas as Of does, and puts the schemas of the struct
// types it names into Defs, referring to them by "$ref": RefPrefix + name
// (a client generator makes one named type of each).
type Reflector struct {
	// Name returns the name of a struct type's schema; "" keeps it inline.
	// Nil names none.
	Name func(reflect.Type) string
	// RefPrefix is put before a name in a $ref, e.g. "#/components/schemas/".
	RefPrefix string
	// Defs receives the named schemas (made when nil).
	Defs map[string]any
	// types remembers the type of each name, to catch two types of one name.
	types map[string]reflect.Type
}

// Of returns the schema of t; named struct types become references.
func (r *Reflector) Of(t reflect.Type) Schema {
	if t.Kind() == reflect.Struct && r.Name != nil {
		if name := r.Name(t); name != "" {
			if r.Defs == nil {
				r.Defs = map[string]any{}
			}
			if r.types == nil {
				r.types = map[string]reflect.Type{}
			}
			if prev, ok := r.types[name]; ok && prev != t {
				panic("schema: two types named " + name + ": " + prev.String() + " and " + t.String())
			}
			if _, done := r.types[name]; !done {
				r.types[name] = t
				r.Defs[name] = Schema{} // a placeholder while its fields are read (recursive types)
				r.Defs[name] = r.of(t)
			}
			return Schema{"$ref": r.RefPrefix + name}
		}
	}
	return r.of(t)
}

func (r *Reflector) of(t reflect.Type) Schema {
	if t.Kind() != reflect.Pointer && (t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return Schema{"type": "string"}
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && (t.Implements(describer) || reflect.PointerTo(t).Implements(describer)) {
		return reflect.New(t).Interface().(Describer).JSONSchema()
	}
	if t == rawMessage {
		return Schema{}
	}
	if t.Implements(oneOfer) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(oneOfer)) {
		shapes := reflect.New(t).Elem().Interface()
		if t.Kind() != reflect.Pointer {
			shapes = reflect.New(t).Interface()
		}
		var alts []any
		for _, v := range shapes.(OneOfer).OneOf() {
			alts = append(alts, r.Of(reflect.TypeOf(v)))
		}
		if t.Kind() == reflect.Pointer {
			alts = append(alts, Schema{"type": "null"})
		}
		return Schema{"oneOf": alts}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Nullable(r.Of(t.Elem()))
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32:
		return Schema{"type": "number", "format": "float"}
	case reflect.Float64:
		return Schema{"type": "number", "format": "double"} // format: generators make a float64 of it, not a float32
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return Schema{"type": "string", "contentEncoding": "base64"}
		}
		return Schema{"type": "array", "items": r.Of(t.Elem())}
	case reflect.Map:
		return Schema{"type": "object", "additionalProperties": r.Of(t.Elem())}
	case reflect.Interface:
		return Schema{}
	case reflect.Struct:
		props := Schema{}
		var required []any
		r.addFields(t, props, &required)
		s := Schema{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return Schema{}
}

func (r *Reflector) addFields(t reflect.Type, props Schema, required *[]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				r.addFields(ft, props, required)
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		omitted := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		ft := f.Type
		if omitted && ft.Kind() == reflect.Pointer {
			ft = ft.Elem() // a nil pointer is left out, never null
		}
		fs := r.Of(ft)
		if e := f.Tag.Get("enum"); e != "" {
			var values []any
			for _, v := range strings.Split(e, ",") {
				values = append(values, v)
			}
			fs["enum"] = values
		}
		if f.Tag.Get("nullable") == "true" {
			fs = Nullable(fs)
		}
		if f.Tag.Get("enum") != "" && isNullable(fs) {
			fs["enum"] = append(fs["enum"].([]any), nil) // enum restricts null too
		}
		props[name] = fs
		if !omitted {
			*required = append(*required, name)
		}
	}
}

// Nullable returns s that also allows null: "null" added to its type (a
// list of types), or anyOf s and {"type": "null"} for a schema without a
// type (a $ref); a schema that allows any value is returned as it is.
func Nullable(s Schema) Schema {
	if len(s) == 0 {
		return s
	}
	out := Schema{}
	for k, v := range s {
		out[k] = v
	}
	switch t := s["type"].(type) {
	case string:
		out["type"] = []any{t, "null"}
	case []any:
		for _, v := range t {
			if v == "null" {
				return out
			}
		}
		out["type"] = append(append([]any(nil), t...), "null")
	case nil:
		return Schema{"anyOf": []any{s, Schema{"type": "null"}}}
	}
	return out
}

func isNullable(s Schema) bool {
	if t, ok := s["type"].([]any); ok {
		for _, v := range t {
			if v == "null" {
				return true
			}
		}
	}
	return false
}

// AnyOfNull rewrites every list of types in a schema as anyOf single-type
// branches: {"type": ["string", "null"], "maxLength": 3} becomes
// {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}. Both
// mean the same; the second reads in dialects that take one type per schema
// (tool schemas mapped onto an OpenAPI 3.0 subset, as some model providers
// do), so the MCP tools' output schemas use it.
func AnyOfNull(s any) any {
	switch v := s.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = AnyOfNull(x)
		}
		types, ok := out["type"].([]any)
		if !ok || len(types) < 2 {
			return out
		}
		delete(out, "type")
		alts := make([]any, 0, len(types))
		for _, t := range types {
			if t == "null" {
				alts = append(alts, Schema{"type": "null"})
				continue
			}
			branch := Schema{"type": t}
			for k, x := range out {
				if k != "anyOf" {
					branch[k] = x
				}
			}
			alts = append(alts, branch)
		}
		if prev, ok := out["anyOf"]; ok { // both must hold
			return Schema{"allOf": []any{Schema{"anyOf": prev}, Schema{"anyOf": alts}}}
		}
		return Schema{"anyOf": alts}
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = AnyOfNull(x)
		}
		return out
	}
	return s
}
