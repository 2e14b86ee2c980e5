package jsontext

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func stdString(s string, escapeHTML bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "Charizard", "a\"b\\c", "<&>", "\x00\x1f\n\t", "ポケモン", "\xff\xfe", "\u2028\u2029", "Flabébé"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			if got, want := AppendString(nil, s, html), stdString(s, html); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, %v) = %s, want %s", s, html, got, want)
			}
		}
	})
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, 1, -1.5, 1e-7, 1e21, 123456.789, 5e-324, math.MaxFloat64, 0.1 + 0.2} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		want, _ := json.Marshal(x)
		if got := AppendFloat(nil, x); !bytes.Equal(got, want) {
			t.Errorf("AppendFloat(%v) = %s, want %s", x, got, want)
		}
	})
}
