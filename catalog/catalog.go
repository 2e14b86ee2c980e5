package catalog

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// Catalog is the views of one open snapshot's catalog, per game, each
// computed on first use and kept for the snapshot's life: the card list's
// orders (Cards), the set list's (Sets), each set's top priced cards
// (TopCards) and the trending rankings grouped by set (SetTrending). An
// adapter builds them before the snapshot serves (edge's live.Derivation
// calls Cards and Sets for every game), so that the first requests do not
// pay for them. It is safe for concurrent use.
type Catalog struct {
	r     snapshots.Reader
	games sync.Map // game -> *gameViews
}

// gameViews are the views of one game.
type gameViews struct {
	cardsOnce sync.Once
	cards     *Cards
	cardsErr  error

	setsOnce sync.Once
	sets     *Sets
	setsErr  error

	topOnce sync.Once
	top     map[string][]*snapshots.Card // by set id: its top priced cards, highest price first
	topErr  error

	trending sync.Map // metric + "\x00" + window -> *setTrending
}

// New returns the catalog views of the snapshot r reads; nothing is
// computed yet.
func New(r snapshots.Reader) *Catalog { return &Catalog{r: r} }

func (c *Catalog) game(game string) *gameViews {
	v, _ := c.games.LoadOrStore(game, &gameViews{})
	return v.(*gameViews)
}

// Cards returns the game's card views (LoadCards), computing them on first
// use.
func (c *Catalog) Cards(game string) (*Cards, error) { return c.CardsMetered(game, nil) }

// CardsMetered is Cards with the first use paced by meter (a snapshot
// opened beside the live one computes them before it serves).
func (c *Catalog) CardsMetered(game string, meter *snapshots.Meter) (*Cards, error) {
	g := c.game(game)
	g.cardsOnce.Do(func() { g.cards, g.cardsErr = LoadCards(c.r, game, meter) })
	return g.cards, g.cardsErr
}

// Sets returns the game's set views (NewSets), computing them on first use.
func (c *Catalog) Sets(game string) (*Sets, error) {
	g := c.game(game)
	g.setsOnce.Do(func() {
		sets, err := c.r.Sets(game)
		if err != nil {
			g.setsErr = err
			return
		}
		g.sets = NewSets(sets)
	})
	return g.sets, g.setsErr
}

// TopCardsPerSet is how many top cards a set shows at most.
const TopCardsPerSet = 10

// TopCards returns the top priced cards of set: of its first TopCardsPerSet
// cards by price (highest first, ties in catalog order, as the card list's
// price order), those priced above zero. Every set's are computed on first
// use.
func (c *Catalog) TopCards(game string, set *snapshots.Set) ([]*snapshots.Card, error) {
	if _, err := c.Sets(game); err != nil {
		return nil, err
	}
	g := c.game(game)
	g.topOnce.Do(func() { g.top, g.topErr = c.buildTopCards(game) })
	if g.topErr != nil {
		return nil, g.topErr
	}
	top, ok := g.top[set.ID]
	if !ok { // a set not in the directory: rank its cards now
		cards, err := c.r.SetCards(game, set.ID)
		if err != nil {
			return nil, err
		}
		co, err := c.Cards(game)
		if err != nil {
			return nil, err
		}
		top = co.topPriced(cards, TopCardsPerSet)
	}
	return top, nil
}

func (c *Catalog) buildTopCards(game string) (map[string][]*snapshots.Card, error) {
	sets, err := c.r.Sets(game)
	if err != nil {
		return nil, err
	}
	co, err := c.Cards(game)
	if err != nil {
		return nil, err
	}
	top := make(map[string][]*snapshots.Card, len(sets))
	for _, set := range sets {
		cards, err := c.r.SetCards(game, set.ID)
		if err != nil {
			return nil, err
		}
		top[set.ID] = co.topPriced(cards, TopCardsPerSet)
	}
	return top, nil
}

// SetTrending returns the rows of the game's trending ranking of metric
// and window (every language) whose card is of set setID (SetRows) under
// the liquidity rule l, in ranking order. Under the default rule it
// answers from the ranking grouped by set once (computed per ranking on
// first use, shared: read only); else it filters the precomputed rows for
// this call.
func (c *Catalog) SetTrending(game, setID, metric, window string, l pricing.Liquidity) ([]snapshots.TrendingRow, error) {
	if l.IsDefault() {
		t, err := c.setTrending(game, metric, window)
		if err != nil {
			return nil, err
		}
		return t.of(setID), nil
	}
	co, err := c.Cards(game)
	if err != nil {
		return nil, err
	}
	id, _, ok := co.sets.class(equalFoldKey(setID))
	if !ok {
		return nil, nil
	}
	all, err := c.r.TrendingRows(game, metric, window, "all")
	if err != nil {
		return nil, err
	}
	var out []snapshots.TrendingRow
	for _, row := range all {
		if int(row.Ordinal) < len(co.sets.of) && co.sets.of[row.Ordinal] == id && !math.IsNaN(row.Value) && l.Keep(int(row.SampleSize), row.PriceCents) {
			out = append(out, row)
		}
	}
	return out, nil
}

