package jsontext_test

import (
	"math"
	"testing"

	"github.com/cardedge/cardedge/snapshots/jsontext"
)

func TestMarshal(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`}, // no HTML escaping
		{map[string]any{"b": []int{1}, "a": nil}, `{"a":null,"b":[1]}`},
		{struct{}{}, `{}`}, // no newline
	} {
		if got, err := jsontext.Marshal(tc.v); err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
	if got, err := jsontext.Marshal(math.NaN()); err == nil {
		t.Errorf("Marshal(NaN) = %s, want encoding/json's error", got)
	}
}
