package jsontext

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

// FuzzAppendValues: the values' appenders write what encoding/json writes
// for the Go values they stand for (NaN and infinities aside: null).
func FuzzAppendValues(f *testing.F) {
	for _, x := range []float64{0, 365.25, -0.01, 1e13, 0.1 + 0.2, 1e-7, 123456789012.34} {
		f.Add(x, "Charizard", int64(42382))
	}
	f.Fuzz(func(t *testing.T, x float64, s string, n int64) {
		std := func(v any) []byte {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		}
		check := func(what string, got, want []byte) {
			t.Helper()
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %s, want %s", what, got, want)
			}
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			check("NaN", AppendNumber(nil, x), []byte("null"))
		} else {
			check("number", AppendNumber(nil, x), std(x))
			check("number pointer", AppendNumberPtr(nil, &x), std(&x))
		}
		check("nil number", AppendNumberPtr(nil, nil), []byte("null"))
		check("string pointer", AppendStrPtr(nil, &s), std(&s))
		check("nil string", AppendStrPtr(nil, nil), []byte("null"))
		check("string or null", AppendStrOrNull(nil, s), std(StrOrNil(s)))
		check("strings", AppendStrs(nil, []string{s, "", s}), std([]string{s, "", s}))
		check("nil strings", AppendStrs(nil, nil), std([]string(nil)))
		check("int pointer", AppendIntPtr(nil, &n), std(&n))
		check("nil int", AppendIntPtr(nil, nil), []byte("null"))
		c := n % 1e15 // the cents the fast path takes
		check("cents", AppendCents(nil, c), std(float64(c)/100))
	})
}

func TestAppendArray(t *testing.T) {
	item := func(b []byte, n *int) []byte { return strconv.AppendInt(b, int64(*n), 10) }
	for _, tc := range []struct {
		in   []int
		want string
	}{{nil, "null"}, {[]int{}, "[]"}, {[]int{1}, "[1]"}, {[]int{1, 2, 3}, "[1,2,3]"}} {
		if got := string(AppendArray(nil, tc.in, item)); got != tc.want {
			t.Errorf("AppendArray(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
