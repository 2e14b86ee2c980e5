package snapshots

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The one lenient reader of grades as people write them, beside the strict
// ParseGrade (the API form). REST parameters, MCP arguments, the agent's
// questions and collection uploads all read grades through it. The API's
// parameters take the API's grader names; what people write themselves
// (uploads, questions to the agent) may also use collectors' names (PSA):
//
//	ReadGrade          one grade: "slab:10", "BGS 9.5", "PSA 10", "NM", "raw"
//	ReadGradeCondition a grade given as two fields, grade and condition
//	ReadGrades         a comma list of grades
//	ParseGradeFilter   a filter: "", "all", "raw", "graded", a grader, or a grade
//	CutGrade           a grade said in running text ("a psa 10 charizard")

// conditionAliases maps the words collectors write for a raw condition
// (lowercased, spaces collapsed) to its name in Conditions. textOK marks the
// words that also count in running text (CutGrade): "ex", "m", "mint",
// "played" and "poor" are card words too ("Charizard EX").
var conditionAliases = map[string]struct {
	name   string
	textOK bool
}{
	"nm": {"near_mint", true}, "near mint": {"near_mint", true}, "near_mint": {"near_mint", true}, "nearmint": {"near_mint", false},
	"mint": {"near_mint", false}, "m": {"near_mint", false}, "nm/m": {"near_mint", false}, "nm-m": {"near_mint", false},
	"lp": {"lightly_played", true}, "lightly played": {"lightly_played", true}, "lightly_played": {"lightly_played", true},
	"excellent": {"lightly_played", false}, "ex": {"lightly_played", false},
	"mp": {"moderately_played", true}, "moderately played": {"moderately_played", true}, "moderately_played": {"moderately_played", true},
	"played": {"moderately_played", false},
	"hp":     {"heavily_played", true}, "heavily played": {"heavily_played", true}, "heavily_played": {"heavily_played", true},
	"poor": {"heavily_played", false},
	"dmg":  {"damaged", true}, "damaged": {"damaged", true},
}

// collectorGraders maps the names collectors give graders to their names in
// Graders: PSA is the usual name of the top grader, which the API calls slab.
// Only uploads and the agent's questions read them (ReadGradeCondition,
// CutGrade); API parameters refuse them, so a client that meant another
// grader learns that the API calls it otherwise.
var collectorGraders = map[string]string{"psa": "slab"}

// rawWords are a raw card without a condition: raw near-mint.
var rawWords = []string{"raw", "ungraded"}

// graderNumberRE reads a grader and a number: "slab 10", "bgs-9.5", "cgc9",
// "psa: 10".
var graderNumberRE = regexp.MustCompile(`^([a-z]+)\s*[:\- ]?\s*(-?[0-9]+(?:\.[0-9]+)?)$`)

// graderIndex is GraderIndex, with collectors' names when collectors.
func graderIndex(name string, collectors bool) int {
	if a, ok := collectorGraders[name]; ok && collectors {
		name = a
	}
	return GraderIndex(name)
}

// normalizeGradeText lowercases s and collapses its spaces.
func normalizeGradeText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// ReadGrade reads one grade as people write it, any case:
//
//   - the API form: raw:<condition> or <grader>:<number> (ParseGrade);
//   - a grader and a number, spaced or dashed: "slab 10", "BGS 9.5",
//     "cgc-9";
//   - a raw condition by name or abbreviation: "near_mint", "Near Mint", "NM",
//     "LP", "Lightly Played", "DMG" (also "mint", "excellent", "played",
//     "poor");
//   - "raw" or "ungraded": raw near-mint.
//
// Anything else is an error whose message says what a grade looks like (the
// message of ParseGrade, or of the grader's number when the grader is known).
func ReadGrade(s string) (Grade, error) { return readGrade(normalizeGradeText(s), false) }

// readGrade is ReadGrade of a normalized g, with collectors' grader names
// when collectors.
func readGrade(g string, collectors bool) (Grade, error) {
	strict, err := ParseGrade(g)
	if err == nil {
		return strict, nil
	}
	if a, ok := conditionAliases[g]; ok {
		return RawGrade(ConditionIndex(a.name)), nil
	}
	if slices.Contains(rawWords, g) {
		return RawNearMint, nil
	}
	if m := graderNumberRE.FindStringSubmatch(g); m != nil {
		if gi := graderIndex(m[1], collectors); gi >= 0 {
			return ParseGrade(Graders[gi] + ":" + m[2])
		}
	}
	return 0, err
}

// ReadGradeOr is ReadGrade with a default for an empty (or blank) s.
func ReadGradeOr(s string, def Grade) (Grade, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	return ReadGrade(s)
}

// ReadGradeCondition reads a grade given in two fields, as collection
// uploads have them: grade ("slab 10", "PSA 10", "raw:lightly_played", "NM";
// collectors' grader names count) and, when grade is empty, "raw" or
// "ungraded", the raw condition ("Lightly Played", "LP"); both empty is raw
// near-mint. On error it names the field
// at fault ("grade" or "condition") and says what the field takes.
func ReadGradeCondition(grade, condition string) (Grade, string, error) {
	g := normalizeGradeText(grade)
	if g != "" && !slices.Contains(rawWords, g) {
		x, err := readGrade(g, true)
		if err == nil {
			return x, "", nil
		}
		if m := graderNumberRE.FindStringSubmatch(g); m != nil && graderIndex(m[1], true) >= 0 {
			return 0, "grade", err // a grader with a bad number: say what numbers are
		}
		return 0, "grade", fmt.Errorf("grade %q: want a grader and a number (slab 10, bgs 9.5, cgc 9), raw:<condition>, or leave it empty for raw", grade)
	}
	if strings.TrimSpace(condition) == "" {
		return RawNearMint, "", nil
	}
	if x, err := readGrade(normalizeGradeText(condition), true); err == nil {
		return x, "", nil
	}
	return 0, "condition", fmt.Errorf("condition %q: want near mint (NM), lightly played (LP), moderately played (MP), heavily played (HP) or damaged (DMG)", condition)
}

