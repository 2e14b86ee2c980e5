package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/bench/load"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
)

// zipfS is the popularity exponent of cards, sets and typed names.
const zipfS = 1.0

// catalog is what the workloads draw from: cards and sets of the snapshot,
// most popular first (all-time verified sales), and the default game.
type catalog struct {
	manifest *snapshots.Manifest
	game0    string
	cards    []*snapshots.Card
	sets     []*snapshots.Set
	names    []typedName       // distinct card names, most popular first
	kinds    map[string]string // request path -> read-mix kind
}

// typedName is a card name and its game.
type typedName struct{ name, game string }

// readCatalog opens the live snapshot of root read-only and ranks its cards
// and sets by popularity.
func readCatalog(root string) (*catalog, error) {
	id, err := snapshots.ReadCurrent(root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, id)
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	r, err := bolt.Open(dir, m)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c := &catalog{manifest: m, game0: m.Games[0]}
	for _, g := range m.Games {
		cards, err := r.Cards(g)
		if err != nil {
			return nil, fmt.Errorf("cards of %s: %w", g, err)
		}
		c.cards = append(c.cards, cards...)
		sets, err := r.Sets(g)
		if err != nil {
			return nil, fmt.Errorf("sets of %s: %w", g, err)
		}
		for _, s := range sets {
			if s.CardCount > 0 {
				c.sets = append(c.sets, s)
			}
		}
	}
	if len(c.cards) == 0 || len(c.sets) == 0 {
		return nil, fmt.Errorf("snapshot %s has no cards or sets", dir)
	}
	slices.SortStableFunc(c.cards, func(a, b *snapshots.Card) int {
		return cmp.Or(cmp.Compare(b.SalesAll, a.SalesAll), cmp.Compare(b.Volume30dCents, a.Volume30dCents), strings.Compare(a.ID, b.ID))
	})
	slices.SortStableFunc(c.sets, func(a, b *snapshots.Set) int {
		return cmp.Or(cmp.Compare(b.Sales30d, a.Sales30d), cmp.Compare(b.CardCount, a.CardCount), strings.Compare(a.ID, b.ID))
	})
	seen := map[string]bool{}
	for _, card := range c.cards {
		n := strings.TrimSpace(card.Name)
		key := card.Game + "|" + strings.ToLower(n)
		if utf8.RuneCountInString(n) >= 3 && !seen[key] {
			seen[key] = true
			c.names = append(c.names, typedName{n, card.Game})
		}
	}
	return c, nil
}

// gameQuery returns "&game=g" (or "?game=g") when g is not the default game.
func (c *catalog) gameQuery(g string, first bool) string {
	if g == c.game0 {
		return ""
	}
	if first {
		return "?game=" + url.QueryEscape(g)
	}
	return "&game=" + url.QueryEscape(g)
}

// cardDetailInclude is the include of the card-detail workload: a card page
// with its market summary (about 2 KB of JSON).
const cardDetailInclude = "market_summary"

// cardDetailPaths draws n card-detail requests with a Zipf choice of cards.
func (c *catalog) cardDetailPaths(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	z := load.NewZipf(len(c.cards), zipfS)
	out := make([]string, n)
	for i := range out {
		card := c.cards[z.Rank(r)]
		out[i] = "/api/v3/cards/" + url.PathEscape(card.ID) + "?include=" + cardDetailInclude + c.gameQuery(card.Game, false)
	}
	return out
}

// mixEntry is one kind of request of the REST read mix with its weight.
type mixEntry struct {
	name   string
	weight int
	path   func(c *catalog, r *rand.Rand, card *snapshots.Card, set *snapshots.Set) string
}

