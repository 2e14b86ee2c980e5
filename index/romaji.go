package index

import (
	"strings"
	"unicode/utf8"

	"github.com/mozillazg/go-pinyin"
)

// Katakana to romaji (modified Hepburn). Hiragana is folded to katakana by
// foldRune before it gets here.
var kanaDigraphs = map[string]string{
	"キャ": "kya", "キュ": "kyu", "キョ": "kyo", "キェ": "kye",
	"ギャ": "gya", "ギュ": "gyu", "ギョ": "gyo",
	"シャ": "sha", "シュ": "shu", "ショ": "sho", "シェ": "she",
	"ジャ": "ja", "ジュ": "ju", "ジョ": "jo", "ジェ": "je",
	"チャ": "cha", "チュ": "chu", "チョ": "cho", "チェ": "che",
	"ヂャ": "ja", "ヂュ": "ju", "ヂョ": "jo",
	"ニャ": "nya", "ニュ": "nyu", "ニョ": "nyo", "ニェ": "nye",
	"ヒャ": "hya", "ヒュ": "hyu", "ヒョ": "hyo", "ヒェ": "hye",
	"ビャ": "bya", "ビュ": "byu", "ビョ": "byo",
	"ピャ": "pya", "ピュ": "pyu", "ピョ": "pyo",
	"ミャ": "mya", "ミュ": "myu", "ミョ": "myo",
	"リャ": "rya", "リュ": "ryu", "リョ": "ryo",
	"ファ": "fa", "フィ": "fi", "フェ": "fe", "フォ": "fo", "フュ": "fyu",
	"ティ": "ti", "ディ": "di", "テュ": "tyu", "デュ": "dyu",
	"トゥ": "tu", "ドゥ": "du",
	"ウィ": "wi", "ウェ": "we", "ウォ": "wo",
	"ヴァ": "va", "ヴィ": "vi", "ヴェ": "ve", "ヴォ": "vo", "ヴュ": "vyu",
	"ツァ": "tsa", "ツィ": "tsi", "ツェ": "tse", "ツォ": "tso",
	"イェ": "ye", "スィ": "si", "ズィ": "zi",
	"クァ": "kwa", "クィ": "kwi", "クェ": "kwe", "クォ": "kwo", "グァ": "gwa",
}

var kanaSingles = map[rune]string{
	'ア': "a", 'イ': "i", 'ウ': "u", 'エ': "e", 'オ': "o",
	'カ': "ka", 'キ': "ki", 'ク': "ku", 'ケ': "ke", 'コ': "ko",
	'ガ': "ga", 'ギ': "gi", 'グ': "gu", 'ゲ': "ge", 'ゴ': "go",
	'サ': "sa", 'シ': "shi", 'ス': "su", 'セ': "se", 'ソ': "so",
	'ザ': "za", 'ジ': "ji", 'ズ': "zu", 'ゼ': "ze", 'ゾ': "zo",
	'タ': "ta", 'チ': "chi", 'ツ': "tsu", 'テ': "te", 'ト': "to",
	'ダ': "da", 'ヂ': "ji", 'ヅ': "zu", 'デ': "de", 'ド': "do",
	'ナ': "na", 'ニ': "ni", 'ヌ': "nu", 'ネ': "ne", 'ノ': "no",
	'ハ': "ha", 'ヒ': "hi", 'フ': "fu", 'ヘ': "he", 'ホ': "ho",
	'バ': "ba", 'ビ': "bi", 'ブ': "bu", 'ベ': "be", 'ボ': "bo",
	'パ': "pa", 'ピ': "pi", 'プ': "pu", 'ペ': "pe", 'ポ': "po",
	'マ': "ma", 'ミ': "mi", 'ム': "mu", 'メ': "me", 'モ': "mo",
	'ヤ': "ya", 'ユ': "yu", 'ヨ': "yo",
	'ラ': "ra", 'リ': "ri", 'ル': "ru", 'レ': "re", 'ロ': "ro",
	'ワ': "wa", 'ヰ': "i", 'ヱ': "e", 'ヲ': "o", 'ン': "n", 'ヴ': "vu",
	'ァ': "a", 'ィ': "i", 'ゥ': "u", 'ェ': "e", 'ォ': "o",
	'ャ': "ya", 'ュ': "yu", 'ョ': "yo", 'ヮ': "wa", 'ヵ': "ka", 'ヶ': "ke",
}

