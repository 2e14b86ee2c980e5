package snapshots_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/snapshots"
)

func TestReadGrade(t *testing.T) {
	ok := map[string]string{
		// the API form
		"raw:near_mint": "raw:near_mint", "SLAB:9.5": "slab:9.5", " bgs:10 ": "bgs:10", "cgc:1": "cgc:1",
		// a grader and a number, as collectors write them
		"slab 10": "slab:10", "slab10": "slab:10", "BGS-9.5": "bgs:9.5", "cgc9": "cgc:9",
		"PSA 10": "slab:10", "psa10": "slab:10", "psa:10": "slab:10", "psa-9": "slab:9", "Psa #8": "slab:8",
		"bgs9.5": "bgs:9.5", "BGS 9.5": "bgs:9.5", "cgc 10": "cgc:10", "CGC10": "cgc:10", "Beckett 9.5": "bgs:9.5",
		"PSA 10 GEM MT": "slab:10", "psa 10 gem mint": "slab:10", "PSA GEM MT 10": "slab:10", "PSA 8 NM-MT": "slab:8",
		"psa 9 mint": "slab:9", "BGS 9.5 Gem Mint": "bgs:9.5", "BGS Pristine 10": "bgs:10", "cgc 10 pristine": "cgc:10",
		"psa10 gem mt": "slab:10", "PSA: 10": "slab:10",
		// raw conditions
		"near_mint": "raw:near_mint", "Near  Mint": "raw:near_mint", "near-mint": "raw:near_mint", "NM": "raw:near_mint",
		"nm/m": "raw:near_mint", "NM-M": "raw:near_mint", "mint": "raw:near_mint", "lp": "raw:lightly_played",
		"Lightly Played": "raw:lightly_played", "lightly-played": "raw:lightly_played", "excellent": "raw:lightly_played",
		"mp": "raw:moderately_played", "HP": "raw:heavily_played", "dmg": "raw:damaged", "poor": "raw:heavily_played",
		"raw": "raw:near_mint", "ungraded": "raw:near_mint", "Raw, near mint": "raw:near_mint", "raw NM": "raw:near_mint",
		"raw - lp": "raw:lightly_played", "Raw (damaged)": "raw:damaged", "raw, heavily played": "raw:heavily_played",
		"ungraded lp": "raw:lightly_played", "raw:mint": "raw:near_mint", "raw:nm": "raw:near_mint",
	}
	for in, want := range ok {
		if g, err := snapshots.ReadGrade(in); err != nil || g.String() != want {
			t.Errorf("ReadGrade(%q) = %v, %v; want %s", in, g, err, want)
		}
	}
	bad := map[string]string{
		"":               "want a grader and a number (PSA 10",
		"slab:11":        "number must be 1 to 10",
		"slab 9.7":       "number must be 1 to 10",
		"psa 11":         "a PSA grade's number must be 1 to 10",
		"psa 10 black":   "want a grader and a number",
		"psa gem mt":     "a PSA grade needs its number",
		"10":             "want a grader and a number",
		"raw:like_new":   "the condition of a raw card must be",
		"raw, like new":  "the condition of a raw card must be",
		"foo:10":         "grader must be raw or one of",
		"sgc 10":         "want a grader and a number",
		"mint-ish":       "want a grader and a number",
		"graded 10":      "want a grader and a number",
		"psa 10, bgs 10": "want a grader and a number",
	}
	for in, want := range bad {
		if _, err := snapshots.ReadGrade(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadGrade(%q): %v, want an error with %q", in, err, want)
		}
	}
}

