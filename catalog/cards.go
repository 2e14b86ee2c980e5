package catalog

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"unicode"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// Cards are one game's sorted views of the catalog, computed once (a
// snapshot's Catalog keeps them), that the card list needs on every
// request:
//   - the cards sorted by each sort key and order, and each card's position
//     in every order;
//   - for the set, rarity, variant, collector number and language filters,
//     the classes of values the filter takes as equal, each card's class
//     and each class's cards (posting lists) in catalog order;
//   - the folded names and lower-case ids that Filter.Q searches, and the
//     cards of each trigram (3 bytes) in them; each card's marketplaces.
//
// List starts from the smallest class or q trigram its filters name (or
// else from every card), checks every filter on those cards only, against
// columns by ordinal, and marks the ones that pass by their position in the
// order: the page comes out in order without sorting.
type Cards struct {
	cards  []*snapshots.Card            // catalog order (index = Ordinal)
	prices []int64                      // by ordinal: the price shown (snapshots.ShownPrice)
	sorted [numOrders][]*snapshots.Card // by Order
	rank   [numOrders][]uint32          // by Order, then ordinal: position in sorted

	folded   []string    // by ordinal: index.Fold(name)
	lowerIDs []string    // by ordinal: strings.ToLower(id)
	markets  []marketSet // by ordinal

	// The set, rarity, collector number and language filters: each value
	// class (equal under the filter's comparison) has an id, each card the
	// id of its class (by ordinal), each class its cards.
	sets, rarities, numbers, languages classes
	// A card has several variants and trigrams: only the cards of each.
	// A q of 3 bytes or more is only in the cards of each of its trigrams
	// (those of the folded name and of the lower-case id).
	variants, grams classes
}

// classes groups the cards by one property: the classes of its values
// (values with one key compare equal under the filter) and their cards.
type classes struct {
	ids      map[string]uint32 // key of a value -> class id
	of       []uint32          // by ordinal: the card's class id (nil when a card has several)
	postings [][]uint32        // by class id: ordinals, ascending, each once
}

// newClasses makes the classes of a property of n cards; of is only made
// for a property with one value per card.
func newClasses(n int, oneValue bool) classes {
	cc := classes{ids: map[string]uint32{}}
	if oneValue {
		cc.of = make([]uint32, n)
	}
	return cc
}

// add puts the card of ordinal ord (ascending from call to call) in the
// class of key and returns the class id.
func (cc *classes) add(key string, ord uint32) uint32 {
	id, ok := cc.ids[key]
	if !ok {
		id = uint32(len(cc.postings))
		cc.ids[key] = id
		cc.postings = append(cc.postings, nil)
	}
	if l := cc.postings[id]; len(l) == 0 || l[len(l)-1] != ord { // a trigram twice in a name
		cc.postings[id] = append(l, ord)
	}
	return id
}

// class returns the class id of key and its cards; ok is false when no
// card has it.
func (cc *classes) class(key string) (id uint32, ords []uint32, ok bool) {
	id, ok = cc.ids[key]
	if !ok {
		return 0, nil, false
	}
	return id, cc.postings[id], true
}

// Order is one sort of the card list: a sort key and a direction
// (OrderOf).
type Order int

const numOrders = 6

// OrderOf returns the order of a sort key (volume: 30-day volume, then
// sales; name: the folded name; price: the price shown; any other key sorts
// as volume) and direction. Ties go in catalog order whatever the
// direction.
func OrderOf(key string, asc bool) Order {
	o := Order(0)
	switch key {
	case "name":
		o = 2
	case "price":
		o = 4
	}
	if asc {
		o++
	}
	return o
}

// LoadCards reads a game's cards and the price each shows
// (snapshots.ShownPrice) and builds their views; meter (nil: full speed)
// paces it, ticked per card and in the sorts' comparisons.
func LoadCards(r snapshots.Reader, game string, meter *snapshots.Meter) (*Cards, error) {
	cards, err := r.Cards(game)
	if err != nil {
		return nil, err
	}
	prices := make([]int64, len(cards))
	for i, c := range cards {
		meter.Tick()
		if prices[i], err = snapshots.ShownPrice(r, c); err != nil {
			return nil, err
		}
	}
	return newCards(cards, prices, meter), nil
}

// NewCards builds the views of cards (catalog order: cards[i].Ordinal is
// i) with the price each shows, by ordinal (nil: their PriceCents).
func NewCards(cards []*snapshots.Card, prices []int64) *Cards {
	return newCards(cards, prices, nil)
}

