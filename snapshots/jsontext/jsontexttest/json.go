package jsontexttest

import (
	"encoding/json"
	"testing"
)

// MustMarshal is v as json.Marshal writes it (maps with sorted keys, HTML
// characters escaped); it fails tb when v cannot be encoded.
func MustMarshal(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
