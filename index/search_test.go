package index_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// all pages through a search and returns every hit.
func allHits(tb testing.TB, r index.SearchRequest) []index.SearchHit {
	tb.Helper()
	var out []index.SearchHit
	r.Limit = index.MaxLimit
	for r.Offset = 0; ; r.Offset += r.Limit {
		res := mustSearch(tb, r)
		out = append(out, res.Hits...)
		if len(res.Hits) < r.Limit || r.Offset+r.Limit >= res.Total {
			return out
		}
	}
}

func TestSearch_AccentsAndCase(t *testing.T) {
	for _, q := range []string{"pokemon catcher", "Pokémon Catcher", "POKEMON CATCHER"} {
		res := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: q, Limit: 5})
		if len(res.Hits) == 0 || card(t, "pokemon", res.Hits[0].CardID).Name != "Pokémon Catcher" {
			t.Errorf("%q: top hit %v, want a Pokémon Catcher", q, hitIDs(res))
		}
	}
	a := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "flabebe", Limit: 20})
	b := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "FLABÉBÉ", Limit: 20})
	if diff := cmp.Diff(hitIDs(a), hitIDs(b)); diff != "" || a.Total != b.Total {
		t.Errorf("flabebe and FLABÉBÉ differ (-flabebe +FLABÉBÉ):\n%s", diff)
	}
}

func TestSearch_CJK(t *testing.T) {
	for _, tc := range []struct{ q, lang, contains string }{
		{"火龍", "zh-tw", "火龍"},    // a bigram inside 噴火龍
		{"龍", "zh-tw", "龍"},      // one character
		{"ザード", "ja", "ザード"},     // inside リザードン
		{"ぴかちゅう", "ja", "ピカチュウ"}, // hiragana finds katakana
	} {
		res := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: tc.q, Language: tc.lang, Limit: 10})
		if len(res.Hits) == 0 {
			t.Errorf("%q: no hits", tc.q)
			continue
		}
		// the best hits have every bigram (the race subset has few)
		for _, h := range res.Hits[:min(3, len(res.Hits), res.Total)] {
			if n := card(t, "pokemon", h.CardID).Name; !strings.Contains(n, tc.contains) && !raceEnabled {
				t.Errorf("%q: hit %s %q does not contain %q", tc.q, h.CardID, n, tc.contains)
			}
		}
		if n := card(t, "pokemon", res.Hits[0].CardID).Name; !strings.Contains(n, tc.contains) {
			t.Errorf("%q: top hit %s %q does not contain %q", tc.q, res.Hits[0].CardID, n, tc.contains)
		}
	}
}

// brute counts the catalog cards of a game that pass f.
func brute(tb testing.TB, game string, f func(*snapshots.Card) bool) int {
	_, cards := catalog(tb)
	n := 0
	for _, c := range cards {
		if c.Game == game && f(c) {
			n++
		}
	}
	return n
}