// newCards is NewCards paced by meter.
func newCards(cards []*snapshots.Card, prices []int64, meter *snapshots.Meter) *Cards {
	n := len(cards)
	o := &Cards{cards: cards}
	if prices == nil {
		prices = make([]int64, n)
		for i, c := range cards {
			prices[i] = c.PriceCents
		}
	}
	o.prices = prices
	o.folded, o.lowerIDs = make([]string, n), make([]string, n)
	o.markets = make([]marketSet, n)
	o.sets, o.rarities, o.numbers, o.languages = newClasses(n, true), newClasses(n, true), newClasses(n, true), newClasses(n, true)
	o.variants, o.grams = newClasses(n, false), newClasses(n, false)
	for i, c := range cards {
		meter.Tick()
		ord := uint32(i)
		o.folded[i], o.lowerIDs[i] = index.Fold(c.Name), strings.ToLower(c.ID)
		for _, text := range []string{o.folded[i], o.lowerIDs[i]} {
			for j := 0; j+3 <= len(text); j++ {
				o.grams.add(text[j:j+3], ord)
			}
		}
		o.markets[i] = newMarketSet(c)
		o.sets.of[i] = o.sets.add(equalFoldKey(c.SetID), ord)
		o.rarities.of[i] = o.rarities.add(equalFoldKey(c.Rarity), ord)
		o.numbers.of[i] = o.numbers.add(resolve.NormalizeNumber(c.Number), ord)
		o.languages.of[i] = o.languages.add(c.Language, ord)
		for _, v := range c.Variants {
			o.variants.add(equalFoldKey(v), ord)
		}
	}
	for _, key := range []string{"volume", "name", "price"} {
		for _, asc := range []bool{false, true} {
			ord := OrderOf(key, asc)
			sorted := append([]*snapshots.Card(nil), cards...)
			sortCards(sorted, key, asc, o.folded, o.prices, meter)
			rank := make([]uint32, n)
			for pos, c := range sorted {
				rank[c.Ordinal] = uint32(pos)
			}
			o.sorted[ord], o.rank[ord] = sorted, rank
		}
	}
	return o
}

// All returns the cards in catalog order (shared, read-only).
func (o *Cards) All() []*snapshots.Card { return o.cards }

// equalFoldKey maps s to a key that another string shares exactly when
// strings.EqualFold holds between them: EqualFold compares rune by rune
// (invalid UTF-8 decodes as utf8.RuneError), two runes being equal when
// they lie in one unicode.SimpleFold orbit, and each rune becomes the
// smallest rune of its orbit.
func equalFoldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// marketSet is a card's market sources and venues (the names the
// marketplace filter matches) as a set of snapshots.Marketplace.
type marketSet struct {
	bits    snapshots.MarketplaceSet // every source's marketplace
	unknown bool                     // a source that is no marketplace's name
	empty   bool                     // no source at all
}

func newMarketSet(c *snapshots.Card) marketSet {
	m := marketSet{empty: len(c.MarketSources)+len(c.Venues) == 0}
	for _, list := range [][]string{c.MarketSources, c.Venues} {
	sources:
		for _, s := range list {
			for _, mk := range snapshots.AllMarketplaces() {
				if mk.String() == s {
					m.bits |= 1 << mk
					continue sources
				}
			}
			m.unknown = true
		}
	}
	return m
}

// match is the marketplace filter over the wanted marketplaces. With only
// a card matches when it has sources and every one is wanted; else when
// any source is wanted.
func (m marketSet) match(wanted snapshots.MarketplaceSet, only bool) bool {
	if only {
		return !m.empty && !m.unknown && m.bits&^wanted == 0
	}
	return m.bits&wanted != 0
}

// Filter is the filters of a card list. A Has field turns its value's
// filter on (an empty value then matches the cards without one).
type Filter struct {
	HasSet, HasLanguage, HasRarity, HasVariant, HasNumber bool

	// SetID, Rarity and Variant compare under strings.EqualFold, Language
	// exactly, Number as resolve.NormalizeNumber makes it.
	SetID, Language, Rarity, Variant, Number string
	// Q is a substring of the folded name (index.Fold) or the lower-case
	// id; "" filters nothing. It is folded here: pass the text as asked.
	Q string
	// Markets are the marketplaces of the marketplace filter (the card's
	// market sources and venues); 0 filters nothing. With Only a card
	// matches when it has sources and all are in Markets, else when any is.
	Markets snapshots.MarketplaceSet
	Only    bool
	// Syntax is the cards the search syntax's terms select (index.Match of
	// the query's filter); nil filters nothing.
	Syntax *index.CardSet
}

// query is a Filter resolved against one game's Cards: the folded q and
// the class of each value filter.
type query struct {
	*Filter
	q                             string // index.Fold(Filter.Q)
	set, rarity, number, language uint32 // class ids of the filters f has
}

// match reports whether the card of ordinal ord passes every filter.
func (q *query) match(o *Cards, ord uint32) bool {
	f := q.Filter
	switch {
	case f.HasSet && o.sets.of[ord] != q.set,
		f.HasRarity && o.rarities.of[ord] != q.rarity,
		f.HasNumber && o.numbers.of[ord] != q.number,
		f.HasLanguage && o.languages.of[ord] != q.language,
		f.Markets != 0 && !o.markets[ord].match(f.Markets, f.Only),
		f.HasVariant && !hasFold(o.cards[ord].Variants, f.Variant),
		f.Syntax != nil && !f.Syntax.Has(ord),
		q.q != "" && !strings.Contains(o.folded[ord], q.q) && !strings.Contains(o.lowerIDs[ord], q.q):
		return false
	}
	return true
}

