package edge

// Internal test: the list routes (card list, set list) read their
// parameters into package catalog's filters and orders and encode the
// catalog's answer as encoding/json would. The views themselves are tested
// against plain scans in package catalog.

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/cardedge/cardedge/catalog"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
	"github.com/valyala/fasthttp"
)

// routeRequest parses a query of the named route as the front door does,
// with the path variable id (when not empty).
func routeRequest(tb testing.TB, snap *snapshot, name, id, query string) *request {
	tb.Helper()
	s := &Server{router: newRouter()}
	s.registerRoutes()
	i := slices.IndexFunc(s.router.routes, func(rt *route) bool { return rt.name == name })
	if i < 0 {
		tb.Fatalf("no route %s", name)
	}
	var args fasthttp.Args
	args.Parse(query)
	p, verrs := parseParams(&args, s.router.routes[i].params)
	if len(verrs) > 0 {
		tb.Fatalf("%s %s: %v", name, query, verrs)
	}
	game := p.str("game")
	if game == "" {
		game = snap.Manifest().Games[0]
	}
	r := &request{snap: snap, p: p, game: game}
	if id != "" {
		r.vars.v[0], r.vars.n = id, 1
	}
	return r
}

// TestCardsList_Filter reads card-list queries into catalog filters.
func TestCardsList_Filter(t *testing.T) {
	snap := mustTinySnapshot(t)
	ebay, err := snapshots.ParseMarketplaces("ebay")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  catalog.Filter
	}{
		{"", catalog.Filter{}},
		{"set_id=EN:BASE1&rarity=&variant=holo", catalog.Filter{HasSet: true, SetID: "EN:BASE1", HasRarity: true, HasVariant: true, Variant: "holo"}},
		{"language=ja&card_number=004", catalog.Filter{HasLanguage: true, Language: "ja", HasNumber: true, Number: "004"}},
		{"q=+Char+", catalog.Filter{Q: "Char"}},
		{"source=ebay&marketplace_mode=only", catalog.Filter{Markets: ebay, Only: true}},
		{"marketplace=ebay&source=partner", catalog.Filter{Markets: ebay}},
	} {
		got, err := parseCardFilter(routeRequest(t, snap, "cards_list", "", tc.query).p)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.query, got, err, tc.want)
		}
	}
	if _, err := parseCardFilter(routeRequest(t, snap, "cards_list", "", "marketplace=nope").p); err == nil {
		t.Error("marketplace=nope: no error")
	}
}

// TestCardsList_Encoding: the card list's bytes are encoding/json's of the
// page[pricing.CardGold] of the cards and total the catalog lists, in every order,
// for some filters and pages, in every game.
func TestCardsList_Encoding(t *testing.T) {
	snap := mustTinySnapshot(t)
	pages := 0
	for _, game := range snap.Manifest().Games {
		for _, filter := range []string{"", "&q=a", "&set_id=en:base1", "&language=ja", "&source=ebay", "&q=zz"} {
			for _, order := range []string{"sort=volume&order=desc", "sort=name&order=asc", "sort=price&order=desc", "sort=price&order=asc"} {
				for _, pg := range [][2]int{{0, 50}, {0, 200}, {3, 5}, {1000, 50}} {
					query := fmt.Sprintf("game=%s%s&%s&offset=%d&limit=%d", game, filter, order, pg[0], pg[1])
					r := routeRequest(t, snap, "cards_list", "", query)
					data, err := handleCardsList(r)
					if err != nil {
						t.Fatalf("%s: %v", query, err)
					}
					f, _ := parseCardFilter(r.p)
					views, err := snap.catalog.Cards(game)
					if err != nil {
						t.Fatal(err)
					}
					cards, total := views.List(&f, catalog.OrderOf(r.p.str("sort"), r.p.str("order") == "asc"), pg[0], pg[1])
					want := page[pricing.CardGold]{Total: total, Offset: pg[0], Limit: pg[1], Items: []pricing.CardGold{}}
					for _, c := range cards {
						g, err := r.cardGold(c)
						if err != nil {
							t.Fatal(err)
						}
						want.Items = append(want.Items, g)
					}
					wantJSON, err := jsontext.Marshal(want) // what render writes for a payload without an appender
					if err != nil {
						t.Fatal(err)
					}
					if got := data.(jsonAppender).AppendJSON(nil); !bytes.Equal(got, wantJSON) {
						t.Fatalf("%s:\n got %.600s\nwant %.600s", query, got, wantJSON)
					}
					pages++
				}
			}
		}
	}
	t.Logf("%d pages compared", pages)
}

// TestSetsList_Encoding: the set list's bytes (items encoded once) are
// encoding/json's of the page[setGold] of the sets in the catalog's order,
// in every sort and many pages, in every game.
func TestSetsList_Encoding(t *testing.T) {
	snap := mustTinySnapshot(t)
	for _, game := range snap.Manifest().Games {
		views, err := snap.catalog.Sets(game)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range catalog.SetSortKeys {
			sorted := views.Sorted(catalog.SetOrderOf(key))
			for _, pg := range [][2]int{{0, 1}, {0, 50}, {1, 2}, {3, 5}, {len(sorted) - 1, 50}, {len(sorted), 50}, {1000, 50}} {
				query := fmt.Sprintf("game=%s&sort=%s&offset=%d&limit=%d", game, key, pg[0], pg[1])
				data, err := handleSetsList(routeRequest(t, snap, "sets_list", "", query))
				if err != nil {
					t.Fatal(err)
				}
				p := paginate(sorted, pg[0], pg[1])
				want := page[setGold]{Total: p.Total, Offset: p.Offset, Limit: p.Limit, Items: []setGold{}}
				for _, s := range p.Items {
					want.Items = append(want.Items, newSetGold(s))
				}
				wantJSON, err := jsontext.Marshal(want) // what render writes for a payload without an appender
				if err != nil {
					t.Fatal(err)
				}
				if got := data.(jsonAppender).AppendJSON(nil); !bytes.Equal(got, wantJSON) {
					t.Fatalf("%s:\n got %.600s\nwant %.600s", query, got, wantJSON)
				}
			}
		}
	}
}

// mustTinySnapshot opens the shared tiny snapshot (tinyRoot).
func mustTinySnapshot(tb testing.TB) *snapshot {
	tb.Helper()
	s := mustLive(tb, tinyRoot(tb)).Acquire().Derived(derivationName).(*snapshot)
	tb.Cleanup(s.release)
	return s
}
