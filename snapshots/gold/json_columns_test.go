package gold

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestJSONText checks that the column encoders write what json.Marshal
// writes. (An internal test: the encoders are unexported.)
func TestJSONText(t *testing.T) {
	strs := []string{"", "plain", `q"uote`, `back\slash`, "tab\tnl\nret\rbs\bff\f", "\x00\x01\x1f\x7f",
		"<html>&", "Pokémon ポケモン", "\u2028\u2029", "bad \xff\xfe utf8", "\xe2\x82", "😀"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		strs = append(strs, string(b))
	}
	check := func(got string, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("encode %#v:\n got %s\nwant %s", v, got, want)
		}
	}
	for _, s := range strs {
		check(string(appendJSONString(nil, s)), s)
	}
	check(string(appendJSONList(nil, strs)), strs)
	check(string(appendJSONList(nil, []int{0, -1, 151, math.MaxInt})), []int{0, -1, 151, math.MaxInt})

	mi := map[string]int{"b": 2, "a": 1, "<": -3, "": 0}
	got, _, ok := appendJSONMap(nil, mi, nil)
	if !ok {
		t.Fatal("appendJSONMap: not ok")
	}
	check(string(got), mi)
	mc := map[string]int64{"raw:near_mint": 45050, "slab:10": math.MaxInt64}
	got, _, _ = appendJSONMap(nil, mc, nil)
	check(string(got), mc)
	mf := map[string]float64{"a": 1.5, "b": 0, "c": -2, "d": 1e-7, "e": 1e21, "f": 123456789.125, "g": 1e-300, "h": 5e20, "i": math.SmallestNonzeroFloat64}
	got, _, _ = appendJSONMap(nil, mf, nil)
	check(string(got), mf)
	if _, _, ok := appendJSONMap(nil, map[string]float64{"x": math.NaN()}, nil); ok {
		t.Error("NaN: want not ok")
	}
	if _, _, ok := appendJSONMap(nil, map[string]float64{"x": math.Inf(-1)}, nil); ok {
		t.Error("-Inf: want not ok")
	}
}