// resolve looks up the classes of f's value filters and the trigrams of q
// and returns, in catalog order, a superset of the cards that pass f: the
// cards of the smallest class or trigram named, or those the syntax terms
// select when they are fewer. indexed is false when f
// names none (every card is a candidate); ok is false when a named value or
// trigram has no card (none passes).
func (o *Cards) resolve(f *Filter) (q query, ords []uint32, indexed, ok bool) {
	q.Filter, q.q = f, index.Fold(f.Q)
	consider := func(cc *classes, key string) uint32 {
		id, list, found := cc.class(key)
		if !found {
			ok = false
		}
		if !indexed || len(list) < len(ords) {
			ords, indexed = list, true
		}
		return id
	}
	ok = true
	if f.HasSet {
		q.set = consider(&o.sets, equalFoldKey(f.SetID))
	}
	if f.HasRarity {
		q.rarity = consider(&o.rarities, equalFoldKey(f.Rarity))
	}
	if f.HasNumber {
		q.number = consider(&o.numbers, resolve.NormalizeNumber(f.Number))
	}
	if f.HasLanguage {
		q.language = consider(&o.languages, f.Language)
	}
	if f.HasVariant {
		consider(&o.variants, equalFoldKey(f.Variant))
	}
	for i := 0; i+3 <= len(q.q); i++ {
		consider(&o.grams, q.q[i:i+3])
	}
	if f.Syntax != nil && (!indexed || f.Syntax.Len() < len(ords)) {
		ords, indexed = f.Syntax.Ordinals(), true
	}
	return q, ords, indexed, ok
}

// List returns the cards at positions [offset, offset+limit) of those that
// pass f, in the given order, and how many pass.
func (o *Cards) List(f *Filter, order Order, offset, limit int) (page []*snapshots.Card, total int) {
	sorted := o.sorted[order]
	q, ords, indexed, ok := o.resolve(f)
	switch {
	case !ok:
		return nil, 0
	case !indexed && q.q == "" && f.Markets == 0: // no filter
		if offset < len(sorted) {
			page = sorted[offset:min(len(sorted), offset+limit)]
		}
		return page, len(sorted)
	}
	// Mark the candidates that pass at their position in the order, then
	// read the marks in order. Candidates go in catalog order: the columns
	// match reads are by ordinal.
	rank := o.rank[order]
	marks := make([]uint64, (len(sorted)+63)/64)
	mark := func(ord uint32) {
		if q.match(o, ord) {
			pos := rank[ord]
			marks[pos/64] |= 1 << (pos % 64)
			total++
		}
	}
	if indexed {
		for _, ord := range ords {
			mark(ord)
		}
	} else {
		for ord := range uint32(len(o.cards)) {
			mark(ord)
		}
	}
	i := 0
	for w := 0; w < len(marks) && i-offset < limit && offset < total; w++ {
		for word := marks[w]; word != 0 && i-offset < limit; word &= word - 1 {
			if i >= offset {
				page = append(page, sorted[w*64+bits.TrailingZeros64(word)])
			}
			i++
		}
	}
	return page, total
}

// sortCards sorts cards by key (volume: 30-day volume then sales; name, by
// the folded names indexed by ordinal; price, by the shown prices indexed by
// ordinal) in the given order, ties in catalog order whatever the order;
// meter (nil: none) is ticked per comparison.
func sortCards(cards []*snapshots.Card, key string, asc bool, folded []string, prices []int64, meter *snapshots.Meter) {
	name := func(c *snapshots.Card) string { return folded[c.Ordinal] }
	var byKey func(a, b *snapshots.Card) int
	switch key {
	case "name":
		byKey = func(a, b *snapshots.Card) int { return strings.Compare(name(a), name(b)) }
	case "price":
		byKey = func(a, b *snapshots.Card) int { return cmp.Compare(prices[a.Ordinal], prices[b.Ordinal]) }
	default:
		byKey = func(a, b *snapshots.Card) int {
			if a.Volume30dCents != b.Volume30dCents {
				return cmp.Compare(a.Volume30dCents, b.Volume30dCents)
			}
			return cmp.Compare(a.SalesAll, b.SalesAll)
		}
	}
	// Ties go in catalog order: with the ordinal last the order is total,
	// so an unstable sort gives the one result.
	slices.SortFunc(cards, func(a, b *snapshots.Card) int {
		meter.Tick()
		c := byKey(a, b)
		if !asc {
			c = -c
		}
		if c == 0 {
			return cmp.Compare(a.Ordinal, b.Ordinal)
		}
		return c
	})
}

// topPriced returns the first n of cards in the price order (highest
// first, ties in catalog order) that have a price above zero.
func (o *Cards) topPriced(cards []*snapshots.Card, n int) []*snapshots.Card {
	rank := o.rank[OrderOf("price", false)]
	sorted := slices.Clone(cards)
	slices.SortFunc(sorted, func(a, b *snapshots.Card) int { return cmp.Compare(rank[a.Ordinal], rank[b.Ordinal]) })
	var top []*snapshots.Card
	for _, c := range sorted[:min(n, len(sorted))] {
		if o.prices[c.Ordinal] > 0 {
			top = append(top, c)
		}
	}
	return top
}

func hasFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