// mix is the REST read mix (weights in percent): what a price site, a
// collection tracker and a market dashboard ask for, cards and sets drawn
// by popularity.
var mix = []mixEntry{
	{"card detail", 12, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "") + c.gameQuery(k.Game, true)
	}},
	{"card detail +market_summary", 10, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "") + "?include=market_summary" + c.gameQuery(k.Game, false)
	}},
	{"card detail +summary,grades,recent_sales", 8, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "") + "?include=market_summary,grade_breakdown,recent_sales" + c.gameQuery(k.Game, false)
	}},
	{"card sales page", 14, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "/sales") + "?limit=50" + c.gameQuery(k.Game, false)
	}},
	{"price history 90d", 10, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "/price-history") + "?grade=raw:near_mint&limit=90" + c.gameQuery(k.Game, false)
	}},
	{"price history weekly", 4, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "/price-history") + "?interval=week&limit=52" + c.gameQuery(k.Game, false)
	}},
	{"analytics", 4, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "/analytics") + "?window=3m" + c.gameQuery(k.Game, false)
	}},
	{"market history", 4, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		return cardPath(c, k, "/market-history") + "?limit=30" + c.gameQuery(k.Game, false)
	}},
	{"cards of a set", 5, func(c *catalog, r *rand.Rand, _ *snapshots.Card, s *snapshots.Set) string {
		return "/api/v3/cards?set_id=" + url.QueryEscape(s.ID) + "&limit=50" + c.gameQuery(s.Game, false)
	}},
	{"cards by volume", 2, func(c *catalog, r *rand.Rand, _ *snapshots.Card, _ *snapshots.Set) string {
		return fmt.Sprintf("/api/v3/cards?sort=volume&limit=50&offset=%d", 50*r.IntN(4))
	}},
	{"cards by name", 1, func(c *catalog, r *rand.Rand, k *snapshots.Card, _ *snapshots.Set) string {
		w := strings.Fields(k.Name)
		return "/api/v3/cards?q=" + url.QueryEscape(w[0]) + "&limit=20" + c.gameQuery(k.Game, false)
	}},
	{"trending", 8, func(c *catalog, r *rand.Rand, _ *snapshots.Card, _ *snapshots.Set) string {
		metrics := []string{"composite", "composite", "volume_pct", "price_pct", "volume_usd", "sales_count"}
		windows := []string{"7d", "30d", "30d", "90d"}
		return "/api/v3/trending?metric=" + metrics[r.IntN(len(metrics))] + "&window=" + windows[r.IntN(len(windows))] + "&limit=50"
	}},
	{"sets list", 2, func(c *catalog, r *rand.Rand, _ *snapshots.Card, _ *snapshots.Set) string {
		sorts := []string{"release_date", "volume", "name"}
		return "/api/v3/sets?sort=" + sorts[r.IntN(len(sorts))] + "&limit=50"
	}},
	{"set detail", 5, func(c *catalog, r *rand.Rand, _ *snapshots.Card, s *snapshots.Set) string {
		return "/api/v3/sets/" + url.PathEscape(s.ID) + c.gameQuery(s.Game, true)
	}},
	{"set breakdown", 3, func(c *catalog, r *rand.Rand, _ *snapshots.Card, s *snapshots.Set) string {
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/breakdown" + c.gameQuery(s.Game, true)
	}},
	{"set price distribution", 2, func(c *catalog, r *rand.Rand, _ *snapshots.Card, s *snapshots.Set) string {
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/price-distribution" + c.gameQuery(s.Game, true)
	}},
	{"set trending cards", 3, func(c *catalog, r *rand.Rand, _ *snapshots.Card, s *snapshots.Set) string {
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/trending-cards?limit=20" + c.gameQuery(s.Game, false)
	}},
	{"set volume history", 3, func(c *catalog, r *rand.Rand, _ *snapshots.Card, s *snapshots.Set) string {
		return "/api/v3/sets/" + url.PathEscape(s.ID) + "/volume-history?days=90" + c.gameQuery(s.Game, false)
	}},
}

func cardPath(_ *catalog, k *snapshots.Card, sub string) string {
	return "/api/v3/cards/" + url.PathEscape(k.ID) + sub
}

// mixPaths draws n requests of the read mix.
func (c *catalog) mixPaths(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	zc := load.NewZipf(len(c.cards), zipfS)
	zs := load.NewZipf(len(c.sets), zipfS)
	total := 0
	for _, e := range mix {
		total += e.weight
	}
	out := make([]string, n)
	for i := range out {
		w := r.IntN(total)
		e := mix[0]
		for _, m := range mix {
			if w < m.weight {
				e = m
				break
			}
			w -= m.weight
		}
		out[i] = e.path(c, r, c.cards[zc.Rank(r)], c.sets[zs.Rank(r)])
		if c.kinds == nil {
			c.kinds = map[string]string{}
		}
		c.kinds[out[i]] = e.name
	}
	return out
}

// keystroke is one typeahead request of a user.
type keystroke struct {
	user int
	at   time.Duration // since the run's start
	path string
	n    int // characters typed
}

// typing returns users typing real card names character by character:
// users arrive at a fixed rate for the given span, each picks a name by
// popularity and types it (up to maxChars characters) with one keystroke
// every interval plus a fixed per-user jitter.
func (c *catalog) typing(usersPerSec float64, span time.Duration, interval time.Duration, maxChars int, seed uint64) []keystroke {
	r := rand.New(rand.NewPCG(seed, 3))
	z := load.NewZipf(len(c.names), zipfS)
	nUsers := int(usersPerSec * span.Seconds())
	var out []keystroke
	for u := 0; u < nUsers; u++ {
		start := time.Duration(float64(u) / usersPerSec * float64(time.Second))
		tn := c.names[z.Rank(r)]
		name := []rune(tn.name)
		step := interval + time.Duration(r.IntN(int(interval/2)))
		stop := min(len(name), maxChars)
		for k := 1; k <= stop; k++ {
			q := string(name[:k])
			if strings.TrimSpace(q) == "" {
				continue
			}
			out = append(out, keystroke{user: u, at: start + time.Duration(k-1)*step, n: k,
				path: "/api/v3/lookup?q=" + url.QueryEscape(q) + "&limit=10" + c.gameQuery(tn.game, false)})
		}
	}
	slices.SortStableFunc(out, func(a, b keystroke) int { return cmp.Compare(a.at, b.at) })
	return out
}