func TestSearch_Filters(t *testing.T) {
	// "1st-edition" also matches the data's "normal/1st edition"
	hasVariantPart := func(c *snapshots.Card, part string) bool {
		for _, v := range c.Variants {
			for _, p := range strings.Split(v, "/") {
				if index.NormKeyword(p) == part {
					return true
				}
			}
		}
		return false
	}
	for _, tc := range []struct {
		name string
		r    index.SearchRequest
		f    func(*snapshots.Card) bool
	}{
		{"game", index.SearchRequest{Game: "onepiece"}, func(c *snapshots.Card) bool { return true }},
		{"language", index.SearchRequest{Game: "pokemon", Language: "zh-tw"}, func(c *snapshots.Card) bool { return c.Language == "zh-tw" }},
		{"set id", index.SearchRequest{Game: "pokemon", SetID: "en:base1"}, func(c *snapshots.Card) bool { return c.SetID == "en:base1" }},
		{"set source id", index.SearchRequest{Game: "pokemon", SetID: "SV1S"}, func(c *snapshots.Card) bool { return c.SetID == "ja:SV1S" || c.SetID == "zh-tw:SV1S" }},
		{"rarity", index.SearchRequest{Game: "pokemon", Rarity: "rare holo"}, func(c *snapshots.Card) bool { return c.Rarity == "Rare Holo" }},
		{"variant part", index.SearchRequest{Game: "pokemon", Variant: "1st-edition"}, func(c *snapshots.Card) bool { return hasVariantPart(c, "1st-edition") }},
		{"variant", index.SearchRequest{Game: "pokemon", Variant: "holo/shadowless/1st-edition"}, func(c *snapshots.Card) bool { return slices.Contains(c.Variants, "holo/shadowless/1st-edition") }},
		{"price range", index.SearchRequest{Game: "pokemon", MinPriceCents: 1000, MaxPriceCents: 5000}, func(c *snapshots.Card) bool { return c.PriceCents >= 1000 && c.PriceCents <= 5000 }},
		{"min price only", index.SearchRequest{Game: "onepiece", MinPriceCents: 20000, MaxPriceCents: -1}, func(c *snapshots.Card) bool { return c.PriceCents >= 20000 }},
		{"max price 0 excludes unpriced", index.SearchRequest{Game: "onepiece", MinPriceCents: -1, MaxPriceCents: 0}, func(c *snapshots.Card) bool { return false }},
		{"combined", index.SearchRequest{Game: "pokemon", Language: "ja", Rarity: "Rare", MaxPriceCents: 3000, MinPriceCents: -1}, func(c *snapshots.Card) bool {
			return c.Language == "ja" && c.Rarity == "Rare" && c.PriceCents > 0 && c.PriceCents <= 3000
		}},
		{"text and filter", index.SearchRequest{Game: "pokemon", Q: "charizard", Language: "en", SetID: "en:base1"}, func(c *snapshots.Card) bool { return c.SetID == "en:base1" && c.Name == "Charizard" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			if r.MinPriceCents == 0 && r.MaxPriceCents == 0 {
				r.MinPriceCents, r.MaxPriceCents = -1, -1
			}
			res := mustSearch(t, r)
			want := brute(t, r.Game, tc.f)
			if res.Total != want {
				t.Errorf("Total = %d, want %d", res.Total, want)
			}
			for _, h := range res.Hits {
				if c := card(t, r.Game, h.CardID); !tc.f(c) {
					t.Errorf("hit %s does not pass the filter", h.CardID)
				}
			}
		})
	}
}

func TestSearch_Sort(t *testing.T) {
	base := index.SearchRequest{Game: "pokemon", SetID: "en:base1"}
	get := func(sortBy, order string) []*snapshots.Card {
		r := base
		r.Sort, r.Order = sortBy, order
		var out []*snapshots.Card
		for _, h := range allHits(t, r) {
			out = append(out, card(t, "pokemon", h.CardID))
		}
		if len(out) != 102 {
			t.Fatalf("sort %s %s: %d hits, want 102", sortBy, order, len(out))
		}
		return out
	}
	t.Run("volume", func(t *testing.T) {
		for _, order := range []string{"", "asc"} {
			cs := get(index.SortVolume, order)
			for i := 1; i < len(cs); i++ {
				a, b := cs[i-1], cs[i]
				less := a.Volume30dCents < b.Volume30dCents || a.Volume30dCents == b.Volume30dCents && a.Sales30d < b.Sales30d
				if order == "asc" {
					less = a.Volume30dCents > b.Volume30dCents || a.Volume30dCents == b.Volume30dCents && a.Sales30d > b.Sales30d
				}
				if less {
					t.Fatalf("order %q: %s (%d) before %s (%d)", order, a.ID, a.Volume30dCents, b.ID, b.Volume30dCents)
				}
			}
		}
	})
	t.Run("price", func(t *testing.T) {
		for _, order := range []string{"desc", "asc"} {
			cs := get(index.SortPrice, order)
			unpriced := false
			for i, c := range cs {
				if c.PriceCents == 0 {
					unpriced = true
					continue
				}
				if unpriced {
					t.Fatalf("order %s: priced %s after an unpriced card", order, c.ID)
				}
				if i > 0 && (order == "desc" && cs[i-1].PriceCents < c.PriceCents || order == "asc" && cs[i-1].PriceCents > c.PriceCents) {
					t.Fatalf("order %s: %s (%d) before %s (%d)", order, cs[i-1].ID, cs[i-1].PriceCents, c.ID, c.PriceCents)
				}
			}
			if !unpriced {
				t.Errorf("order %s: no unpriced card in the set, test data changed?", order)
			}
		}
	})
	t.Run("name", func(t *testing.T) {
		cs := get(index.SortName, "")
		for i := 1; i < len(cs); i++ {
			if a, b := index.NormalizeText(cs[i-1].Name), index.NormalizeText(cs[i].Name); a > b {
				t.Fatalf("%q before %q", a, b)
			}
		}
		desc := get(index.SortName, "desc")
		if index.NormalizeText(desc[0].Name) < index.NormalizeText(desc[len(desc)-1].Name) {
			t.Errorf("name desc starts with %q", desc[0].Name)
		}
	})
	t.Run("relevance without text is popularity", func(t *testing.T) {
		cs := get(index.SortRelevance, "")
		if cs[0].ID != "en:base1-4" {
			t.Errorf("first = %s, want the most popular card en:base1-4", cs[0].ID)
		}
	})
	t.Run("ties in catalog order", func(t *testing.T) {
		// Two names sorted: within one name, equal text relevance ranks by
		// popularity; the order must be stable across identical requests.
		r := index.SearchRequest{Game: "onepiece", Q: "nami", Sort: index.SortName, Limit: 50}
		a, b := hitIDs(mustSearch(t, r)), hitIDs(mustSearch(t, r))
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("unstable order:\n%s", diff)
		}
	})
}

func TestSearch_Collapse(t *testing.T) {
	r := index.SearchRequest{Game: "onepiece", Q: "OP01-001", Limit: 10}
	plain := mustSearch(t, r)
	r.CollapseVariants = true
	got := mustSearch(t, r)
	if plain.Total != 6 {
		t.Errorf("OP01-001 plain Total = %d, want 6 (base prints and parallels, one in another product, two languages)", plain.Total)
	}
	if diff := cmp.Diff([]string{"en:OP01-001", "ja:OP01-001"}, hitIDs(got)); diff != "" || got.Total != 2 {
		t.Errorf("collapsed OP01-001 Total %d, hits (-want +got):\n%s", got.Total, diff)
	}

	// A broad query: no two hits of one printed card across pages.
	r = index.SearchRequest{Game: "onepiece", Q: "luffy", CollapseVariants: true}
	hits := allHits(t, r)
	seen := map[string]string{}
	for _, h := range hits {
		c := card(t, "onepiece", h.CardID)
		k, _, _ := strings.Cut(c.ID, "_")
		k, _, _ = strings.Cut(k, "@")
		if prev, dup := seen[k]; dup {
			t.Fatalf("%s and %s are one group %s", prev, h.CardID, k)
		}
		seen[k] = h.CardID
	}
	total := mustSearch(t, index.SearchRequest{Game: "onepiece", Q: "luffy", CollapseVariants: true, Limit: 1}).Total
	plainTotal := mustSearch(t, index.SearchRequest{Game: "onepiece", Q: "luffy", Limit: 1}).Total
	if total != len(hits) || total >= plainTotal {
		t.Errorf("collapsed Total %d, %d hits paged, plain Total %d", total, len(hits), plainTotal)
	}
}

func TestSearch_OffsetLimit(t *testing.T) {
	r := index.SearchRequest{Game: "pokemon", Q: "charizard", Limit: 30}
	all := mustSearch(t, r)
	var paged []string
	for off := 0; off < 30; off += 10 {
		res := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "charizard", Offset: off, Limit: 10})
		if res.Total != all.Total {
			t.Errorf("offset %d: Total %d, want %d", off, res.Total, all.Total)
		}
		paged = append(paged, hitIDs(res)...)
	}
	if diff := cmp.Diff(hitIDs(all), paged); diff != "" {
		t.Errorf("pages differ from one page (-one +pages):\n%s", diff)
	}
	def := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "charizard"})
	if len(def.Hits) != index.DefaultLimit {
		t.Errorf("Limit 0 gave %d hits, want %d", len(def.Hits), index.DefaultLimit)
	}
	past := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "charizard", Offset: all.Total + 5, Limit: 10})
	if len(past.Hits) != 0 || past.Total != all.Total {
		t.Errorf("past the end: %d hits, Total %d", len(past.Hits), past.Total)
	}
}

