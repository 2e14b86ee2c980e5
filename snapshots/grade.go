package snapshots

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The one lenient reader of grades as people write them, beside the strict
// ParseGrade (the API form), and the one writer of grades as people read
// them (Grade.Name). REST parameters, MCP arguments, the dashboard's forms,
// the agent's questions and collection uploads all read grades through it,
// and every text a person reads (pages, ladders, import previews, the chat,
// MCP tool texts) names grades with Name; codes stay in URLs, form values
// and JSON fields, beside a grade_name:
//
//	ReadGrade          one grade: "slab:10", "PSA 10", "psa10", "BGS 9.5", "NM", "raw"
//	ReadGradeCondition a grade given as two fields, grade and condition
//	ReadGrades         a comma list of grades
//	ParseGradeFilter   a filter: "", "all", "raw", "graded", a grader, or a grade
//	CutGrade           a grade said in running text ("a psa 10 charizard")
//	Grade.Name         "PSA 10", "BGS 9.5", "CGC 10", "Raw, near mint"
//	GradeNameOf        Name of a grade code ("slab:10" -> "PSA 10")
//
// # What slab reads as
//
// slab is the spec's placeholder for the first (top) grader. A sale keeps
// only its grade code, so the code decides the name: slab:N reads "PSA N",
// bgs:N "BGS N", cgc:N "CGC N". Every source files under slab what names
// the top grader PSA (sold listings' "PSA 9", PriceCharting's PSA 10 column,
// the agent's "psa 10"), and the synthesizer models slab on PSA; PriceCharting's
// grades 7, 8 and 9 pool the graders' sales and are filed under slab because
// PSA's sales make most of them (docs/real-data.md), so they read "PSA 7" to
// "PSA 9" too. A name is thus never "Graded N": the sale names no other
// grader than its code's. GraderNames is the one place that says so.

// GraderNames are the names people read for Graders, in Graders order:
// slab, the spec's placeholder for the top grader, is PSA.
var GraderNames = []string{"PSA", "BGS", "CGC"}

// conditionNames are the names people read for Conditions, in order.
var conditionNames = []string{"near mint", "lightly played", "moderately played", "heavily played", "damaged"}

// gradeDisplay holds the Name of every valid Grade value.
var gradeDisplay = func() (names [256]string) {
	for i := range names {
		g := Grade(i)
		switch {
		case g.Raw():
			names[i] = "Raw, " + conditionNames[g]
		case g.Valid():
			names[i] = GraderNames[g.Grader()] + " " + strconv.FormatFloat(g.Number(), 'f', -1, 64)
		default:
			names[i] = "unknown grade"
		}
	}
	return names
}()

// Name returns g as people read it: "PSA 10", "BGS 9.5", "CGC 10", "Raw,
// near mint" (see "What slab reads as"). ReadGrade reads it back.
func (g Grade) Name() string { return gradeDisplay[g] }

// GradeNameOf returns the Name of a grade code ("slab:10" -> "PSA 10"; any
// spelling ReadGrade reads), or code unchanged when it is no grade (an empty
// code stays empty).
func GradeNameOf(code string) string {
	g, err := ReadGrade(code)
	if err != nil {
		return code
	}
	return g.Name()
}

// ConditionName returns a raw condition as people read it ("near_mint" ->
// "near mint"), or c unchanged when it is no condition.
func ConditionName(c string) string {
	if i := ConditionIndex(c); i >= 0 {
		return conditionNames[i]
	}
	return c
}

// GraderName returns a grader as people read it ("slab" -> "PSA", "bgs" ->
// "BGS"; collectors' names count), or name unchanged when it is no grader.
func GraderName(name string) string {
	if i := graderIndex(normalizeGradeText(name)); i >= 0 {
		return GraderNames[i]
	}
	return name
}

// conditionAliases maps the words collectors write for a raw condition
// (lowercased, spaces collapsed, hyphens and underscores as spaces) to its
// name in Conditions. textOK marks the words that also count in running
// text (CutGrade): "ex", "m", "mint", "played" and "poor" are card words too
// ("Charizard EX").
var conditionAliases = map[string]struct {
	name   string
	textOK bool
}{
	"nm": {"near_mint", true}, "near mint": {"near_mint", true}, "near_mint": {"near_mint", true}, "nearmint": {"near_mint", false},
	"mint": {"near_mint", false}, "m": {"near_mint", false}, "nm/m": {"near_mint", false}, "nm-m": {"near_mint", false},
	"nm m": {"near_mint", false}, "nm mint": {"near_mint", false}, "near mint mint": {"near_mint", false},
	"lp": {"lightly_played", true}, "lightly played": {"lightly_played", true}, "lightly_played": {"lightly_played", true},
	"excellent": {"lightly_played", false}, "ex": {"lightly_played", false}, "light play": {"lightly_played", false},
	"slightly played": {"lightly_played", false}, "sp": {"lightly_played", false},
	"mp": {"moderately_played", true}, "moderately played": {"moderately_played", true}, "moderately_played": {"moderately_played", true},
	"played": {"moderately_played", false}, "good": {"moderately_played", false},
	"hp": {"heavily_played", true}, "heavily played": {"heavily_played", true}, "heavily_played": {"heavily_played", true},
	"poor": {"heavily_played", false},
	"dmg":  {"damaged", true}, "damaged": {"damaged", true},
}

