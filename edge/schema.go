package edge

import (
	"encoding"
	"reflect"
	"strings"

	"github.com/cardedge/cardedge/edge/access"
	"github.com/cardedge/cardedge/estimate"
)

// payloadTypes names the Go type of each route's data payload. The OpenAPI
// document derives its response schemas from them by reflection, so the
// published shapes are the ones the handlers encode.
var payloadTypes = map[string]any{
	"cards_list":             page[cardGold]{},
	"card_get":               cardGold{},
	"card_analytics":         analyticsPayload{},
	"card_market_history":    historyPayload{},
	"card_marketplace_sales": marketplaceSalesPayload{},
	"card_price_history":     priceHistoryPayload{},
	"card_sales":             salesPage{},
	"card_partner_history":   partnerHistoryPayload{},
	"card_vwap":              vwapPayload{},
	"cards_batch":            batchPayload{},
	"trending":               trendingPayload{},
	"market_volume":          marketVolumePayload{},
	"shop_listings":          listingsPayload{},
	"sets_list":              page[setGold]{},
	"set_get":                setGold{},
	"set_breakdown":          setBreakdownPayload{},
	"set_price_distribution": setDistributionPayload{},
	"set_trending_cards":     setTrendingPayload{},
	"set_volume_history":     setVolumePayload{},
	"search":                 searchPayload{},
	"lookup":                 lookupPayload{},
	"keys_usage":             access.Usage{},
	"quote":                  quotePayload{},
	"methodology":            estimate.Methodology{},
	"prices_get":             pricesPayload{},
	"prices_post":            pricesPayload{},
	"imports_preview":        previewPayload{},
	"imports_confirm":        confirmPayload{},
	"collection_get":         collectionPayload{},
}

var textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()

// oneOfer is a type whose JSON takes one of the shapes of the values OneOf
// returns (the OpenAPI document says oneOf; null too for a pointer).
type oneOfer interface{ OneOf() []any }

var oneOfType = reflect.TypeOf((*oneOfer)(nil)).Elem()

// dataSchema returns the JSON schema of a route's payload ({"type":
// "object"} for routes without a registered type).
func dataSchema(route string) map[string]any {
	v, ok := payloadTypes[route]
	if !ok {
		return map[string]any{"type": "object"}
	}
	return schemaOf(reflect.TypeOf(v))
}

// schemaOf maps a Go type to a JSON schema (OpenAPI 3.1): structs by their
// json tags (fields without omitempty are required, no other properties are
// allowed), pointers and fields tagged nullable:"true" are nullable, maps are
// objects of their value schema.
func schemaOf(t reflect.Type) map[string]any {
	if t.Kind() != reflect.Pointer && (t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return map[string]any{"type": "string"}
	}
	if t.Implements(oneOfType) {
		// A value whose JSON takes one of several shapes (resolve.Play), or
		// null for a nil pointer.
		shapes := reflect.Zero(t).Interface().(oneOfer).OneOf()
		alts := make([]any, 0, len(shapes)+1)
		for _, v := range shapes {
			alts = append(alts, schemaOf(reflect.TypeOf(v)))
		}
		if t.Kind() == reflect.Pointer {
			alts = append(alts, map[string]any{"type": "null"})
		}
		return map[string]any{"oneOf": alts}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := schemaOf(t.Elem())
		return nullable(s)
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		props := map[string]any{}
		var required []any
		addFields(t, props, &required)
		s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

func addFields(t reflect.Type, props map[string]any, required *[]any) {
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
			addFields(ft, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs := schemaOf(f.Type)
		if f.Tag.Get("nullable") == "true" {
			fs = nullable(fs) // a nil slice or map that means "unknown" or "not applicable"
		}
		props[name] = fs
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// nullable adds null to a schema's types.
func nullable(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	switch t := s["type"].(type) {
	case string:
		out["type"] = []any{t, "null"}
		out["nullable"] = true // read by validators still on OpenAPI 3.0 semantics
	case nil:
		return s // any value, null included
	}
	return out
}
