package edge

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
)

// cardOrders are per-snapshot, per-game views of the catalog that the card
// list needs on every uncached request, computed once, when the snapshot
// opens (Snapshot.warm):
//   - the cards sorted by each sort key and order, and each card's position
//     in every order;
//   - for the set, rarity, variant, collector number and language filters,
//     the classes of values the filter takes as equal, each card's class
//     and each class's cards (posting lists) in catalog order;
//   - the folded names and lower-case ids that q searches, and the cards of
//     each trigram (3 bytes) in them; each card's marketplaces.
//
// A request starts from the smallest class or q trigram its filters name
// (or else from every card), checks every filter on those cards only,
// against columns by ordinal, and marks the ones that pass by their
// position in the order: the page comes out in order without sorting.
type cardOrders struct {
	once sync.Once
	err  error

	cards  []*snapshots.Card                // catalog order (index = Ordinal)
	prices []int64                          // by ordinal: the price shown (snapshots.ShownPrice)
	sorted [numCardOrders][]*snapshots.Card // by cardOrder
	rank   [numCardOrders][]uint32          // by cardOrder, then ordinal: position in sorted

	folded   []string    // by ordinal: index.Fold(name)
	lowerIDs []string    // by ordinal: strings.ToLower(id)
	markets  []marketSet // by ordinal

	// The set, rarity, collector number and language filters: each value
	// class (equal under the filter's comparison) has an id, each card the
	// id of its class (by ordinal), each class its cards.
	sets, rarities, numbers, languages cardClasses
	// A card has several variants and trigrams: only the cards of each.
	// A q of 3 bytes or more is only in the cards of each of its trigrams
	// (those of the folded name and of the lower-case id).
	variants, grams cardClasses
}

// cardClasses groups the cards by one property: the classes of its values
// (values with one key compare equal under the filter) and their cards.
type cardClasses struct {
	ids      map[string]uint32 // key of a value -> class id
	of       []uint32          // by ordinal: the card's class id (nil when a card has several)
	postings [][]uint32        // by class id: ordinals, ascending, each once
}

// newCardClasses makes the classes of a property of n cards; of is only
// made for a property with one value per card.
func newCardClasses(n int, oneValue bool) cardClasses {
	cc := cardClasses{ids: map[string]uint32{}}
	if oneValue {
		cc.of = make([]uint32, n)
	}
	return cc
}

