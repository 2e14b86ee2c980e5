package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
)

// foldTab maps runes below foldLimit to their ASCII folding (Lucene's
// ASCIIFoldingFilter, as shipped with Bleve), lowercased. An empty entry means
// "keep the rune, lowercased". Built once at init.
const foldLimit = 0x2500

var foldTab [foldLimit]string

func init() {
	f := asciifolding.New()
	for r := rune(0x80); r < foldLimit; r++ {
		// fold and lowercase to a fixpoint: "Ʀ" lowercases to "ʀ", which
		// folds to "r"
		in := string(r)
		out := in
		for i := 0; i < 4; i++ {
			next := strings.ToLower(string(f.Filter([]byte(out))))
			if next == out {
				break
			}
			out = next
		}
		if out != in {
			foldTab[r] = out
		}
	}
}

// foldRune appends the folded, lowercased form of r to b: accents and case
// removed, fullwidth ASCII made ASCII, hiragana and halfwidth katakana made
// (fullwidth) katakana. It never changes the byte length of kana or Han runes,
// which the CJK bigram filter relies on.
func foldRune(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	case r < foldLimit:
		if s := foldTab[r]; s != "" {
			return append(b, s...)
		}
		return utf8.AppendRune(b, unicode.ToLower(r))
	case 0xFF01 <= r && r <= 0xFF5E: // fullwidth ASCII
		return foldRune(b, r-0xFEE0)
	case 0x3041 <= r && r <= 0x3096: // hiragana -> katakana
		return utf8.AppendRune(b, r+0x60)
	case 0x309D <= r && r <= 0x309E: // hiragana iteration marks
		return utf8.AppendRune(b, r+0x60)
	case 0xFF66 <= r && r <= 0xFF9D: // halfwidth katakana
		return utf8.AppendRune(b, halfKana[r-0xFF66])
	}
	return utf8.AppendRune(b, unicode.ToLower(r))
}

// halfKana maps U+FF66..U+FF9D to fullwidth katakana (without combining the
// voicing marks, which would change byte lengths).
var halfKana = [...]rune{
	'ヲ', 'ァ', 'ィ', 'ゥ', 'ェ', 'ォ', 'ャ', 'ュ', 'ョ', 'ッ', 'ー',
	'ア', 'イ', 'ウ', 'エ', 'オ', 'カ', 'キ', 'ク', 'ケ', 'コ',
	'サ', 'シ', 'ス', 'セ', 'ソ', 'タ', 'チ', 'ツ', 'テ', 'ト',
	'ナ', 'ニ', 'ヌ', 'ネ', 'ノ', 'ハ', 'ヒ', 'フ', 'ヘ', 'ホ',
	'マ', 'ミ', 'ム', 'メ', 'モ', 'ヤ', 'ユ', 'ヨ',
	'ラ', 'リ', 'ル', 'レ', 'ロ', 'ワ', 'ン',
}

// isApostrophe reports whether r is an apostrophe-like rune, removed (not
// treated as a separator) by the normalizers: "Farfetch'd" -> "farfetchd".
func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u2018' || r == '`' || r == '\u02BC' || r == '\uFF07'
}

// isWordRune reports whether r belongs to a word for normalizeText: letters,
// digits, combining marks and the katakana prolonged sound mark.
func isWordRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	if r == 'ー' || r == 0xFF70 {
		return true
	}
	if 0xFF10 <= r && r <= 0xFF19 || 0xFF21 <= r && r <= 0xFF3A || 0xFF41 <= r && r <= 0xFF5A {
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// normalizeText is the normal form of names and of typeahead queries:
// lowercase, accents folded ("Flabébé" -> "flabebe"), fullwidth ASCII made
// ASCII, hiragana made katakana, apostrophes dropped, every other
// punctuation or space run turned into one space, trimmed.
//
//	"Monkey.D.Luffy" -> "monkey d luffy"; "Farfetch'd" -> "farfetchd";
//	"Porygon-Z" -> "porygon z"; "ぴかちゅう" -> "ピカチュウ"
func normalizeText(s string) string {
	if s == "" {
		return ""
	}
	b := make([]byte, 0, len(s))
	space := false
	for _, r := range s {
		switch {
		case isApostrophe(r):
			continue
		case r == 0xFF9E || r == 0xFF9F: // halfwidth (semi-)voiced sound mark
			b = voice(b, r == 0xFF9F)
		case isWordRune(r):
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			n := len(b)
			b = foldRune(b, r)
			// A folding may yield punctuation (rare: "℅" -> "c/o"): keep
			// only word bytes of it.
			if len(b)-n == 1 && !isWordRune(rune(b[n])) {
				b = b[:n]
				space = true
			}
		default:
			space = true
		}
	}
	return string(b)
}

// voice combines a halfwidth voicing mark with the katakana that ends b:
// カ+ﾞ = ガ, ハ+ﾟ = パ, ウ+ﾞ = ヴ. A mark that does not combine is dropped.
func voice(b []byte, semi bool) []byte {
	r, size := utf8.DecodeLastRune(b)
	var v rune
	switch {
	case semi && r >= 'ハ' && r <= 'ホ' && (r-'ハ')%3 == 0:
		v = r + 2
	case !semi && r == 'ウ':
		v = 'ヴ'
	case !semi && (r >= 'カ' && r <= 'ド' && (r-'カ')%2 == 0 && r < 'ッ' ||
		r >= 'ツ' && r <= 'ト' && (r-'ツ')%2 == 0 ||
		r >= 'ハ' && r <= 'ホ' && (r-'ハ')%3 == 0):
		v = r + 1
	default:
		return b
	}
	return utf8.AppendRune(b[:len(b)-size], v)
}

// normalizeID is the normal form of ids (card, set, product) and of number
// forms: lowercase, accents and fullwidth folded, punctuation kept, spaces
// trimmed. "EN:Base1-4" -> "en:base1-4".
func normalizeID(s string) string { return Fold(strings.TrimSpace(s)) }

// normKeyword is the normal form of filter values (rarity, variant, set id):
// normalizeID, then every run of spaces, '_' and '-' becomes one '-'.
// "Rare Holo", "rare_holo" and "rare-holo" are all "rare-holo".
func normKeyword(s string) string {
	s = normalizeID(s)
	if !strings.ContainsAny(s, " _-\t") {
		return s
	}
	b := make([]byte, 0, len(s))
	sep := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '_' || c == '-' || c == '\t' {
			sep = true
			continue
		}
		if sep && len(b) > 0 {
			b = append(b, '-')
		}
		sep = false
		b = append(b, c)
	}
	return string(b)
}

// compact removes the spaces of a normalized text: "ho oh" -> "hooh".
func compact(s string) string { return strings.ReplaceAll(s, " ", "") }

// Script classes used to romanize and to split mixed names.
func isKatakana(r rune) bool {
	return 0x30A1 <= r && r <= 0x30FA || r == 'ー' || r == 0x30FD || r == 0x30FE
}

func isHan(r rune) bool {
	return unicode.Is(unicode.Han, r)
}

// hasScript reports whether s has a rune for which f holds.
func hasScript(s string, f func(rune) bool) bool {
	for _, r := range s {
		if f(r) {
			return true
		}
	}
	return false
}