// TestGrade_Name is the name of each grade people read, and that every
// grade's Name and code read back as it.
func TestGrade_Name(t *testing.T) {
	cases := map[string]string{
		"slab:10": "PSA 10", "slab:9.5": "PSA 9.5", "slab:1": "PSA 1", "bgs:9.5": "BGS 9.5", "bgs:10": "BGS 10", "cgc:10": "CGC 10",
		"raw:near_mint": "Raw, near mint", "raw:lightly_played": "Raw, lightly played", "raw:moderately_played": "Raw, moderately played",
		"raw:heavily_played": "Raw, heavily played", "raw:damaged": "Raw, damaged",
	}
	for code, want := range cases {
		g, err := snapshots.ParseGrade(code)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Name(); got != want {
			t.Errorf("%s.Name() = %q, want %q", code, got, want)
		}
		if got := snapshots.GradeNameOf(code); got != want {
			t.Errorf("GradeNameOf(%q) = %q, want %q", code, got, want)
		}
	}
	for i := 0; i < 256; i++ {
		g := snapshots.Grade(i)
		if !g.Valid() {
			if g.Name() != "unknown grade" {
				t.Errorf("invalid grade %d: Name %q", i, g.Name())
			}
			continue
		}
		name := g.Name()
		if strings.ContainsAny(name, ":_") {
			t.Errorf("%s.Name() = %q: a code's characters", g, name)
		}
		for _, s := range []string{name, g.String(), strings.ToLower(name), strings.ToUpper(name)} {
			if back, err := snapshots.ReadGrade(s); err != nil || back != g {
				t.Errorf("ReadGrade(%q) = %v, %v; want %s", s, back, err, g)
			}
		}
	}
	if got := snapshots.GradeNameOf("not a grade"); got != "not a grade" {
		t.Errorf("GradeNameOf of no grade: %q", got)
	}
	for in, want := range map[string]string{"slab": "PSA", "bgs": "BGS", "cgc": "CGC", "psa": "PSA", "SLAB": "PSA", "sgc": "sgc"} {
		if got := snapshots.GraderName(in); got != want {
			t.Errorf("GraderName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := snapshots.ConditionName("lightly_played"); got != "lightly played" {
		t.Errorf("ConditionName: %q", got)
	}
}

// FuzzReadGrade: any input is a valid grade or an error naming what a grade
// looks like; never a panic. A grade read back from its code and its Name is
// the same grade.
func FuzzReadGrade(f *testing.F) {
	for _, s := range []string{"slab:10", "PSA 10", "psa10", "bgs9.5", "cgc 10", "raw", "nm", "near mint", "Raw, near mint",
		"PSA 10 GEM MT", "raw:", ":", "psa", "psa -1", "bgs 1e1", "raw,,", "raw (", "psa 10.00000000001", "\x00", "psa\t10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := snapshots.ReadGrade(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "grade ") {
				t.Errorf("ReadGrade(%q): error %q does not name the grade", s, err)
			}
			return
		}
		if !g.Valid() {
			t.Fatalf("ReadGrade(%q) = %d, not a valid grade", s, g)
		}
		for _, back := range []string{g.String(), g.Name()} {
			if x, err := snapshots.ReadGrade(back); err != nil || x != g {
				t.Errorf("ReadGrade(%q) = %s, but ReadGrade(%q) = %v, %v", s, g, back, x, err)
			}
		}
		if _, err := snapshots.ReadGrades(g.Name() + ", " + g.String()); err != nil {
			t.Errorf("ReadGrades of %s's name and code: %v", g, err)
		}
	})
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
	gs, err = snapshots.ReadGrades("Raw, lightly played, PSA 10, psa10, BGS 9.5")
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, g := range gs {
		got = append(got, g.String())
	}
	if strings.Join(got, ",") != "raw:lightly_played,slab:10,bgs:9.5" {
		t.Errorf("names: got %v", got)
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
		{"PSA 10", []snapshots.Grade{slab10}},
		{"psa", []snapshots.Grade{slab10}},
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
	for _, bad := range []string{"slab:12", "sgc", "psa 11"} {
		if _, err := snapshots.ParseGradeFilter(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for in, want := range map[string]string{"psa": "PSA (every grade)", "PSA 10": "PSA 10", "raw": "raw (every condition)", "": "every grade",
		"graded": "graded (every grader)", "nm": "Raw, near mint"} {
		f, err := snapshots.ParseGradeFilter(in)
		if err != nil || f.Name() != want {
			t.Errorf("ParseGradeFilter(%q).Name() = %q, %v; want %q", in, f.Name(), err, want)
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
