package index_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/index"
)

func TestNormalizeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Pokémon", "pokemon"},
		{"Flabébé", "flabebe"},
		{"FLABÉBÉ", "flabebe"},
		{"Monkey.D.Luffy", "monkey d luffy"},
		{"Farfetch'd", "farfetchd"},
		{"Blaine’s Charizard", "blaines charizard"},
		{"Porygon-Z", "porygon z"},
		{"  Mr.  Mime ", "mr mime"},
		{"Nidoran ♀", "nidoran"},
		{"ＧＸ　ｐｉｋａ", "gx pika"}, // fullwidth letters and space
		{"ぴかちゅう", "ピカチュウ"},     // hiragana -> katakana
		{"ﾋﾟｶﾁｭｳ", "ピカチュウ"},    // halfwidth kana and voicing marks
		{"噴火龍ex", "噴火龍ex"},
		{"Ærodactyl", "aerodactyl"},
		{"", ""},
	} {
		if got := index.NormalizeText(tc.in); got != tc.want {
			t.Errorf("NormalizeText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeID_Keyword(t *testing.T) {
	if got := index.NormalizeID(" EN:Base1-4 "); got != "en:base1-4" {
		t.Errorf("NormalizeID = %q", got)
	}
	if got := index.NormalizeID("ＯＰ０１－００１"); got != "op01-001" {
		t.Errorf("NormalizeID fullwidth = %q", got)
	}
	for _, in := range []string{"Rare Holo", "rare_holo", "RARE-HOLO", "rare  holo"} {
		if got := index.NormKeyword(in); got != "rare-holo" {
			t.Errorf("NormKeyword(%q) = %q", in, got)
		}
	}
	if got := index.NormKeyword("holo/shadowless/1st-edition"); got != "holo/shadowless/1st-edition" {
		t.Errorf("NormKeyword(variant) = %q", got)
	}
}

func TestRomaji(t *testing.T) {
	for _, tc := range []struct{ in, short, long string }{
		{"リザードン", "rizadon", "rizaadon"},
		{"ピカチュウ", "pikachu", "pikachuu"},
		{"ミュウツー", "myutsu", "myuutsuu"},
		{"フシギダネ", "fushigidane", ""},
		{"ブラッキー", "burakki", "burakkii"},
		{"イーブイ", "ibui", "iibui"},
		{"ピカチュウex", "pikachu ex", "pikachuu ex"},
		{"リザードンVMAX", "rizadon vmax", "rizaadon vmax"},
		{"ゲッコウガ", "gekkoga", "gekkouga"},
		{"ヴィクティニ", "vikutini", ""},
		{"ジュナイパー", "junaipa", "junaipaa"},
		{"ぴかちゅう", "pikachu", "pikachuu"},
		{"Charizard", "", ""},
	} {
		short, long := index.Romaji(tc.in)
		if short != tc.short || long != tc.long {
			t.Errorf("Romaji(%q) = %q, %q; want %q, %q", tc.in, short, long, tc.short, tc.long)
		}
	}
}

func TestPinyin(t *testing.T) {
	for _, tc := range []struct{ in, spaced, joined string }{
		{"噴火龍", "pen huo long", "penhuolong"},
		{"皮卡丘", "pi ka qiu", "pikaqiu"},
		{"喷火龙GX", "pen huo long gx", "penhuolong gx"},
		{"噴火龍V", "pen huo long v", "penhuolong v"},
		{"Pikachu", "", ""},
	} {
		spaced, joined := index.Pinyin(tc.in)
		if spaced != tc.spaced || joined != tc.joined {
			t.Errorf("Pinyin(%q) = %q, %q; want %q, %q", tc.in, spaced, joined, tc.spaced, tc.joined)
		}
	}
}

// TestAnalyze_CJK checks how the analyzers split names: Chinese and
// Japanese into overlapping bigrams (plus unigrams at index time), Latin
// words folded and split at inner punctuation.
func TestAnalyze_CJK(t *testing.T) {
	for _, tc := range []struct {
		which, in string
		want      []string
	}{
		{"query", "噴火龍", []string{"噴火", "火龍"}},
		{"text", "噴火龍", []string{"噴", "噴火", "火", "火龍", "龍"}},
		{"query", "龍", []string{"龍"}},
		{"query", "リザードン", []string{"リザ", "ザー", "ード", "ドン"}},
		{"query", "りざーどん", []string{"リザ", "ザー", "ード", "ドン"}},
		{"query", "リザードンex", []string{"リザ", "ザー", "ード", "ドン", "ex"}},
		{"query", "博士的研究（奧琳博士）", []string{"博士", "士的", "的研", "研究", "奧琳", "琳博", "博士"}},
		{"query", "Monkey.D.Luffy", []string{"monkey", "d", "luffy"}},
		{"query", "Blaine's Charizard", []string{"blaines", "blaine", "charizard"}},
		{"query", "Pokémon ＧＸ", []string{"pokemon", "gx"}},
		{"query", "Porygon-Z", []string{"porygon", "z"}},
	} {
		if diff := cmp.Diff(tc.want, index.Analyze(tc.which, tc.in)); diff != "" {
			t.Errorf("Analyze(%s, %q) (-want +got):\n%s", tc.which, tc.in, diff)
		}
	}
}

func TestNumberForms(t *testing.T) {
	for _, tc := range []struct {
		number  string
		printed int
		want    []string
	}{
		{"4", 102, []string{"4", "4/102"}},
		{"004", 78, []string{"004", "4", "4/78"}},
		{"OP01-001", 0, []string{"op01-001", "001", "1"}},
		{"TG01", 30, []string{"tg01", "tg1"}},
		{"0", 0, []string{"0"}},
	} {
		if diff := cmp.Diff(tc.want, index.NumberForms(tc.number, tc.printed)); diff != "" {
			t.Errorf("NumberForms(%q, %d) (-want +got):\n%s", tc.number, tc.printed, diff)
		}
	}
	for _, tc := range []struct {
		tok  string
		want []string
	}{
		{"#004", []string{"004", "4"}},
		{"004/102", []string{"004/102", "4/102"}},
		{"4/102", []string{"4/102"}},
		{"tg01", []string{"tg01", "tg1"}},
		{"op01-001", []string{"op01-001"}},
	} {
		if diff := cmp.Diff(tc.want, index.NumberQueryForms(tc.tok)); diff != "" {
			t.Errorf("NumberQueryForms(%q) (-want +got):\n%s", tc.tok, diff)
		}
	}
}
