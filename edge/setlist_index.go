package edge

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

// setOrders are per-snapshot, per-game views of the set directory that the
// set routes need on every uncached request, computed once (the set list's
// when the snapshot opens, Snapshot.warm; the others on first use):
//   - for the set list, each set's item as encoding/json writes it, in
//     every sort order (setPage joins a page of them);
//   - for set detail, each set's top cards by price (cardOrders' price
//     order), computed on first use;
//   - for a set's trending cards, each trending ranking (metric and window)
//     grouped by the set class of its cards (cardOrders' set classes), each
//     group in ranking order, computed per ranking on first use.
//
// The set routes answer from these without sorting or scanning; the bytes
// are those of the straightforward handlers (TestSetRoutes_MatchScan and,
// over made-up ties, TestSetViews_Ties).
type setOrders struct {
	once sync.Once
	err  error

	sorted [numSetOrders][][]byte // by setOrder: the sets' list items (JSON)

	topOnce sync.Once
	topErr  error
	top     map[string][]*snapshots.Card // by set id: its top priced cards, highest price first

	trending sync.Map // metric + "\x00" + window -> *setTrending
}

// setOrder is one sort of the set list, as an index of setOrders.sorted.
type setOrder int

// setSortKeys are the set list's sort keys; a key's index is its setOrder.
var setSortKeys = [...]string{"release_date", "release_date_asc", "name", "volume", "card_count"}

const numSetOrders = len(setSortKeys)

// setOrderOf returns the order of a sort key (release_date for a key that is
// none of setSortKeys; the route's enum admits only those).
func setOrderOf(key string) setOrder {
	if i := slices.Index(setSortKeys[:], key); i >= 0 {
		return setOrder(i)
	}
	return 0
}

// setTopCards is how many top cards set detail shows at most.
const setTopCards = 10

// setOrders returns the game's set orders, computing them on first use.
func (s *snapshot) setOrders(game string) (*setOrders, error) {
	v, _ := s.setViews.LoadOrStore(game, &setOrders{})
	o := v.(*setOrders)
	o.once.Do(func() {
		sets, err := s.Sets(game)
		if err != nil {
			o.err = err
			return
		}
		o.err = o.build(sets)
	})
	return o, o.err
}

// build computes the list items of sets (catalog order) in every order.
func (o *setOrders) build(sets []*snapshots.Set) error {
	type item struct {
		set    *snapshots.Set
		folded string // index.Fold(set.Name)
		json   []byte // newSetGold(set)
	}
	items := make([]item, len(sets))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, s := range sets {
		buf.Reset()
		if err := enc.Encode(newSetGold(s)); err != nil {
			return fmt.Errorf("encode set %s: %w", s.ID, err)
		}
		items[i] = item{set: s, folded: index.Fold(s.Name), json: bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))}
	}
	for ord, key := range setSortKeys {
		sorted := slices.Clone(items)
		sort.SliceStable(sorted, func(i, j int) bool {
			return setLess(key, sorted[i].set, sorted[j].set, sorted[i].folded, sorted[j].folded)
		})
		o.sorted[ord] = make([][]byte, len(sorted))
		for i, it := range sorted {
			o.sorted[ord][i] = it.json
		}
	}
	return nil
}

// setLess is the set list's order for key: a before b, given their folded
// names; ties by id.
func setLess(key string, a, b *snapshots.Set, foldedA, foldedB string) bool {
	switch key {
	case "release_date", "release_date_asc":
		if (a.ReleaseDate == "") != (b.ReleaseDate == "") {
			return b.ReleaseDate == "" // unknown dates last either way
		}
		if a.ReleaseDate != b.ReleaseDate {
			if key == "release_date" {
				return a.ReleaseDate > b.ReleaseDate
			}
			return a.ReleaseDate < b.ReleaseDate
		}
	case "name":
		if c := strings.Compare(foldedA, foldedB); c != 0 {
			return c < 0
		}
	case "volume":
		if a.Volume30dCents != b.Volume30dCents {
			return a.Volume30dCents > b.Volume30dCents
		}
	case "card_count":
		if a.CardCount != b.CardCount {
			return a.CardCount > b.CardCount
		}
	}
	return a.ID < b.ID
}

// topCards returns the top priced cards of set (at most setTopCards, price
// above zero, highest first, ties in catalog order), computing every set's
// on first use.
func (s *snapshot) topCards(game string, set *snapshots.Set) ([]*snapshots.Card, error) {
	o, err := s.setOrders(game)
	if err != nil {
		return nil, err
	}
	o.topOnce.Do(func() { o.top, o.topErr = s.buildTopCards(game) })
	if o.topErr != nil {
		return nil, o.topErr
	}
	top, ok := o.top[set.ID]
	if !ok { // a set not in the directory: rank its cards now
		cards, err := s.SetCards(game, set.ID)
		if err != nil {
			return nil, err
		}
		co, err := s.orders(game)
		if err != nil {
			return nil, err
		}
		top = topPricedCards(cards, co)
	}
	return top, nil
}