func TestSearch_Errors(t *testing.T) {
	ix := full(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		r    index.SearchRequest
		code string
	}{
		{"unknown game", index.SearchRequest{Game: "magic"}, apperr.ENOTFOUND},
		{"no game", index.SearchRequest{}, apperr.EINVALID},
		{"limit", index.SearchRequest{Game: "pokemon", Limit: index.MaxLimit + 1}, apperr.EINVALID},
		{"negative limit", index.SearchRequest{Game: "pokemon", Limit: -1}, apperr.EINVALID},
		{"offset", index.SearchRequest{Game: "pokemon", Offset: -1}, apperr.EINVALID},
		{"sort", index.SearchRequest{Game: "pokemon", Sort: "date"}, apperr.EINVALID},
		{"order", index.SearchRequest{Game: "pokemon", Sort: "price", Order: "up"}, apperr.EINVALID},
		{"language", index.SearchRequest{Game: "pokemon", Language: "fr"}, apperr.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ix.Search(ctx, tc.r)
			if got := apperr.ErrorCode(err); err == nil || got != tc.code {
				t.Errorf("err = %v (code %s), want code %s", err, got, tc.code)
			}
		})
	}
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := ix.Search(cctx, index.SearchRequest{Game: "pokemon", Q: "pikachu", MinPriceCents: -1, MaxPriceCents: -1})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestSearch_Highlights(t *testing.T) {
	res := mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "charizard base set 4", Limit: 1})
	h := res.Hits[0]
	if h.CardID != "en:base1-4" {
		t.Fatalf("top hit %s", h.CardID)
	}
	want := map[string]string{
		"name":     "<mark>Charizard</mark>",
		"set_name": "<mark>Base</mark>",
		"number":   "<mark>4</mark>",
	}
	for field, frag := range want {
		if !slices.ContainsFunc(h.Highlights[field], func(s string) bool { return strings.Contains(s, frag) }) {
			t.Errorf("highlights[%s] = %q, want a fragment with %q", field, h.Highlights[field], frag)
		}
	}
	// Fragments are HTML: the rest of the text is escaped.
	res = mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "blaine's charizard", Limit: 1})
	if got := strings.Join(res.Hits[0].Highlights["name"], " "); got != "<mark>Blaine&#39;s</mark> <mark>Charizard</mark>" {
		t.Errorf("name highlights %q: want escaped apostrophe and marks", got)
	}
	// Romaji and pinyin matches highlight name_alt.
	res = mustSearch(t, index.SearchRequest{Game: "pokemon", Q: "rizadon", Limit: 1})
	if got := res.Hits[0].Highlights["name_alt"]; len(got) == 0 || !strings.Contains(got[0], "<mark>rizadon</mark>") {
		t.Errorf("rizadon highlights %v", res.Hits[0].Highlights)
	}
	// No text, no highlights; collapsed pages are highlighted too.
	res = mustSearch(t, index.SearchRequest{Game: "pokemon", SetID: "en:base1", Limit: 3})
	for _, h := range res.Hits {
		if len(h.Highlights) != 0 {
			t.Errorf("empty query: highlights %v", h.Highlights)
		}
	}
	res = mustSearch(t, index.SearchRequest{Game: "onepiece", Q: "zoro", CollapseVariants: true, Limit: 5})
	for _, h := range res.Hits {
		if len(h.Highlights) == 0 {
			t.Errorf("collapsed %s: no highlights", h.CardID)
		}
	}
}