// collectorGraders maps the names collectors give graders to their names in
// Graders: PSA is the usual name of the top grader, which the API calls slab
// (GraderNames). Every reader takes them.
var collectorGraders = map[string]string{"psa": "slab", "beckett": "bgs"}

// rawWords are a raw card without a condition: raw near-mint.
var rawWords = []string{"raw", "ungraded"}

// graderNumberRE reads a grader and a number: "slab 10", "bgs-9.5", "cgc9",
// "psa: 10", "psa #10".
var graderNumberRE = regexp.MustCompile(`^([a-z]+)\s*[:\-# ]?\s*(-?[0-9]+(?:\.[0-9]+)?)$`)

// labelWords are the words of graders' labels collectors write beside a
// grade's number ("PSA 10 GEM MT", "BGS 9.5 Gem Mint", "PSA 8 NM-MT",
// "CGC Pristine 10"): read and dropped, the number decides.
var labelWords = map[string]bool{
	"gem": true, "mint": true, "mt": true, "gem-mt": true, "gem-mint": true, "pristine": true, "perfect": true,
	"nm-mt": true, "nm": true, "near": true, "ex-mt": true, "ex": true, "vg-ex": true, "vg": true, "good": true,
	"fair": true, "pr": true, "poor": true, "grade": true,
}

// ReadGrader reads a grader as people write it, any case: its API name
// (slab, bgs, cgc) or its collectors' name (PSA, Beckett). It returns its
// index in Graders, or -1.
func ReadGrader(s string) int { return graderIndex(normalizeGradeText(s)) }

// ReadCondition reads a raw condition as people write it, any case: its API
// name (near_mint), its name (near mint, near-mint) or an abbreviation (NM,
// LP, MP, HP, DMG). It returns its index in Conditions, or -1.
func ReadCondition(s string) int { return conditionOf(normalizeGradeText(s)) }

// graderIndex is GraderIndex, with collectors' names.
func graderIndex(name string) int {
	if a, ok := collectorGraders[name]; ok {
		name = a
	}
	return GraderIndex(name)
}

// normalizeGradeText lowercases s and collapses its spaces.
func normalizeGradeText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// conditionOf reads a raw condition said in words (a conditionAliases key;
// hyphens and underscores count as spaces: "near-mint"); -1 when none.
func conditionOf(g string) int {
	if a, ok := conditionAliases[g]; ok {
		return ConditionIndex(a.name)
	}
	spaced := strings.Join(strings.FieldsFunc(g, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), " ")
	if a, ok := conditionAliases[spaced]; ok {
		return ConditionIndex(a.name)
	}
	return -1
}

// ReadGrade reads one grade as people write it, any case:
//
//   - the API form: raw:<condition> or <grader>:<number> (ParseGrade);
//   - a grader and a number, spaced, dashed or not ("PSA 10", "psa10",
//     "slab 10", "BGS 9.5", "cgc-9", "Beckett 9.5"), with the words of the
//     grader's label around the number if any ("PSA 10 GEM MT", "PSA 8
//     NM-MT", "BGS Pristine 10");
//   - a raw condition by name or abbreviation: "near_mint", "Near Mint",
//     "near-mint", "NM", "LP", "Lightly Played", "DMG" (also "mint",
//     "excellent", "played", "poor"), alone or after "raw": "Raw, near
//     mint" (Name), "raw NM", "raw:nm";
//   - "raw" or "ungraded": raw near-mint.
//
// Name's "PSA 10" and "Raw, near mint" read back as the grade they name.
// Anything else is an error whose message says what a grade looks like (or
// what the grader's numbers are when the grader is known).
func ReadGrade(s string) (Grade, error) { return readGrade(normalizeGradeText(s)) }

// gradeWant says what a grade looks like, for errors.
const gradeWant = "want a grader and a number (PSA 10, BGS 9.5, CGC 10; or slab:10, bgs:9.5), raw with a condition (raw, NM, LP, MP, HP, DMG; or raw:near_mint)"

// readGrade is ReadGrade of a normalized g.
func readGrade(g string) (Grade, error) {
	strict, err := ParseGrade(g)
	if err == nil {
		return strict, nil
	}
	if c := conditionOf(g); c >= 0 {
		return RawGrade(c), nil
	}
	if slices.Contains(rawWords, g) {
		return RawNearMint, nil
	}
	for _, w := range rawWords {
		if rest, ok := strings.CutPrefix(g, w); ok && rest != "" && strings.ContainsRune(" ,:-(/", rune(rest[0])) {
			rest = strings.Trim(rest, " ,:-()/")
			if c := conditionOf(rest); c >= 0 {
				return RawGrade(c), nil
			}
			return 0, fmt.Errorf("grade %q: the condition of a raw card must be near mint (NM), lightly played (LP), moderately played (MP), heavily played (HP) or damaged (DMG)", g)
		}
	}
	if x, ok, gerr := readGraderNumber(g); ok {
		return x, gerr
	}
	if strings.Contains(g, ":") {
		return 0, err // the API form, wrong: ParseGrade says what is wrong in it
	}
	return 0, fmt.Errorf("grade %q: %s", g, gradeWant)
}

