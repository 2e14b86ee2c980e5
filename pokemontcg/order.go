package pokemontcg

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// SortKey is one field of orderBy: a field of the object (dotted for a
// nested one: set.releaseDate) and its direction.
type SortKey struct {
	Field string // as in Fields of the resource's sorts, lower case
	Desc  bool   // "-" before it
}

// sortKind is how a sort field compares.
type sortKind uint8

const (
	sortText    sortKind = iota // case ignored
	sortNumber                  // whole numbers
	sortNatural                 // runs of digits as numbers: 2 < 10 < TG01
)

type sortField[T any] struct {
	kind  sortKind
	value func(T) string // "" when the object has none
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func itoa(v int) string { return strconv.Itoa(v) }

// cardSorts are the fields orderBy takes on cards: every field of the card
// object (a list by its first value, a list of objects by its first
// object's field), the set's fields under "set.".
var cardSorts = func() map[string]sortField[*Card] {
	m := map[string]sortField[*Card]{
		"id":                          {sortNatural, func(c *Card) string { return c.ID }},
		"name":                        {sortText, func(c *Card) string { return c.Name }},
		"supertype":                   {sortText, func(c *Card) string { return c.Supertype }},
		"subtypes":                    {sortText, func(c *Card) string { return first(c.Subtypes) }},
		"level":                       {sortNatural, func(c *Card) string { return c.Level }},
		"hp":                          {sortNumber, func(c *Card) string { return c.HP }},
		"types":                       {sortText, func(c *Card) string { return first(c.Types) }},
		"evolvesfrom":                 {sortText, func(c *Card) string { return c.EvolvesFrom }},
		"evolvesto":                   {sortText, func(c *Card) string { return first(c.EvolvesTo) }},
		"rules":                       {sortText, func(c *Card) string { return first(c.Rules) }},
		"ancienttrait.name":           {sortText, func(c *Card) string { return traitOf(c).Name }},
		"ancienttrait.text":           {sortText, func(c *Card) string { return traitOf(c).Text }},
		"abilities.name":              {sortText, func(c *Card) string { return abilityOf(c).Name }},
		"abilities.text":              {sortText, func(c *Card) string { return abilityOf(c).Text }},
		"abilities.type":              {sortText, func(c *Card) string { return abilityOf(c).Type }},
		"attacks.name":                {sortText, func(c *Card) string { return attackOf(c).Name }},
		"attacks.text":                {sortText, func(c *Card) string { return deref(attackOf(c).Text) }},
		"attacks.damage":              {sortNatural, func(c *Card) string { return attackOf(c).Damage }},
		"attacks.cost":                {sortText, func(c *Card) string { return first(attackOf(c).Cost) }},
		"attacks.convertedenergycost": {sortNumber, func(c *Card) string { return attackEnergy(c) }},
		"weaknesses.type":             {sortText, func(c *Card) string { return modOf(c.Weaknesses).Type }},
		"weaknesses.value":            {sortNatural, func(c *Card) string { return modOf(c.Weaknesses).Value }},
		"resistances.type":            {sortText, func(c *Card) string { return modOf(c.Resistances).Type }},
		"resistances.value":           {sortNatural, func(c *Card) string { return modOf(c.Resistances).Value }},
		"retreatcost":                 {sortText, func(c *Card) string { return first(c.RetreatCost) }},
		"convertedretreatcost":        {sortNumber, func(c *Card) string { return intOf(c.ConvertedRetreatCost) }},
		"number":                      {sortNatural, func(c *Card) string { return c.Number }},
		"artist":                      {sortText, func(c *Card) string { return c.Artist }},
		"rarity":                      {sortText, func(c *Card) string { return c.Rarity }},
		"flavortext":                  {sortText, func(c *Card) string { return c.FlavorText }},
		"nationalpokedexnumbers":      {sortNumber, func(c *Card) string { return firstInt(c.NationalPokedexNumbers) }},
		"legalities.standard":         {sortText, func(c *Card) string { return c.Legalities.Standard }},
		"legalities.expanded":         {sortText, func(c *Card) string { return c.Legalities.Expanded }},
		"legalities.unlimited":        {sortText, func(c *Card) string { return c.Legalities.Unlimited }},
		"regulationmark":              {sortText, func(c *Card) string { return c.RegulationMark }},
		"images.small":                {sortText, func(c *Card) string { return c.Images.Small }},
		"images.large":                {sortText, func(c *Card) string { return c.Images.Large }},
	}
	for k, f := range setSorts {
		m["set."+k] = sortField[*Card]{f.kind, func(c *Card) string { return f.value(c.Set) }}
	}
	return m
}()

// setSorts are the fields orderBy takes on sets.
var setSorts = map[string]sortField[*Set]{
	"id":                   {sortNatural, func(s *Set) string { return s.ID }},
	"name":                 {sortText, func(s *Set) string { return s.Name }},
	"series":               {sortText, func(s *Set) string { return s.Series }},
	"printedtotal":         {sortNumber, func(s *Set) string { return itoa(s.PrintedTotal) }},
	"total":                {sortNumber, func(s *Set) string { return itoa(s.Total) }},
	"ptcgocode":            {sortText, func(s *Set) string { return s.PTCGOCode }},
	"releasedate":          {sortText, func(s *Set) string { return s.ReleaseDate }},
	"updatedat":            {sortText, func(s *Set) string { return s.UpdatedAt }},
	"legalities.standard":  {sortText, func(s *Set) string { return s.Legalities.Standard }},
	"legalities.expanded":  {sortText, func(s *Set) string { return s.Legalities.Expanded }},
	"legalities.unlimited": {sortText, func(s *Set) string { return s.Legalities.Unlimited }},
	"images.symbol":        {sortText, func(s *Set) string { return s.Images.Symbol }},
	"images.logo":          {sortText, func(s *Set) string { return s.Images.Logo }},
}

func traitOf(c *Card) AncientTrait {
	if c.AncientTrait == nil {
		return AncientTrait{}
	}
	return *c.AncientTrait
}

func abilityOf(c *Card) Ability {
	if len(c.Abilities) == 0 {
		return Ability{}
	}
	return c.Abilities[0]
}

func attackOf(c *Card) Attack {
	if len(c.Attacks) == 0 {
		return Attack{}
	}
	return c.Attacks[0]
}

func attackEnergy(c *Card) string {
	if len(c.Attacks) == 0 {
		return ""
	}
	return itoa(c.Attacks[0].ConvertedEnergyCost)
}

func modOf(m []TypeModifier) TypeModifier {
	if len(m) == 0 {
		return TypeModifier{}
	}
	return m[0]
}

func intOf(v *int) string {
	if v == nil {
		return ""
	}
	return itoa(*v)
}

func firstInt(v []int) string {
	if len(v) == 0 {
		return ""
	}
	return itoa(v[0])
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CardSortFields and SetSortFields list the fields orderBy takes, sorted
// (lower case: orderBy ignores case).
func CardSortFields() []string { return sortedKeys(cardSorts) }
func SetSortFields() []string  { return sortedKeys(setSorts) }

func sortedKeys[T any](m map[string]sortField[T]) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ParseOrderBy parses orderBy for cards ("sets": for sets): fields
// separated by commas, each with "-" before it for descending
// ("name,-number", "-set.releaseDate"), case ignored. An unknown field is
// an error naming it.
func ParseOrderBy(resource, s string) ([]SortKey, error) {
	var known func(string) bool
	switch resource {
	case "cards":
		known = func(f string) bool { _, ok := cardSorts[f]; return ok }
	case "sets":
		known = func(f string) bool { _, ok := setSorts[f]; return ok }
	default:
		return nil, fmt.Errorf("orderBy: no resource %q", resource)
	}
	var keys []SortKey
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k := SortKey{Field: strings.ToLower(strings.TrimPrefix(part, "-")), Desc: strings.HasPrefix(part, "-")}
		if !known(k.Field) {
			return nil, fmt.Errorf("orderBy: unknown field %q (see the %s fields)", strings.TrimPrefix(part, "-"), resource)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// compareValues compares two values of a sort field of kind k.
func compareValues(k sortKind, a, b string) int {
	switch k {
	case sortNumber:
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	case sortNatural:
		return natural(a, b)
	}
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// natural compares a and b with runs of digits compared as numbers
// ("2" < "10", "base1-9" < "base1-10"), other runs case-insensitively.
func natural(a, b string) int {
	for a != "" && b != "" {
		ra, rest1 := run(a)
		rb, rest2 := run(b)
		da, db := isDigit(ra[0]), isDigit(rb[0])
		var c int
		switch {
		case da && db:
			x, y := strings.TrimLeft(ra, "0"), strings.TrimLeft(rb, "0")
			if c = cmp.Compare(len(x), len(y)); c == 0 {
				c = strings.Compare(x, y)
			}
		case da:
			c = -1 // digits before letters
		case db:
			c = 1
		default:
			c = strings.Compare(strings.ToLower(ra), strings.ToLower(rb))
		}
		if c != 0 {
			return c
		}
		a, b = rest1, rest2
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// run splits s after its first run of digits or of other bytes.
func run(s string) (string, string) {
	d := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == d {
		i++
	}
	return s[:i], s[i:]
}

// missing is the rank of a card without a value: last in either
// direction.
const missing = ^uint32(0)

// ranks are one sort field's ranks of the catalog's cards, by ordinal:
// cards with equal values share a rank.
type ranks struct{ r []uint32 }

// rankOf returns the ranks of a card sort field, computing them once.
func (cat *Catalog) rankOf(field string) *ranks {
	cat.sortMu.Lock()
	defer cat.sortMu.Unlock()
	if r := cat.sortRanks[field]; r != nil {
		return r
	}
	r := cat.rank(field, cat.Card, nil)
	cat.sortRanks[field] = r
	return r
}

// rank computes the ranks of a card sort field over the catalog's cards,
// objOf giving each card's object; meter (nil: none) is ticked per card
// and per comparison.
func (cat *Catalog) rank(field string, objOf func(*snapshots.Card) *Card, meter *snapshots.Meter) *ranks {
	f := cardSorts[field]
	type kv struct {
		ord uint32
		v   string
	}
	vals := make([]kv, 0, len(cat.cards))
	r := &ranks{r: make([]uint32, cat.maxOrd)}
	for i := range r.r {
		r.r[i] = missing
	}
	for _, c := range cat.cards {
		meter.Tick()
		if v := f.value(objOf(c)); v != "" {
			vals = append(vals, kv{c.Ordinal, v})
		}
	}
	slices.SortStableFunc(vals, func(a, b kv) int {
		meter.Tick()
		return compareValues(f.kind, a.v, b.v)
	})
	rank := uint32(0)
	for i, x := range vals {
		if i > 0 && compareValues(f.kind, vals[i-1].v, x.v) != 0 {
			rank++
		}
		r.r[x.ord] = rank
	}
	return r
}

// SortCards sorts cards (cards of Cards) by keys: a card without a value
// of a key's field after those with one, in either direction; ties in
// catalog order. The first use of a field computes its ranks over the
// whole catalog; later sorts compare ranks.
func (cat *Catalog) SortCards(cards []*snapshots.Card, keys []SortKey) {
	if len(keys) == 0 {
		slices.SortFunc(cards, func(a, b *snapshots.Card) int { return cmp.Compare(a.Ordinal, b.Ordinal) })
		return
	}
	rs := make([]*ranks, len(keys))
	for i, k := range keys {
		rs[i] = cat.rankOf(k.Field)
	}
	slices.SortFunc(cards, func(a, b *snapshots.Card) int {
		for i, k := range keys {
			x, y := rs[i].r[a.Ordinal], rs[i].r[b.Ordinal]
			if x == y {
				continue
			}
			switch {
			case x == missing:
				return 1
			case y == missing:
				return -1
			case k.Desc:
				return cmp.Compare(y, x)
			}
			return cmp.Compare(x, y)
		}
		return cmp.Compare(a.Ordinal, b.Ordinal)
	})
}

// SortSets sorts sets by keys, as SortCards sorts cards (ties in catalog
// order: the order of sets as given).
func (cat *Catalog) SortSets(sets []*Set, keys []SortKey) {
	pos := make(map[*Set]int, len(cat.sets))
	for i, s := range cat.sets {
		pos[s] = i
	}
	slices.SortStableFunc(sets, func(a, b *Set) int {
		if c := compareByKeys(a, b, keys, setSorts); c != 0 {
			return c
		}
		return cmp.Compare(pos[a], pos[b])
	})
}

// compareByKeys compares a and b by keys on their values of fields: an
// empty value sorts last whatever the direction.
func compareByKeys[T any](a, b T, keys []SortKey, fields map[string]sortField[T]) int {
	for _, k := range keys {
		f := fields[k.Field]
		x, y := f.value(a), f.value(b)
		switch {
		case x == y:
			continue
		case x == "":
			return 1
		case y == "":
			return -1
		}
		c := compareValues(f.kind, x, y)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