func (s *snapshot) buildTopCards(game string) (map[string][]*snapshots.Card, error) {
	sets, err := s.Sets(game)
	if err != nil {
		return nil, err
	}
	co, err := s.orders(game)
	if err != nil {
		return nil, err
	}
	top := make(map[string][]*snapshots.Card, len(sets))
	for _, set := range sets {
		cards, err := s.SetCards(game, set.ID)
		if err != nil {
			return nil, err
		}
		top[set.ID] = topPricedCards(cards, co)
	}
	return top, nil
}

// topPricedCards returns the first setTopCards of cards in co's price order
// (highest first, ties in catalog order, as sortCards sorts by price) that
// have a price.
func topPricedCards(cards []*snapshots.Card, co *cardOrders) []*snapshots.Card {
	rank := co.rank[cardOrderOf("price", false)]
	sorted := slices.Clone(cards)
	slices.SortFunc(sorted, func(a, b *snapshots.Card) int { return cmp.Compare(rank[a.Ordinal], rank[b.Ordinal]) })
	var top []*snapshots.Card
	for _, c := range sorted[:min(setTopCards, len(sorted))] {
		if co.prices[c.Ordinal] > 0 {
			top = append(top, c)
		}
	}
	return top
}

// setTrending is one trending ranking (metric and window, every language)
// of a game under the default liquidity rule, grouped by the set class
// (cardOrders.sets) of its cards.
type setTrending struct {
	once sync.Once
	err  error

	classes *cardClasses            // the game's set classes
	rows    []snapshots.TrendingRow // grouped by set class, in ranking order within a class
	start   []int                   // by class id: its group is rows[start[id]:start[id+1]]
}

// setTrending returns the game's trending ranking of metric and window
// grouped by set, computing it on first use. An error is not kept: the next
// request tries again.
func (s *snapshot) setTrending(game, metric, window string) (*setTrending, error) {
	o, err := s.setOrders(game)
	if err != nil {
		return nil, err
	}
	key := metric + "\x00" + window
	v, _ := o.trending.LoadOrStore(key, &setTrending{})
	t := v.(*setTrending)
	t.once.Do(func() {
		if t.err = t.build(s, game, metric, window); t.err != nil {
			o.trending.CompareAndDelete(key, t)
		}
	})
	return t, t.err
}

func (t *setTrending) build(s *snapshot, game, metric, window string) error {
	lb, err := pricing.Trending(s.Reader, game, metric, window, "all", pricing.DefaultLiquidity())
	if err != nil {
		return err
	}
	co, err := s.orders(game)
	if err != nil {
		return err
	}
	t.group(lb.Rows, co)
	return nil
}

// group fills t with rows grouped by the set classes of co.
func (t *setTrending) group(rows []snapshots.TrendingRow, co *cardOrders) {
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

// setTrendingRows is the ranking of metric and window of the cards of set
// setID under the liquidity rule l: the grouped ranking (setTrending) under
// the default rule, else the precomputed rows filtered for this request.
func (s *snapshot) setTrendingRows(game, setID, metric, window string, l pricing.Liquidity) ([]snapshots.TrendingRow, error) {
	if l.IsDefault() {
		t, err := s.setTrending(game, metric, window)
		if err != nil {
			return nil, err
		}
		return t.of(setID), nil
	}
	co, err := s.orders(game)
	if err != nil {
		return nil, err
	}
	id, _, ok := co.sets.class(equalFoldKey(setID))
	if !ok {
		return nil, nil
	}
	all, err := s.TrendingRows(game, metric, window, "all")
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

// setPage is the set list payload: the bytes encoding/json writes for the
// page[setGold] of newSetGold of each set (the type schema.go documents),
// joined from the items setOrders encoded once.
type setPage struct {
	items                [][]byte
	total, offset, limit int
}

var _ jsonAppender = (*setPage)(nil)

// AppendJSON implements jsonAppender.
func (p *setPage) AppendJSON(b []byte) []byte {
	n := 64
	for _, it := range p.items {
		n += len(it) + 1
	}
	b = slices.Grow(b, n)
	b = append(b, `{"items":[`...)
	for i, it := range p.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return appendPageEnd(b, p.total, p.offset, p.limit)
}

// MarshalJSON encodes the page as AppendJSON does.
func (p *setPage) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }
