package gold

import (
	"math"
	"slices"
	"strconv"

	"github.com/cardedge/cardedge/snapshots/jsontext"
)

// The list and map columns are JSON text. encoding/json sorts map keys
// through reflection and allocated about a third of the Writer's objects;
// these encoders write the same bytes as json.Marshal (TestJSONText) for the
// few types the columns hold.

type jsonNumber interface{ ~int | ~int64 | ~float64 }

func appendJSONList[T string | int](b []byte, v []T) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		switch x := any(x).(type) {
		case string:
			b = appendJSONString(b, x)
		case int:
			b = strconv.AppendInt(b, int64(x), 10)
		}
	}
	return append(b, ']')
}

// appendJSONMap appends m with sorted keys. It reports false for a NaN or an
// infinity, which JSON cannot hold.
func appendJSONMap[V jsonNumber](b []byte, m map[string]V, keys []string) ([]byte, []string, bool) {
	keys = keys[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendJSONNumber(b, m[k]); !ok {
			return b, keys, false
		}
	}
	return append(b, '}'), keys, true
}

func appendJSONNumber[V jsonNumber](b []byte, v V) ([]byte, bool) {
	switch x := any(v).(type) {
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case float64:
		return appendJSONFloat(b, x)
	}
	// Named types with these underlying types do not occur here.
	return strconv.AppendFloat(b, float64(v), 'g', -1, 64), true
}

// appendJSONFloat formats f as encoding/json does; false for NaN and
// infinities, which JSON cannot hold.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	return jsontext.AppendFloat(b, f), true
}

// appendJSONString quotes s as json.Marshal does (HTML-safe).
func appendJSONString(b []byte, s string) []byte { return jsontext.AppendString(b, s, true) }
