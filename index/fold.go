package index

import "strings"

// Fold returns s folded as the index folds names (foldRune: accents and case
// removed, fullwidth ASCII made ASCII, hiragana and halfwidth katakana made
// katakana), punctuation and spaces kept: the one text folding of cardedge,
// so that substring filters (the card list's q) and exact-name matching
// (collection imports) agree with search.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = foldRune(b, r)
	}
	return string(b)
}

// FoldKey is Fold with runs of spaces made one and the ends trimmed: the key
// of exact-name matching.
func FoldKey(s string) string { return strings.Join(strings.Fields(Fold(s)), " ") }