// add puts the card of ordinal ord (ascending from call to call) in the
// class of key and returns the class id.
func (cc *cardClasses) add(key string, ord uint32) uint32 {
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
func (cc *cardClasses) class(key string) (id uint32, ords []uint32, ok bool) {
	id, ok = cc.ids[key]
	if !ok {
		return 0, nil, false
	}
	return id, cc.postings[id], true
}

// cardOrder is one sort of the card list: a sort key and an order, as an
// index of cardOrders.sorted.
type cardOrder int

const numCardOrders = 6

// cardOrderOf returns the order of a sort key (volume, name, price; any
// other key sorts as volume, as sortCards does) and direction.
func cardOrderOf(key string, asc bool) cardOrder {
	o := cardOrder(0)
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

// orders returns the game's card orders, computing them on first use.
func (s *snapshot) orders(game string) (*cardOrders, error) {
	v, _ := s.cardOrders.LoadOrStore(game, &cardOrders{})
	o := v.(*cardOrders)
	o.once.Do(func() {
		cards, err := s.Cards(game)
		if err != nil {
			o.err = err
			return
		}
		prices := make([]int64, len(cards))
		for i, c := range cards {
			if prices[i], err = snapshots.ShownPrice(s.Reader, c); err != nil {
				o.err = err
				return
			}
		}
		o.build(cards, prices)
	})
	return o, o.err
}

// build computes the views of cards (catalog order) with their shown prices
// (by ordinal; nil: their PriceCents).
func (o *cardOrders) build(cards []*snapshots.Card, prices []int64) {
	n := len(cards)
	o.cards = cards
	if prices == nil {
		prices = make([]int64, n)
		for i, c := range cards {
			prices[i] = c.PriceCents
		}
	}
	o.prices = prices
	o.folded, o.lowerIDs = make([]string, n), make([]string, n)
	o.markets = make([]marketSet, n)
	o.sets, o.rarities, o.numbers, o.languages = newCardClasses(n, true), newCardClasses(n, true), newCardClasses(n, true), newCardClasses(n, true)
	o.variants, o.grams = newCardClasses(n, false), newCardClasses(n, false)
	for i, c := range cards {
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
			ord := cardOrderOf(key, asc)
			sorted := append([]*snapshots.Card(nil), cards...)
			sortCards(sorted, key, asc, o.folded, o.prices)
			rank := make([]uint32, n)
			for pos, c := range sorted {
				rank[c.Ordinal] = uint32(pos)
			}
			o.sorted[ord], o.rank[ord] = sorted, rank
		}
	}
}

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
	bits    uint32 // 1 << Marketplace of every source
	unknown bool   // a source that is no marketplace's name
	empty   bool   // no source at all
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

// match is the marketplace filter: wanted holds 1 << Marketplace of the
// listed marketplaces. With only (marketplace_mode=only) a card matches when
// it has sources and every one is listed; else when any source is listed.
func (m marketSet) match(wanted uint32, only bool) bool {
	if only {
		return !m.empty && !m.unknown && m.bits&^wanted == 0
	}
	return m.bits&wanted != 0
}

// cardFilter holds the filters of a card-list request, parsed once.
type cardFilter struct {
	hasSet, hasLanguage, hasRarity, hasVariant, hasNumber bool

	setID, language, rarity, variant string
	number                           string // resolve.NormalizeNumber(card_number)
	q                                string // index.Fold(trimmed q); "" filters nothing
	markets                          uint32 // 1 << Marketplace of the listed ones; 0 filters nothing
	only                             bool   // marketplace_mode=only
	// syntax is the cards the search syntax's terms of q select
	// (index.Match of the query's filter); nil filters nothing.
	syntax *index.CardSet
}

// cardQuery is a cardFilter resolved against one game's cardOrders: the
// class of each value filter.
type cardQuery struct {
	*cardFilter
	set, rarity, number, language uint32 // class ids of the filters f has
}

// match reports whether the card of ordinal ord passes every filter.
func (q *cardQuery) match(o *cardOrders, ord uint32) bool {
	f := q.cardFilter
	switch {
	case f.hasSet && o.sets.of[ord] != q.set,
		f.hasRarity && o.rarities.of[ord] != q.rarity,
		f.hasNumber && o.numbers.of[ord] != q.number,
		f.hasLanguage && o.languages.of[ord] != q.language,
		f.markets != 0 && !o.markets[ord].match(f.markets, f.only),
		f.hasVariant && !hasFold(o.cards[ord].Variants, f.variant),
		f.syntax != nil && !f.syntax.Has(ord),
		f.q != "" && !strings.Contains(o.folded[ord], f.q) && !strings.Contains(o.lowerIDs[ord], f.q):
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
func (o *cardOrders) resolve(f *cardFilter) (q cardQuery, ords []uint32, indexed, ok bool) {
	q.cardFilter = f
	consider := func(cc *cardClasses, key string) uint32 {
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
	if f.hasSet {
		q.set = consider(&o.sets, equalFoldKey(f.setID))
	}
	if f.hasRarity {
		q.rarity = consider(&o.rarities, equalFoldKey(f.rarity))
	}
	if f.hasNumber {
		q.number = consider(&o.numbers, f.number)
	}
	if f.hasLanguage {
		q.language = consider(&o.languages, f.language)
	}
	if f.hasVariant {
		consider(&o.variants, equalFoldKey(f.variant))
	}
	for i := 0; i+3 <= len(f.q); i++ {
		consider(&o.grams, f.q[i:i+3])
	}
	if f.syntax != nil && (!indexed || f.syntax.Len() < len(ords)) {
		ords, indexed = f.syntax.Ordinals(), true
	}
	return q, ords, indexed, ok
}

// list returns the cards at positions [offset, offset+limit) of those that
// pass f, in the given order, and how many pass.
func (o *cardOrders) list(f *cardFilter, order cardOrder, offset, limit int) (page []*snapshots.Card, total int) {
	sorted := o.sorted[order]
	q, ords, indexed, ok := o.resolve(f)
	switch {
	case !ok:
		return nil, 0
	case !indexed && f.q == "" && f.markets == 0: // no filter
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
// ordinal) in the given order, ties in catalog order whatever the order.
func sortCards(cards []*snapshots.Card, key string, asc bool, folded []string, prices []int64) {
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

func hasFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