// romanizeRun romanizes one run of katakana. long keeps the prolonged sound
// mark as a repeated vowel ("リザードン" -> "rizaadon"); otherwise the mark
// is dropped and doubled vowels are collapsed ("rizadon", "ピカチュウ" ->
// "pikachu"), which is how collectors type names.
func romanizeRun(run []rune, long bool) string {
	var b strings.Builder
	geminate := false
	lastVowel := byte(0)
	for i := 0; i < len(run); i++ {
		r := run[i]
		if r == 'ッ' {
			geminate = true
			continue
		}
		if r == 'ー' {
			if long && lastVowel != 0 {
				b.WriteByte(lastVowel)
			}
			continue
		}
		var syl string
		if i+1 < len(run) {
			if s, ok := kanaDigraphs[string(run[i:i+2])]; ok {
				syl = s
				i++
			}
		}
		if syl == "" {
			s, ok := kanaSingles[r]
			if !ok {
				continue // iteration marks and the like
			}
			syl = s
		}
		if geminate {
			if strings.HasPrefix(syl, "ch") {
				b.WriteByte('t')
			} else if c := syl[0]; c != 'a' && c != 'i' && c != 'u' && c != 'e' && c != 'o' && c != 'n' {
				b.WriteByte(c)
			}
			geminate = false
		}
		b.WriteString(syl)
		lastVowel = syl[len(syl)-1]
		if lastVowel == 'n' && syl == "n" {
			lastVowel = 0
		}
	}
	out := b.String()
	if long {
		return out
	}
	return collapseVowels(out)
}

// collapseVowels turns long vowels into short ones: "aa", "ii", "uu", "ee",
// "oo" and "ou" become one vowel ("myuutsuu" -> "myutsu", "houou" -> "hoo").
func collapseVowels(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		b = append(b, c)
		if i+1 < len(s) && isVowel(c) && (s[i+1] == c || c == 'o' && s[i+1] == 'u') {
			i++
		}
	}
	return string(b)
}

func isVowel(c byte) bool { return c == 'a' || c == 'i' || c == 'u' || c == 'e' || c == 'o' }

// transliterate rewrites the runs of a normalized text (see normalizeText)
// for which conv returns a string, leaving every other rune as it is and
// putting a space between a converted run and an adjacent unconverted word
// rune. It reports whether any run was converted.
func transliterate(s string, in func(rune) bool, conv func([]rune) string) (string, bool) {
	var b strings.Builder
	var run []rune
	converted := false
	prevOther := false // last written rune was an unconverted non-space rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		out := conv(run)
		run = run[:0]
		if out == "" {
			return
		}
		if prevOther {
			b.WriteByte(' ')
		}
		b.WriteString(out)
		converted = true
		prevOther = false
	}
	afterRun := false
	for _, r := range s {
		if in(r) {
			run = append(run, r)
			afterRun = false
			continue
		}
		hadRun := len(run) > 0
		flush()
		if hadRun {
			afterRun = true
		}
		if r == ' ' {
			b.WriteByte(' ')
			prevOther = false
			afterRun = false
			continue
		}
		if afterRun {
			b.WriteByte(' ')
			afterRun = false
		}
		b.WriteRune(r)
		prevOther = true
	}
	flush()
	return strings.Join(strings.Fields(b.String()), " "), converted
}

// romaji returns the romanized forms of a normalized Japanese name: the
// short form (as collectors type it) and, when different, the long form
// keeping long vowels. ok is false when the name has no kana. han reports
// whether kanji were left in the output (such forms are not typeahead keys).
func romaji(norm string) (short, long string, han, ok bool) {
	if !hasScript(norm, isKatakana) {
		return "", "", false, false
	}
	short, _ = transliterate(norm, isKatakana, func(r []rune) string { return romanizeRun(r, false) })
	long, _ = transliterate(norm, isKatakana, func(r []rune) string { return romanizeRun(r, true) })
	if long == short {
		long = ""
	}
	return short, long, hasScript(short, isHan), true
}

var pinyinArgs = pinyin.NewArgs() // Style Normal: no tones

// pinyinOf returns the pinyin of a normalized Chinese name in two forms:
// syllables separated ("pen huo long ex") and each Han run joined
// ("penhuolong ex"). ok is false when the name has no Han characters.
func pinyinOf(norm string) (spaced, joined string, ok bool) {
	if !hasScript(norm, isHan) {
		return "", "", false
	}
	conv := func(sep string) func([]rune) string {
		return func(run []rune) string {
			parts := make([]string, 0, len(run))
			for _, r := range run {
				p := pinyin.SinglePinyin(r, pinyinArgs)
				if len(p) > 0 && p[0] != "" {
					parts = append(parts, foldPinyin(p[0]))
				}
			}
			return strings.Join(parts, sep)
		}
	}
	spaced, _ = transliterate(norm, isHan, conv(" "))
	joined, _ = transliterate(norm, isHan, conv(""))
	return spaced, joined, spaced != ""
}

// foldPinyin writes ü as v, the usual keyboard spelling ("lü" -> "lv").
func foldPinyin(p string) string {
	if !strings.ContainsRune(p, 'ü') {
		return p
	}
	return strings.ReplaceAll(p, "ü", "v")
}

// firstRunes returns the first n runes of s (all of s when shorter).
func firstRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