// readGraderNumber reads a grader, a number and label words in any order
// after the grader ("psa 10 gem mt", "bgs pristine 10"). ok is false when g
// does not start with a known grader; a known grader with a bad or missing
// number is ok with an error that says what its numbers are.
func readGraderNumber(g string) (Grade, bool, error) {
	if m := graderNumberRE.FindStringSubmatch(g); m != nil {
		if gi := graderIndex(m[1]); gi >= 0 {
			x, err := ParseGrade(Graders[gi] + ":" + m[2])
			if err != nil {
				err = fmt.Errorf("grade %q: a %s grade's number must be 1 to 10 in steps of 0.5", g, GraderNames[gi])
			}
			return x, true, err
		}
		return 0, false, nil
	}
	fields := strings.FieldsFunc(g, func(r rune) bool { return r == ' ' || r == ':' || r == '#' || r == ',' })
	if len(fields) < 2 {
		return 0, false, nil
	}
	name, rest := fields[0], fields[1:]
	if i := strings.IndexFunc(name, func(r rune) bool { return r >= '0' && r <= '9' }); i > 0 {
		name, rest = name[:i], append([]string{name[i:]}, rest...) // "psa10 gem mt"
	}
	gi := graderIndex(name)
	if gi < 0 {
		return 0, false, nil
	}
	num := ""
	for _, f := range rest {
		switch {
		case labelWords[f]:
		case num == "" && strings.IndexFunc(f, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != '-' }) < 0:
			num = f
		default:
			return 0, true, fmt.Errorf("grade %q: %s", g, gradeWant)
		}
	}
	if num == "" {
		return 0, true, fmt.Errorf("grade %q: a %s grade needs its number, 1 to 10 in steps of 0.5 (%s 10)", g, GraderNames[gi], GraderNames[gi])
	}
	x, err := ParseGrade(Graders[gi] + ":" + num)
	if err != nil {
		err = fmt.Errorf("grade %q: a %s grade's number must be 1 to 10 in steps of 0.5", g, GraderNames[gi])
	}
	return x, true, err
}

// ReadGradeOr is ReadGrade with a default for an empty (or blank) s.
func ReadGradeOr(s string, def Grade) (Grade, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	return ReadGrade(s)
}

// ReadGradeCondition reads a grade given in two fields, as collection
// uploads have them: grade ("PSA 10", "slab 10", "raw:lightly_played",
// "NM"; ReadGrade) and, when grade is empty, "raw" or "ungraded", the raw
// condition ("Lightly Played", "LP"); both empty is raw near-mint. On error
// it names the field at fault ("grade" or "condition") and says what the
// field takes.
func ReadGradeCondition(grade, condition string) (Grade, string, error) {
	g := normalizeGradeText(grade)
	if g != "" && !slices.Contains(rawWords, g) {
		x, err := readGrade(g)
		if err == nil {
			return x, "", nil
		}
		if _, ok, _ := readGraderNumber(g); ok {
			return 0, "grade", err // a grader with a bad number: say what numbers are
		}
		return 0, "grade", fmt.Errorf("grade %q: want a grader and a number (PSA 10, BGS 9.5, CGC 9), a raw condition (NM, LP, raw:near_mint), or leave it empty for raw", grade)
	}
	if strings.TrimSpace(condition) == "" {
		return RawNearMint, "", nil
	}
	if x, err := readGrade(normalizeGradeText(condition)); err == nil {
		return x, "", nil
	}
	return 0, "condition", fmt.Errorf("condition %q: want near mint (NM), lightly played (LP), moderately played (MP), heavily played (HP) or damaged (DMG)", condition)
}

// ReadGrades reads a comma list of grades (ReadGrade each), in order, each
// once; empty items are skipped. "raw" followed by a condition is one grade,
// as Name writes it ("Raw, near mint, PSA 10" is two). A list with no grade
// is an error.
func ReadGrades(list string) ([]Grade, error) {
	var out []Grade
	parts := strings.Split(list, ",")
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		if strings.TrimSpace(part) == "" {
			continue
		}
		if slices.Contains(rawWords, normalizeGradeText(part)) && i+1 < len(parts) && conditionOf(normalizeGradeText(parts[i+1])) >= 0 {
			i++
			part += "," + parts[i]
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
	if gi := graderIndex(f); gi >= 0 {
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

// Name says what f selects as people read it: "every grade", "raw (every
// condition)", "graded (every grader)", "PSA (every grade)", or the one
// grade's Name.
func (f GradeFilter) Name() string {
	switch f.kind {
	case filterRaw:
		return "raw (every condition)"
	case filterGraded:
		return "graded (every grader)"
	case filterGrader:
		return GraderNames[f.grader] + " (every grade)"
	case filterGrade:
		return f.grade.Name()
	}
	return "every grade"
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
		if x, err := readGrade(rest[m[2]:m[3]] + ":" + rest[m[4]:m[5]]); err == nil {
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
