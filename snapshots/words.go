package snapshots

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// The words collectors use about a card, beside its name: a grade ("PSA
// 10", "BGS 9.5", "cgc9"; CutGrade), a printing ("1st edition",
// "shadowless", "reverse holo", "unlimited"), an art ("alt art", "SIR",
// "full art") and a set name ("Evolving Skies"). ReadWords takes them out
// of a free-text reference and says what it understood; what is left is the
// card's name and number, for the index. The chat, the quote route and the
// MCP search and quote tools read free text through it (package resolve).

// Art kinds ReadWords understands (Words.Art).
const (
	ArtAlternate          = "alternate-art"
	ArtFull               = "full-art"
	ArtSpecialIllustation = "special-illustration-rare"
	ArtIllustration       = "illustration-rare"
	ArtSecret             = "secret-rare"
	ArtRainbow            = "rainbow-rare"
	ArtHyper              = "hyper-rare"
)

// artRarities are the catalog rarities of each art kind (any of them);
// alternate and full art are decided by AlternateArts.
var artRarities = map[string][]string{
	ArtSpecialIllustation: {"Special Illustration Rare"},
	ArtIllustration:       {"Illustration Rare"},
	ArtSecret:             {"Rare Secret", "Secret Rare", "SEC"},
	ArtRainbow:            {"Rare Rainbow"},
	ArtHyper:              {"Hyper Rare", "Mega Hyper Rare"},
	ArtFull:               {"Rare Ultra", "Ultra Rare"},
}

// ArtRarities returns the catalog rarities an art kind stands for (nil for
// alternate art, which a rarity alone does not tell).
func ArtRarities(art string) []string { return artRarities[art] }

// phrase is one run of words ReadWords knows, longest first within a kind.
type phrase struct {
	re    *regexp.Regexp
	value string
}

func phrases(m map[string]string) []phrase {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Longest first: "reverse holo" before "holo", "1st edition" before "1st".
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	out := make([]phrase, len(keys))
	for i, k := range keys {
		words := strings.Fields(k)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		out[i] = phrase{regexp.MustCompile(`(?:^|[^\p{L}\p{N}])(` + strings.Join(words, `[\s\-_]*`) + `)(?:$|[^\p{L}\p{N}])`), m[k]}
	}
	return out
}

// printingWords are the printings people name (variant parts).
var printingWords = phrases(map[string]string{
	"1st edition": "1st-edition", "first edition": "1st-edition", "1st ed": "1st-edition", "1st-edition": "1st-edition",
	"shadowless": "shadowless", "unlimited": "unlimited",
	"reverse holo": "reverse", "reverse holofoil": "reverse", "reverse foil": "reverse", "reverse": "reverse",
	"non holo": "normal",
})

// artWords are the arts people name.
var artWords = phrases(map[string]string{
	"alt art": ArtAlternate, "alternate art": ArtAlternate, "alternative art": ArtAlternate, "alt-art": ArtAlternate, "aa": ArtAlternate,
	"full art": ArtFull, "fa": ArtFull,
	"sir": ArtSpecialIllustation, "special illustration rare": ArtSpecialIllustation, "special illustration": ArtSpecialIllustation,
	"illustration rare": ArtIllustration, "ir": ArtIllustration,
	"secret rare": ArtSecret, "rainbow rare": ArtRainbow, "hyper rare": ArtHyper, "gold rare": ArtHyper,
})

// Words is what ReadWords understood of a free-text reference.
type Words struct {
	// Text is what is left: the card's name, number and other words,
	// lower case.
	Text string
	// Grade is the grade said (HasGrade), GradeSaid the words.
	Grade     Grade
	HasGrade  bool
	GradeSaid string
	// Printing are the printing parts said ("1st-edition", "shadowless",
	// "reverse", "unlimited", "normal"), joined by '/', and PrintingSaid
	// the words.
	Printing     string
	PrintingSaid string
	// Art is the art kind said (ArtAlternate ...), ArtSaid the words.
	Art     string
	ArtSaid string
	// Sets are the sets whose name was said (CutSet), SetSaid the words.
	Sets    []*Set
	SetSaid string
}

