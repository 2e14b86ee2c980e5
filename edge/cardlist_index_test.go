package edge

// Internal test: the card list (posting lists, text search, marks by
// position, cardPage) against a straightforward scan of the catalog.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// referenceCardsList is the card list as a plain scan: every card of the
// game in catalog order through each filter, then sorted, cut and encoded
// by encoding/json.
func referenceCardsList(tb testing.TB, r *request) ([]byte, error) {
	p := r.p
	mkList := p.str("marketplace")
	if p.has("source") && !p.has("marketplace") {
		mkList = p.str("source")
	}
	mks, err := snapshots.ParseMarketplaces(mkList)
	if err != nil {
		return nil, validationErrors{queryError("marketplace", err.Error(), "value_error", mkList, nil)}
	}
	cards, err := r.snap.Cards(r.game)
	if err != nil {
		return nil, err
	}
	q := index.Fold(strings.TrimSpace(p.str("q")))
	number := resolve.NormalizeNumber(p.str("card_number"))
	wanted := map[string]bool{}
	for _, m := range snapshots.AllMarketplaces() {
		if mks.Has(m) {
			wanted[m.String()] = true
		}
	}
	var matches []*snapshots.Card
	for _, c := range cards {
		if p.has("set_id") && !strings.EqualFold(c.SetID, p.str("set_id")) {
			continue
		}
		if p.has("language") && c.Language != p.str("language") {
			continue
		}
		if p.has("rarity") && !strings.EqualFold(c.Rarity, p.str("rarity")) {
			continue
		}
		if p.has("variant") && !hasFold(c.Variants, p.str("variant")) {
			continue
		}
		if p.has("card_number") && resolve.NormalizeNumber(c.Number) != number {
			continue
		}
		if q != "" && !strings.Contains(index.Fold(c.Name), q) && !strings.Contains(strings.ToLower(c.ID), q) {
			continue
		}
		if len(wanted) > 0 && !referenceMarketplaceMatch(c, wanted, p.str("marketplace_mode")) {
			continue
		}
		matches = append(matches, c)
	}
	sortCardsPlain(tb, r.snap.Reader, matches, p.str("sort"), p.str("order") == "asc")
	pg := paginate(matches, p.int("offset"), p.int("limit"))
	out := page[cardGold]{Total: pg.Total, Offset: pg.Offset, Limit: pg.Limit, Items: make([]cardGold, 0, len(pg.Items))}
	for _, c := range pg.Items {
		g, err := r.cardGold(c)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, g)
	}
	return stdlibJSON(tb, out), nil
}

func referenceMarketplaceMatch(c *snapshots.Card, wanted map[string]bool, mode string) bool {
	sources := append(append([]string{}, c.MarketSources...), c.Venues...)
	if mode == "only" {
		if len(sources) == 0 {
			return false
		}
		for _, s := range sources {
			if !wanted[s] {
				return false
			}
		}
		return true
	}
	for _, s := range sources {
		if wanted[s] {
			return true
		}
	}
	return false
}

// cardsListRequest parses a card-list query as the front door does.
func cardsListRequest(tb testing.TB, snap *snapshot, query string) *request {
	tb.Helper()
	s := &Server{router: newRouter()}
	s.registerRoutes()
	i := slices.IndexFunc(s.router.routes, func(rt *route) bool { return rt.name == "cards_list" })
	var args fasthttp.Args
	args.Parse(query)
	p, verrs := parseParams(&args, s.router.routes[i].params)
	if len(verrs) > 0 {
		tb.Fatalf("%s: %v", query, verrs)
	}
	game := p.str("game")
	if game == "" {
		game = snap.Manifest().Games[0]
	}
	return &request{snap: snap, p: p, game: game}
}

// cardListValues are the values the test draws each parameter from: the
// snapshot's own in their stored, other-case and other forms, and some
// that match nothing.
type cardListValues struct {
	sets, qs, numbers, rarities, variants []string
}

