package index_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
)

var fuzzSeeds = []string{
	"", " ", "charizard base set 4", "4/102", "#004", "OP01-001", "en:base1-4", "ﾋﾟｶﾁｭｳ", "ぴかちゅう",
	"噴火龍ex", "Flabébé", "Monkey.D.Luffy", "()", "\xff\xfe", "a\x00b", "ﾞﾞ", "ッ", "ー", "ℌ℅", "ǅ",
	strings.Repeat("pika ", 100), "set", "-1", "_", "@", "base1-", "ﾊﾟ",
}

// FuzzNormalize: the normalizers never panic, return valid UTF-8 and are
// idempotent.
func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := index.NormalizeText(s)
		if !utf8.ValidString(n) || strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("NormalizeText(%q) = %q", s, n)
		}
		if again := index.NormalizeText(n); again != n {
			t.Fatalf("NormalizeText not idempotent: %q -> %q -> %q", s, n, again)
		}
		if id := index.NormalizeID(s); index.NormalizeID(id) != id {
			t.Fatalf("NormalizeID not idempotent: %q -> %q", s, id)
		}
		index.Romaji(s)
		index.Pinyin(s)
		index.NumberQueryForms(index.NormalizeID(s))
	})
}

var (
	smallOnce sync.Once
	smallIx   *index.Index
)

// FuzzQuery: any query text gives a valid answer from Search and Lookup
// (no panic, no error, limits kept, prefix matches only).
func FuzzQuery(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		smallOnce.Do(func() {
			sets, cards := smallCatalog(t)
			dir := filepath.Join(tmpRoot, "fuzz-small") // outlives this run; TestMain removes it
			if err := index.Build(context.Background(), dir, sets, cards, index.BuildOptions{}); err != nil {
				t.Fatal(err)
			}
			var err error
			if smallIx, err = index.Open(dir); err != nil {
				t.Fatal(err)
			}
		})
		if smallIx == nil {
			t.Skip("no index")
		}
		for _, game := range []string{"pokemon", "onepiece"} {
			res, err := smallIx.Search(context.Background(), index.SearchRequest{
				Game: game, Q: q, Limit: 10, MinPriceCents: -1, MaxPriceCents: -1, CollapseVariants: len(q)%2 == 1,
			})
			if err != nil {
				t.Fatalf("Search(%q): %v (%s)", q, err, apperr.ErrorCode(err))
			}
			if len(res.Hits) > 10 || res.Total < len(res.Hits) {
				t.Fatalf("Search(%q): %d hits, Total %d", q, len(res.Hits), res.Total)
			}
			got := smallIx.Lookup(game, q, "", 10)
			if len(got) > 10 {
				t.Fatalf("Lookup(%q): %d suggestions", q, len(got))
			}
			tn, in := index.NormalizeText(q), index.NormalizeID(q)
			for _, s := range got {
				if !s.Exact && !strings.HasPrefix(s.Match, tn) && !strings.HasPrefix(s.Match, in) {
					t.Fatalf("Lookup(%q): %s matched %q", q, s.ID, s.Match)
				}
			}
		}
	})
}