// SetRows keeps the rows of a ranking whose card (cards by ordinal: a
// game's catalog) is of set setID under strings.EqualFold, in ranking
// order: the rule SetTrending answers from its groups, for a caller
// without a Catalog.
func SetRows(rows []snapshots.TrendingRow, cards []*snapshots.Card, setID string) []snapshots.TrendingRow {
	var out []snapshots.TrendingRow
	for _, row := range rows {
		if int(row.Ordinal) < len(cards) && strings.EqualFold(cards[row.Ordinal].SetID, setID) {
			out = append(out, row)
		}
	}
	return out
}

// setTrending is one trending ranking (metric and window, every language)
// of a game under the default liquidity rule, grouped by the set class
// (Cards.sets) of its cards.
type setTrending struct {
	once sync.Once
	err  error

	classes *classes                // the game's set classes
	rows    []snapshots.TrendingRow // grouped by set class, in ranking order within a class
	start   []int                   // by class id: its group is rows[start[id]:start[id+1]]
}

// setTrending returns the game's trending ranking of metric and window
// grouped by set, computing it on first use. An error is not kept: the next
// call tries again.
func (c *Catalog) setTrending(game, metric, window string) (*setTrending, error) {
	if _, err := c.Sets(game); err != nil {
		return nil, err
	}
	g := c.game(game)
	key := metric + "\x00" + window
	v, _ := g.trending.LoadOrStore(key, &setTrending{})
	t := v.(*setTrending)
	t.once.Do(func() {
		if t.err = t.build(c, game, metric, window); t.err != nil {
			g.trending.CompareAndDelete(key, t)
		}
	})
	return t, t.err
}

func (t *setTrending) build(c *Catalog, game, metric, window string) error {
	lb, err := pricing.Trending(c.r, game, metric, window, "all", pricing.DefaultLiquidity())
	if err != nil {
		return err
	}
	co, err := c.Cards(game)
	if err != nil {
		return err
	}
	t.group(lb.Rows, co)
	return nil
}

// group fills t with rows grouped by the set classes of co.
func (t *setTrending) group(rows []snapshots.TrendingRow, co *Cards) {
	t.classes = &co.sets
	// Counting sort by class: stable, so each group keeps ranking order.
	t.start = make([]int, len(co.sets.postings)+1)
	for _, e := range rows {
		t.start[co.sets.of[e.Ordinal]+1]++
	}
	for id := 1; id < len(t.start); id++ {
		t.start[id] += t.start[id-1]
	}
	next := slices.Clone(t.start[:len(t.start)-1])
	t.rows = make([]snapshots.TrendingRow, len(rows))
	for _, e := range rows {
		id := co.sets.of[e.Ordinal]
		t.rows[next[id]] = e
		next[id]++
	}
}

// of returns the rows of the ranking whose card's set id equals setID
// under strings.EqualFold, in ranking order.
func (t *setTrending) of(setID string) []snapshots.TrendingRow {
	id, _, ok := t.classes.class(equalFoldKey(setID))
	if !ok {
		return nil
	}
	return t.rows[t.start[id]:t.start[id+1]]
}

// Counterpart finds card c's edition in another language through the
// en_card_id links: the English card a card links to, or the card of
// language lang that links to the same English card. ENOTFOUND when there
// is none.
func Counterpart(r snapshots.Reader, c *snapshots.Card, lang string) (*snapshots.Card, error) {
	if lang == "en" && c.ENCardID != "" {
		return r.Card(c.Game, c.ENCardID)
	}
	cards, err := r.Cards(c.Game)
	if err != nil {
		return nil, err
	}
	enID := c.ID
	if c.Language != "en" {
		enID = c.ENCardID
	}
	if enID != "" {
		for _, x := range cards {
			if x.Language == lang && strings.EqualFold(x.ENCardID, enID) {
				return x, nil
			}
		}
	}
	return nil, apperr.Errorf(apperr.ENOTFOUND, "card %s has no known %s edition", c.ID, lang)
}

// CardsByID resolves ids (card ids or partner product ids, resolve.ByID) in
// a game: the distinct cards they name, in first-seen order, and the ids
// that name none. The cards are what a call over many ids costs (batch,
// prices: one unit per card, at least one for the call).
func CardsByID(r snapshots.Reader, game string, ids []string) (cards []*snapshots.Card, notFound []string, err error) {
	seen := map[*snapshots.Card]bool{}
	for _, id := range ids {
		c, _, err := resolve.ByID(r, game, id)
		switch {
		case err == nil:
			if !seen[c] {
				seen[c] = true
				cards = append(cards, c)
			}
		case apperr.ErrorCode(err) == apperr.ENOTFOUND:
			notFound = append(notFound, id)
		default:
			return nil, nil, err
		}
	}
	return cards, notFound, nil
}