func newCardListValues(cards []*snapshots.Card) cardListValues {
	seen := map[string]bool{}
	add := func(list *[]string, values ...string) {
		for _, v := range values {
			if !seen[v] {
				seen[v] = true
				*list = append(*list, v)
			}
		}
	}
	var v cardListValues
	add(&v.sets, "nope", "", "EN:BASE1", " en:base1")
	add(&v.qs, "a", "zz", "char", "zardchar", "mon ex", "CHARIZARD", "pokémon", "é", "-4", "base1-4", " pika ", "op01", "of ", "ex", "1")
	add(&v.numbers, "0", "", "004", "4/102", "04/102", "OP01-001", "op01-001", "001", "999", " 4 ")
	add(&v.rarities, "nope", "", "RARE HOLO", "rare holo", "common")
	add(&v.variants, "nope", "", "HOLOFOIL", "reverse holofoil")
	for i, c := range cards {
		add(&v.sets, c.SetID, strings.ToUpper(c.SetID))
		add(&v.numbers, c.Number, "0"+c.Number)
		add(&v.rarities, c.Rarity, strings.ToLower(c.Rarity))
		add(&v.variants, c.Variants...)
		if i%7 == 0 {
			words := strings.Fields(c.Name)
			add(&v.qs, words[0], strings.ToUpper(c.Name), c.ID)
			if r := []rune(c.Name); len(r) > 4 {
				add(&v.qs, string(r[1:4]))
			}
		}
	}
	return v
}

var (
	cardListMarkets = []string{"ebay", "partner_feed,ebay", "partner", "courtyard", "collector_crypt,courtyard",
		"partner,ebay,cardmarket,mercari,yahoo_auctions", "cardmarket, mercari", "ebay,ebay"}
	cardListPages = [][2]int{{0, 50}, {0, 200}, {3, 5}, {10, 1}, {1, 2}, {1000, 50}}
)

// TestCardsList_MatchesScan compares the card list with referenceCardsList,
// byte for byte, for every single filter value in every order and for
// random combinations of filters, orders and pages, in every game.
func TestCardsList_MatchesScan(t *testing.T) {
	skipUnderRace(t)
	snap := mustTinySnapshot(t)
	check := func(t *testing.T, query string) {
		t.Helper()
		r := cardsListRequest(t, snap, query)
		want, wantErr := referenceCardsList(t, r)
		data, err := handleCardsList(r)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, want %v", query, err, wantErr)
		}
		if err != nil {
			return
		}
		got := data.(jsonAppender).AppendJSON(nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %.600s\nwant %.600s", query, got, want)
		}
	}
	orders := []string{"sort=volume&order=desc", "sort=volume&order=asc", "sort=name&order=desc", "sort=name&order=asc",
		"sort=price&order=desc", "sort=price&order=asc"}
	queries := 0
	for _, game := range snap.Manifest().Games {
		cards, err := snap.Cards(game)
		if err != nil {
			t.Fatal(err)
		}
		v := newCardListValues(cards)
		single := map[string][]string{"set_id": v.sets, "q": v.qs, "card_number": v.numbers, "rarity": v.rarities,
			"variant": v.variants, "language": {"en", "ja", "zh-cn", "zh-tw"}, "marketplace": cardListMarkets}
		t.Run(game+"/single", func(t *testing.T) {
			for name, values := range single {
				for _, value := range values {
					for i, order := range orders {
						pg := cardListPages[i%len(cardListPages)]
						check(t, fmt.Sprintf("game=%s&%s=%s&%s&offset=%d&limit=%d", game, name, url.QueryEscape(value), order, pg[0], pg[1]))
						queries++
					}
				}
			}
			for _, mode := range []string{"any", "only"} {
				for _, m := range cardListMarkets {
					check(t, "game="+game+"&source="+url.QueryEscape(m)+"&marketplace_mode="+mode)
					check(t, "game="+game+"&marketplace="+url.QueryEscape(m)+"&source=ebay&marketplace_mode="+mode+"&sort=name&limit=200")
					queries += 2
				}
			}
			check(t, "game="+game+"&marketplace=nope")
			check(t, "game="+game)
		})
		t.Run(game+"/combinations", func(t *testing.T) {
			r := rand.New(rand.NewPCG(8, uint64(len(game))))
			pick := func(list []string) string { return list[r.IntN(len(list))] }
			for range 4000 {
				q := url.Values{"game": {game}}
				if r.IntN(3) == 0 {
					q.Set("set_id", pick(v.sets))
				}
				if r.IntN(3) == 0 {
					q.Set("q", pick(v.qs))
				}
				if r.IntN(4) == 0 {
					q.Set("card_number", pick(v.numbers))
				}
				if r.IntN(4) == 0 {
					q.Set("rarity", pick(v.rarities))
				}
				if r.IntN(5) == 0 {
					q.Set("variant", pick(v.variants))
				}
				if r.IntN(5) == 0 {
					q.Set("language", pick([]string{"en", "ja", "zh-cn", "zh-tw"}))
				}
				if r.IntN(4) == 0 {
					q.Set(pick([]string{"marketplace", "source"}), pick(cardListMarkets))
					q.Set("marketplace_mode", pick([]string{"any", "only"}))
				}
				if r.IntN(4) > 0 {
					q.Set("sort", pick([]string{"volume", "name", "price"}))
					q.Set("order", pick([]string{"asc", "desc"}))
				}
				if r.IntN(2) == 0 {
					pg := cardListPages[r.IntN(len(cardListPages))]
					q.Set("offset", fmt.Sprint(pg[0]))
					q.Set("limit", fmt.Sprint(pg[1]))
				}
				check(t, q.Encode())
				queries++
			}
		})
	}
	t.Logf("%d queries", queries)
}

