package index_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/cardedge/cardedge/index"
)

// encodeJSON is encoding/json with HTML escaping off, as the edge encodes.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("error: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// members is AppendJSONMembers inside braces: the whole object.
func members(s *index.Suggestion) []byte {
	return append(s.AppendJSONMembers([]byte{'{'}), '}')
}

// TestSuggestion_AppendJSONMembers checks the members Open encoded for
// every suggestion of many lookups against encoding/json.
func TestSuggestion_AppendJSONMembers(t *testing.T) {
	ix := full(t)
	sets, cards := catalog(t)
	qs := append(lookupPrefixes(sets, cards, 2000, 9), "en:base1-4", "base1", "OP01-001", "リザ", "噴火")
	n := 0
	for i, q := range qs {
		game := "pokemon"
		if i%4 == 3 {
			game = "onepiece"
		}
		for _, s := range ix.Lookup(game, q, "", 25) {
			if got, want := members(&s), encodeJSON(s); !bytes.Equal(got, want) {
				t.Fatalf("%s %q:\n got %s\nwant %s", game, q, got, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no suggestions")
	}
}

// FuzzSuggestionJSON checks AppendJSONMembers of a Suggestion made from its
// fields against encoding/json.
func FuzzSuggestionJSON(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\x00\x1f\x7f", "\b\f\n\r\t", "<&>", "\u2028\u2029", "\xff\xfe", "\xe2\x82", "é噴リ", "\U0001F600"} {
		f.Add(s, s, 1.5, true)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 123.456, 1e20, 1e21, 3.4028234663852886e38, float64(float32(2.1)) * 3} {
		f.Add("Charizard", "base set · 4/102", x, false)
	}
	f.Fuzz(func(t *testing.T, label, detail string, score float64, exact bool) {
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return
		}
		s := index.Suggestion{Kind: "card", ID: label + "-1", Label: label, Detail: detail, Language: "en", SetID: detail,
			Score: score, Match: label, Exact: exact, PriceCents: 5}
		if got, want := members(&s), encodeJSON(s); !bytes.Equal(got, want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	})
}