// cut removes the first match of p in text (a lowercased reference) and
// returns the words matched and the rest.
func (p phrase) cut(text string) (said, rest string, ok bool) {
	m := p.re.FindStringSubmatchIndex(text)
	if m == nil {
		return "", text, false
	}
	return text[m[2]:m[3]], text[:m[2]] + " " + text[m[3]:], true
}

// ReadWords takes the grade, printing and art words out of text (see the
// comment above; CutSet takes a set name out after it).
func ReadWords(text string) Words {
	var w Words
	lower := strings.ToLower(text)
	if g, rest, ok := CutGrade(lower); ok {
		w.Grade, w.HasGrade = g, true
		w.GradeSaid = strings.TrimSpace(saidOf(lower, rest))
		lower = rest
	}
	var parts, said []string
	for _, p := range printingWords {
		for {
			s, rest, ok := p.cut(lower)
			if !ok {
				break
			}
			lower = rest
			if !slices.Contains(parts, p.value) {
				parts = append(parts, p.value)
				said = append(said, s)
			}
		}
	}
	w.Printing, w.PrintingSaid = strings.Join(parts, "/"), strings.Join(said, ", ")
	for _, p := range artWords {
		if s, rest, ok := p.cut(lower); ok {
			w.Art, w.ArtSaid, lower = p.value, s, rest
			break
		}
	}
	w.Text = strings.Join(strings.Fields(lower), " ")
	return w
}

// saidOf returns the words of before that CutGrade took out to leave after
// (a space marks where).
func saidOf(before, after string) string {
	i := 0
	for i < len(before) && i < len(after) && before[i] == after[i] {
		i++
	}
	j := 0
	for j < len(before)-i && j < len(after)-i && before[len(before)-1-j] == after[len(after)-1-j] {
		j++
	}
	return before[i : len(before)-j]
}

// SetNames are a game's sets with their names folded for CutSet
// (lowercase words of letters and digits), folded once for many texts.
type SetNames struct {
	sets   []*Set
	folded []string
}

// NewSetNames folds the names of sets.
func NewSetNames(sets []*Set) *SetNames {
	n := &SetNames{sets: sets, folded: make([]string, len(sets))}
	for i, s := range sets {
		n.folded[i] = foldWords(s.Name)
	}
	return n
}

// CutSet takes a set name out of w.Text: the longest name of names' sets
// said as whole words (any case; a one-word name such as "Base" or
// "Jungle" only when "set" follows it, since one word is often a card's).
// Every set of that name is kept in w.Sets (its language editions), the
// words in w.SetSaid. Text keeps at least one word: a reference that is
// only a set name names no card.
func (w *Words) CutSet(names *SetNames) {
	text := " " + w.Text + " "
	best, bestSaid := "", ""
	for _, name := range names.folded {
		if len(name) < 2 || len(name) <= len(best) {
			continue
		}
		said := name
		if !strings.Contains(name, " ") {
			said = name + " set"
		}
		if i := strings.Index(text, " "+said+" "); i >= 0 {
			rest := strings.TrimSpace(text[:i] + " " + text[i+len(said)+1:])
			if rest == "" {
				continue
			}
			best, bestSaid = name, said
		}
	}
	if best == "" {
		return
	}
	for i, s := range names.sets {
		if names.folded[i] == best {
			w.Sets = append(w.Sets, s)
		}
	}
	i := strings.Index(text, " "+bestSaid+" ")
	w.Text = strings.Join(strings.Fields(text[:i]+" "+text[i+len(bestSaid)+1:]), " ")
	w.SetSaid = bestSaid
}

// foldWords lowercases s and keeps its letters and digits as words
// separated by one space ("HS—Unleashed" -> "hs unleashed").
func foldWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '&' && r != '\''
	}), " ")
}
