package index

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
)

// Analyzer and filter names registered with Bleve. They are stored in the
// index mapping, so they must not change without a format version bump.
const (
	foldFilterName      = "cardedge_fold"
	bigramUniFilterName = "cardedge_cjk_bigram_unigram"

	// textAnalyzer indexes names and set names: Unicode word segmentation,
	// cardedge_fold, then CJK bigrams plus unigrams (so that a one-character
	// query still finds a name).
	textAnalyzer = "cardedge_text"
	// queryAnalyzer analyzes query text: the same without unigrams (a lone
	// CJK character still becomes a unigram).
	queryAnalyzer = "cardedge_text_query"
)

func init() {
	if err := registry.RegisterTokenFilter(foldFilterName, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return foldFilter{}, nil
	}); err != nil {
		panic(err)
	}
}

// addAnalyzers declares the custom analyzers on m.
func addAnalyzers(m *mapping.IndexMappingImpl) error {
	if err := m.AddCustomTokenFilter(bigramUniFilterName, map[string]interface{}{
		"type":           cjk.BigramName,
		"output_unigram": true,
	}); err != nil {
		return err
	}
	if err := m.AddCustomAnalyzer(textAnalyzer, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{foldFilterName, bigramUniFilterName},
	}); err != nil {
		return err
	}
	return m.AddCustomAnalyzer(queryAnalyzer, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{foldFilterName, cjk.BigramName},
	})
}

// foldFilter lowercases and folds tokens like normalizeText, and splits them
// where Unicode word segmentation keeps punctuation inside a word
// ("Monkey.D.Luffy" is one segment; it becomes monkey, d, luffy). Apostrophes
// are removed, and a possessive also yields its stem: "Blaine's" gives
// "blaines" and "blaine". Start and End keep pointing into the original text
// (highlighting needs that), and kana and Han terms keep their byte length
// (the CJK bigram filter needs that).
type foldFilter struct{}

func (foldFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input))
	for _, tok := range input {
		if tok.Type == analysis.Ideographic {
			term := make([]byte, 0, len(tok.Term))
			for _, r := range string(tok.Term) {
				term = foldRune(term, r)
			}
			tok.Term = term
			out = append(out, tok)
			continue
		}
		// Split at punctuation kept inside the segment (apostrophes excepted).
		s := tok.Term
		start := -1
		for i := 0; i <= len(s); {
			r, size := rune(-1), 1
			if i < len(s) {
				r, size = utf8.DecodeRune(s[i:])
			}
			inWord := r >= 0 && (isWordRune(r) || isApostrophe(r))
			if inWord && start < 0 {
				start = i
			}
			if !inWord && start >= 0 {
				out = appendFolded(out, tok, start, i)
				start = -1
			}
			i += size
		}
	}
	for i, t := range out {
		t.Position = i + 1
	}
	return out
}

// appendFolded appends the folded piece tok.Term[from:to] (and its possessive
// stem) to out.
func appendFolded(out analysis.TokenStream, tok *analysis.Token, from, to int) analysis.TokenStream {
	piece := tok.Term[from:to]
	term := make([]byte, 0, len(piece))
	apos := -1 // byte offset in term of the last apostrophe removed
	for _, r := range string(piece) {
		if isApostrophe(r) {
			apos = len(term)
			continue
		}
		term = foldRune(term, r)
	}
	if len(term) == 0 {
		return out
	}
	mk := func(t []byte) *analysis.Token {
		return &analysis.Token{
			Term: t, Start: tok.Start + from, End: tok.Start + to,
			Type: tok.Type, KeyWord: tok.KeyWord,
		}
	}
	out = append(out, mk(term))
	// possessive: "blaines" with the apostrophe before the final s
	if apos > 0 && apos == len(term)-1 && term[len(term)-1] == 's' {
		out = append(out, mk(term[:apos:apos]))
	}
	return out
}