// TestSearch_Plan checks the query plan: Search ranks the cards that match
// every term of the query when there are any, else those that match all
// terms but one (from three terms on), else those that match any term (the
// broad pass); and a narrow pass ranks the cards it selects with the
// scores, and so in the order, that the broad pass gives them.
func TestSearch_Plan(t *testing.T) {
	for _, tc := range []struct {
		name, q string
		passes  int    // narrow passes plus the broad one
		ranked  int    // the pass Search ranks
		top     string // name of the top hit
	}{
		{"OneTerm", "charizard", 1, 0, "Charizard"},
		{"EveryTerm", "umbreon vmax", 2, 0, "Umbreon VMAX"},
		{"EveryCJKTerm", "噴火龍", 2, 0, "噴火龍"}, // two bigrams
		{"EveryTermTypo", "dark charizrd", 2, 0, "Dark Charizard"},
		{"AllButOne", "charizard qqqzzx vmax", 3, 1, "Charizard VMAX"},
		{"Broad", "charizard qqqzzx", 2, 1, "Charizard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := index.SearchRequest{Game: "pokemon", Q: tc.q, Limit: index.MaxLimit, MinPriceCents: -1, MaxPriceCents: -1}
			passes, err := full(t).SearchPasses(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(passes), tc.passes; got != want {
				t.Fatalf("%d passes, want %d", got, want)
			}
			ranked := slices.IndexFunc(passes, func(p index.SearchResult) bool { return p.Total > 0 })
			if got, want := ranked, tc.ranked; got != want {
				t.Fatalf("pass %d is the first that finds cards, want %d", got, want)
			}
			res := mustSearch(t, r)
			if diff := cmp.Diff(hitIDs(passes[ranked]), hitIDs(res)); diff != "" || res.Total != passes[ranked].Total {
				t.Errorf("Search (total %d) is not pass %d (total %d) (-pass +Search):\n%s", res.Total, ranked, passes[ranked].Total, diff)
			}
			if got := card(t, "pokemon", res.Hits[0].CardID).Name; got != tc.top {
				t.Errorf("top hit %s %q, want %q", res.Hits[0].CardID, got, tc.top)
			}
			broad := passes[len(passes)-1]
			broadScore := map[string]float64{}
			for _, h := range broad.Hits {
				broadScore[h.CardID] = h.Score
			}
			for i, p := range passes[:len(passes)-1] {
				var ranks []int
				for _, h := range p.Hits {
					s, ok := broadScore[h.CardID]
					if !ok {
						continue // beyond the broad pass's page
					}
					if s != h.Score {
						t.Errorf("pass %d: %s scores %v, broad pass %v", i, h.CardID, h.Score, s)
					}
					ranks = append(ranks, slices.IndexFunc(broad.Hits, func(b index.SearchHit) bool { return b.CardID == h.CardID }))
				}
				if len(p.Hits) > 0 && len(ranks) == 0 {
					t.Errorf("pass %d: none of its hits is on the broad pass's page", i)
				}
				if !slices.IsSorted(ranks) {
					t.Errorf("pass %d ranks its hits in another order than the broad pass: broad ranks %v", i, ranks)
				}
			}
		})
	}
}

// TestSearch_FuzzyTerms checks that the fuzzy terms a plan finds once
// match and score as Bleve's FuzzyQuery does.
func TestSearch_FuzzyTerms(t *testing.T) {
	for _, tc := range []struct {
		term              string
		fuzziness, prefix int
	}{
		{"charizrd", 1, 0},
		{"eeveee", 1, 0},
		{"charmandr", 2, 1},
		{"feraligatrr", 2, 1},
	} {
		want, err := full(t).FuzzyScores(tc.term, tc.fuzziness, tc.prefix, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := full(t).FuzzyScores(tc.term, tc.fuzziness, tc.prefix, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 && !raceEnabled {
			t.Errorf("%q: Bleve's fuzzy query matches nothing", tc.term)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (fuzziness %d, prefix %d): (-FuzzyQuery +plan):\n%s", tc.term, tc.fuzziness, tc.prefix, diff)
		}
	}
}