// ReadGrades reads a comma list of grades (ReadGrade each), in order, each
// once; empty items are skipped. A list with no grade is an error.
func ReadGrades(list string) ([]Grade, error) {
	var out []Grade
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		g, err := ReadGrade(part)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no grade in %q", list)
	}
	return out, nil
}

// GradeFilter selects grades. The zero GradeFilter selects every grade.
type GradeFilter struct {
	kind   uint8 // filterAny, filterRaw, filterGraded, filterGrader, filterGrade
	grader int
	grade  Grade
}

const (
	filterAny = iota
	filterRaw
	filterGraded
	filterGrader
	filterGrade
)

// ParseGradeFilter reads a grade filter: "" or "all" (every grade), "raw"
// (every condition), "graded" (every grader), a grader name ("slab", "bgs",
// "cgc"), or one grade as ReadGrade reads it ("slab:10", "slab 10",
// "near_mint", "NM"). Anything else is an error with ReadGrade's message.
func ParseGradeFilter(s string) (GradeFilter, error) {
	f := normalizeGradeText(s)
	switch f {
	case "", "all":
		return GradeFilter{}, nil
	case "raw":
		return GradeFilter{kind: filterRaw}, nil
	case "graded":
		return GradeFilter{kind: filterGraded}, nil
	}
	if gi := GraderIndex(f); gi >= 0 {
		return GradeFilter{kind: filterGrader, grader: gi}, nil
	}
	g, err := ReadGrade(f)
	if err != nil {
		return GradeFilter{}, err
	}
	return GradeFilter{kind: filterGrade, grade: g}, nil
}

// Any reports whether f selects every grade.
func (f GradeFilter) Any() bool { return f.kind == filterAny }

// Match reports whether f selects g.
func (f GradeFilter) Match(g Grade) bool {
	switch f.kind {
	case filterRaw:
		return g.Raw()
	case filterGraded:
		return !g.Raw()
	case filterGrader:
		return g.Grader() == f.grader
	case filterGrade:
		return g == f.grade
	}
	return true
}

// Grade returns the one grade f selects (false when it selects several).
func (f GradeFilter) Grade() (Grade, bool) { return f.grade, f.kind == filterGrade }

// textGradeRE finds a grader and number in running text; textConditionRE a
// condition said in words (the textOK aliases); textRawRE "raw" or
// "ungraded". Built from Graders, collectorGraders and conditionAliases.
var textGradeRE, textConditionRE, textRawRE = func() (*regexp.Regexp, *regexp.Regexp, *regexp.Regexp) {
	graders := slices.Clone(Graders)
	for a := range collectorGraders {
		graders = append(graders, a)
	}
	var conds []string
	for w, a := range conditionAliases {
		if a.textOK {
			conds = append(conds, regexp.QuoteMeta(w))
		}
	}
	// Longest first: "near mint" before "nm", "near_mint" before "near".
	slices.SortFunc(conds, func(a, b string) int { return len(b) - len(a) })
	slices.Sort(graders)
	return regexp.MustCompile(`\b(` + strings.Join(graders, "|") + `)\s*[:\-]?\s*(10|[1-9](?:\.5)?)\b`),
		regexp.MustCompile(`\b(` + strings.Join(conds, "|") + `)\b`),
		regexp.MustCompile(`\b(` + strings.Join(rawWords, "|") + `)\b`)
}()

// CutGrade finds a grade said in running text, any case: a grader and number
// ("slab 10", "PSA 10", "bgs 9.5"; collectors' grader names count), else a condition in words ("near mint",
// "NM", "lightly played") and/or "raw"/"ungraded" (raw near-mint). It returns
// the grade and the lowercased text with the grade's words taken out (ok
// false and the lowercased text when there is none). Only the unambiguous
// condition words count: "EX" or "mint" in a question are card words.
func CutGrade(text string) (g Grade, rest string, ok bool) {
	rest = strings.ToLower(text)
	if m := textGradeRE.FindStringSubmatchIndex(rest); m != nil {
		if x, err := readGrade(rest[m[2]:m[3]]+":"+rest[m[4]:m[5]], true); err == nil {
			g, ok = x, true
		}
		return g, rest[:m[0]] + " " + rest[m[1]:], ok
	}
	cond := ""
	if m := textConditionRE.FindStringSubmatchIndex(rest); m != nil {
		cond = conditionAliases[rest[m[2]:m[3]]].name
		rest = rest[:m[0]] + " " + rest[m[1]:]
	}
	if m := textRawRE.FindStringIndex(rest); m != nil {
		rest = rest[:m[0]] + " " + rest[m[1]:]
		if cond == "" {
			cond = Conditions[RawNearMint]
		}
	}
	if cond == "" {
		return 0, rest, false
	}
	return RawGrade(ConditionIndex(cond)), rest, true
}