// TestEqualFoldKey: two strings share a key exactly when strings.EqualFold
// holds, over runes with several case forms, invalid UTF-8 and strings of
// different lengths.
func TestEqualFoldKey(t *testing.T) {
	alphabet := []string{"a", "A", "k", "K", "\u212a", "s", "S", "\u017f", "ß", "ẞ", "é", "É", "σ", "Σ", "ς", "ǅ", "ǆ", "Ǆ",
		"1", "-", ":", "\xff", "\ufffd", "İ", "i", "ı", "Ω", "\u2126", "ω"}
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range r.IntN(4) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 200000 {
		a, b := word(), word()
		if got, want := equalFoldKey(a) == equalFoldKey(b), strings.EqualFold(a, b); got != want {
			t.Fatalf("%q %q: same key %v, EqualFold %v", a, b, got, want)
		}
	}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if equalFoldKey(string(c)) != equalFoldKey(string(f)) {
				t.Fatalf("%U and %U fold together but have keys %q and %q", c, f, equalFoldKey(string(c)), equalFoldKey(string(f)))
			}
		}
	}
}

// sortCardsPlain sorts cards as the card list does, folding their names
// here rather than taking cardOrders' folded column, with the prices r
// shows (snapshots.ShownPrice; nil r: PriceCents).
func sortCardsPlain(tb testing.TB, r snapshots.Reader, cards []*snapshots.Card, key string, asc bool) {
	tb.Helper()
	n := 0
	for _, c := range cards {
		n = max(n, int(c.Ordinal)+1)
	}
	folded, prices := make([]string, n), make([]int64, n)
	for _, c := range cards {
		folded[c.Ordinal], prices[c.Ordinal] = index.Fold(c.Name), c.PriceCents
		if r != nil {
			var err error
			if prices[c.Ordinal], err = snapshots.ShownPrice(r, c); err != nil {
				tb.Fatal(err)
			}
		}
	}
	sortCards(cards, key, asc, folded, prices)
}
