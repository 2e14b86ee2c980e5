package snapshots_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/snapshots"
)

func TestReadGrade(t *testing.T) {
	ok := map[string]string{
		"raw:near_mint": "raw:near_mint", "SLAB:9.5": "slab:9.5", " bgs:10 ": "bgs:10",
		"slab 10": "slab:10", "slab10": "slab:10", "BGS-9.5": "bgs:9.5", "cgc9": "cgc:9",
		"near_mint": "raw:near_mint", "Near  Mint": "raw:near_mint", "NM": "raw:near_mint", "lp": "raw:lightly_played",
		"Lightly Played": "raw:lightly_played", "dmg": "raw:damaged", "poor": "raw:heavily_played", "raw": "raw:near_mint",
		"ungraded": "raw:near_mint",
	}
	for in, want := range ok {
		if g, err := snapshots.ReadGrade(in); err != nil || g.String() != want {
			t.Errorf("ReadGrade(%q) = %v, %v; want %s", in, g, err, want)
		}
	}
	bad := map[string]string{
		"":         "want raw:<condition> or <grader>:<number>",
		"slab:11":  "number must be 1 to 10",
		"slab 9.7": "number must be 1 to 10",
		"psa:10":   "grader must be raw or one of", // collectors' names are for uploads and questions
		"psa 10":   "want raw:<condition>",
		"10":       "want raw:<condition>",
		"raw:mint": "condition must be one of",
		"foo:10":   "grader must be raw or one of",
		"mint-ish": "want raw:<condition>",
	}
	for in, want := range bad {
		if _, err := snapshots.ReadGrade(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadGrade(%q): %v, want an error with %q", in, err, want)
		}
	}
}

func TestReadGradeOr(t *testing.T) {
	if g, err := snapshots.ReadGradeOr("  ", snapshots.RawNearMint); err != nil || g != snapshots.RawNearMint {
		t.Errorf("blank: %v %v", g, err)
	}
	if g, err := snapshots.ReadGradeOr("slab 10", snapshots.RawNearMint); err != nil || g.String() != "slab:10" {
		t.Errorf("slab 10: %v %v", g, err)
	}
}

// TestReadGradeCondition is the two-column grammar of collection uploads.
func TestReadGradeCondition(t *testing.T) {
	cases := []struct {
		grade, condition, want, errColumn string
	}{
		{"", "", "raw:near_mint", ""},
		{"slab 10", "", "slab:10", ""},
		{"SLAB:9.5", "", "slab:9.5", ""},
		{"PSA 10", "", "slab:10", ""},
		{"psa10", "", "slab:10", ""},
		{"BGS-9.5", "", "bgs:9.5", ""},
		{"cgc9", "", "cgc:9", ""},
		{"raw:lightly_played", "", "raw:lightly_played", ""},
		{"NM", "", "raw:near_mint", ""},
		{"NM", "LP", "raw:near_mint", ""}, // the grade column wins
		{"raw", "LP", "raw:lightly_played", ""},
		{"ungraded", "Heavily  Played", "raw:heavily_played", ""},
		{"", "dmg", "raw:damaged", ""},
		{"", "raw:moderately_played", "raw:moderately_played", ""},
		{"slab 11", "", "", "grade"},
		{"slab 9.7", "", "", "grade"},
		{"10", "", "", "grade"},
		{"mint-ish", "", "", "grade"},
		{"", "like new", "", "condition"},
	}
	for _, tc := range cases {
		g, col, err := snapshots.ReadGradeCondition(tc.grade, tc.condition)
		if tc.errColumn != "" {
			if err == nil || col != tc.errColumn {
				t.Errorf("%q/%q: got %v %q %v, want an error in %s", tc.grade, tc.condition, g, col, err, tc.errColumn)
			}
			continue
		}
		if err != nil || g.String() != tc.want {
			t.Errorf("%q/%q: got %v %v, want %s", tc.grade, tc.condition, g, err, tc.want)
		}
	}
	if _, _, err := snapshots.ReadGradeCondition("psa 11", ""); err == nil || !strings.Contains(err.Error(), "number must be 1 to 10") {
		t.Errorf("a known grader with a bad number says what numbers are: %v", err)
	}
}

func TestReadGrades(t *testing.T) {
	gs, err := snapshots.ReadGrades("raw:near_mint, slab 10,,SLAB:10,bgs:9.5")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gs {
		got = append(got, g.String())
	}
	if strings.Join(got, ",") != "raw:near_mint,slab:10,bgs:9.5" {
		t.Errorf("got %v", got)
	}
	for _, in := range []string{"", " , ", "slab:10,slab:12"} {
		if _, err := snapshots.ReadGrades(in); err == nil {
			t.Errorf("ReadGrades(%q): no error", in)
		}
	}
}

func TestParseGradeFilter(t *testing.T) {
	raw, slab10, bgs95 := snapshots.RawNearMint, snapshots.GradedGrade(0, 10), snapshots.GradedGrade(1, 9.5)
	lp := snapshots.RawGrade(1)
	cases := []struct {
		in   string
		want []snapshots.Grade // selected among raw, lp, slab10, bgs95
	}{
		{"", []snapshots.Grade{raw, lp, slab10, bgs95}},
		{"ALL", []snapshots.Grade{raw, lp, slab10, bgs95}},
		{"raw", []snapshots.Grade{raw, lp}},
		{"graded", []snapshots.Grade{slab10, bgs95}},
		{"bgs", []snapshots.Grade{bgs95}},
		{"slab", []snapshots.Grade{slab10}},
		{"slab:10", []snapshots.Grade{slab10}},
		{"Slab 10", []snapshots.Grade{slab10}},
		{"near_mint", []snapshots.Grade{raw}},
		{"LP", []snapshots.Grade{lp}},
	}
	for _, tc := range cases {
		f, err := snapshots.ParseGradeFilter(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var got []snapshots.Grade
		for _, g := range []snapshots.Grade{raw, lp, slab10, bgs95} {
			if f.Match(g) {
				got = append(got, g)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q selects %v, want %v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q selects %v, want %v", tc.in, got, tc.want)
			}
		}
		if f.Any() != (tc.in == "" || tc.in == "ALL") {
			t.Errorf("%q: Any %v", tc.in, f.Any())
		}
	}
	for _, bad := range []string{"slab:12", "psa", "psa:10"} {
		if _, err := snapshots.ParseGradeFilter(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestCutGrade(t *testing.T) {
	cases := []struct{ text, grade, rest string }{
		{"what is a slab 10 Charizard base set worth?", "slab:10", "what is a   charizard base set worth?"},
		{"How much is a BGS 9.5 Zapdos?", "bgs:9.5", "how much is a   zapdos?"},
		{"a PSA 10 pikachu", "slab:10", "a   pikachu"},
		{"value of a raw lightly played Blastoise", "raw:lightly_played", "value of a     blastoise"},
		{"price of a raw Pikachu", "raw:near_mint", "price of a   pikachu"},
		{"nm charizard", "raw:near_mint", "  charizard"},
		{"recent sales of charizard ex 151", "", "recent sales of charizard ex 151"},
		{"mint condition charizard", "", "mint condition charizard"},
	}
	for _, tc := range cases {
		g, rest, ok := snapshots.CutGrade(tc.text)
		got := ""
		if ok {
			got = g.String()
		}
		if got != tc.grade || rest != tc.rest {
			t.Errorf("CutGrade(%q) = %q, %q; want %q, %q", tc.text, got, rest, tc.grade, tc.rest)
		}
	}
}
