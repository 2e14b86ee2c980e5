package synth

import (
	"slices"
	"strconv"

	"github.com/cardedge/cardedge/snapshots"
)

// SyntheticSource is the Source of the sets and cards the large preset adds.
const SyntheticSource = "synthetic"

// Catalog turns the shipped catalog into the preset's catalog:
//
//   - CatalogFull (default): every card and set, unchanged.
//   - CatalogTiny (tiny): about 500 cards of 12 sets of both games and all four
//     languages (see TinySets): whole sets where small, otherwise a slice that
//     keeps the set's notable cards (famous characters, chase rarities,
//     alternate arts, Asian cards linked to an English card) and fills up with
//     the set's first cards. It always holds en:base1 whole (so en:base1-4,
//     Charizard), Pikachu cards in en, ja and zh-tw, part of en:sv3pt5 (151),
//     ja and zh-tw 151 cards with en_card_id, the zh-cn set, en:OP01-* and
//     ja:OP01-* cards including _p1 alternate arts, and en:OP02-006 (a red
//     Character of cost 5 and power 7000). It does not depend on seed.
//   - CatalogExpanded (large): adds synthetic reprint editions: for every set,
//     Reprints±1 (from seed) new sets "<lang>:x-<set source id>-r<k>" (k from
//     2) with Source "synthetic", the release date of the original (estimated
//     for One Piece, see ReleaseDay) and copies of its cards with ids
//     "<lang>:x-<card source id>-r<k>" (same names, numbers and rarities;
//     en_card_id points at the same reprint edition of the English card).
//
// Cards come back in catalog order: Games order, then input order within a
// game (synthetic cards after the real ones). Card pointers of real cards are
// the caller's, unmodified; Ordinal is left to the caller. Sets are copies, in
// the same order, only those that have cards, each with CardCount set.
func (p Preset) Catalog(seed int64, cards []*snapshots.Card, sets []*snapshots.Set) ([]*snapshots.Card, []*snapshots.Set) {
	cards = byGame(cards, func(c *snapshots.Card) string { return c.Game })
	sets = byGame(sets, func(s *snapshots.Set) string { return s.Game })
	switch p.Mode {
	case CatalogTiny:
		cards = tinyCards(cards)
	case CatalogExpanded:
		cards, sets = expand(seed, max(1, p.Reprints), cards, sets)
	}
	return cards, countSets(cards, sets)
}

// byGame returns xs stably ordered by game (Games order, unknown games last).
func byGame[T any](xs []T, game func(T) string) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return GameIndex(game(a)) - GameIndex(game(b)) })
	return out
}

type setKey struct{ game, id string }

// countSets copies the sets that have cards and sets their CardCount.
func countSets(cards []*snapshots.Card, sets []*snapshots.Set) []*snapshots.Set {
	counts := make(map[setKey]int, len(sets))
	for _, c := range cards {
		counts[setKey{c.Game, c.SetID}]++
	}
	out := make([]*snapshots.Set, 0, len(sets))
	for _, s := range sets {
		n := counts[setKey{s.Game, s.ID}]
		if n == 0 {
			continue
		}
		cp := *s
		cp.CardCount = n
		out = append(out, &cp)
	}
	return out
}

// TinySet is one set of the tiny catalog: Limit cards of it (0: whole), always
// including Must.
type TinySet struct {
	Game, ID string
	Limit    int
	Must     []string
}

// TinySets are the sets of the tiny catalog, in the order they are picked.
var TinySets = []TinySet{
	{"pokemon", "en:base1", 0, nil},
	{"pokemon", "en:neo1", 30, []string{"en:neo1-9"}},
	{"pokemon", "en:swsh7", 40, []string{"en:swsh7-215", "en:swsh7-218"}},
	{"pokemon", "en:sv3pt5", 60, []string{"en:sv3pt5-6", "en:sv3pt5-25", "en:sv3pt5-151", "en:sv3pt5-199"}},
	{"pokemon", "en:sv8pt5", 30, nil},
	{"pokemon", "ja:SV2a", 45, []string{"ja:SV2a-025", "ja:SV2a-201"}},
	{"pokemon", "zh-tw:SV2a", 35, []string{"zh-tw:SV2a-025"}},
	{"pokemon", "zh-cn:CSMPiC", 0, nil},
	{"onepiece", "en:OP-01", 50, []string{"en:OP01-001", "en:OP01-001_p1", "en:OP01-120", "en:OP01-120_p1", "en:OP01-024"}},
	{"onepiece", "ja:OP-01", 40, []string{"ja:OP01-001", "ja:OP01-001_p1", "ja:OP01-120"}},
	{"onepiece", "en:ST-01", 0, nil},
	{"onepiece", "en:OP-05", 30, []string{"en:OP05-119"}},
	// A red Character of cost 5 and power 7000 (the search syntax's tests).
	{"onepiece", "en:OP-02", 1, []string{"en:OP02-006"}},
}

func tinyCards(cards []*snapshots.Card) []*snapshots.Card {
	bySet := make(map[setKey][]int)
	for i, c := range cards {
		k := setKey{c.Game, c.SetID}
		bySet[k] = append(bySet[k], i)
	}
	keep := make([]bool, len(cards))
	kept := make(map[setKey]bool) // (game, card id) of kept cards
	for _, ts := range TinySets {
		idx := bySet[setKey{ts.Game, ts.ID}]
		if ts.Limit == 0 || len(idx) <= ts.Limit {
			for _, i := range idx {
				keep[i] = true
				kept[setKey{ts.Game, cards[i].ID}] = true
			}
			continue
		}
		chosen := 0
		take := func(i int) {
			if !keep[i] {
				keep[i] = true
				kept[setKey{ts.Game, cards[i].ID}] = true
				chosen++
			}
		}
		for _, i := range idx {
			if slices.Contains(ts.Must, cards[i].ID) {
				take(i)
			}
		}
		// Half of the rest: the most notable cards.
		ranked := slices.Clone(idx)
		score := func(i int) float64 {
			c := cards[i]
			s := rarityOf(c.Game, c.Rarity).pop + 1.5*famousOf(c).pop
			if isAltArt(c) {
				s += 1.5
			}
			if c.ENCardID != "" {
				s += 0.5
				if kept[setKey{c.Game, c.ENCardID}] {
					s += 2
				}
			}
			return s
		}
		scores := make(map[int]float64, len(idx))
		for _, i := range idx {
			scores[i] = score(i)
		}
		slices.SortStableFunc(ranked, func(a, b int) int {
			switch sa, sb := scores[a], scores[b]; {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return 0
		})
		half := chosen + (ts.Limit-chosen)/2
		for _, i := range ranked {
			if chosen >= half {
				break
			}
			take(i)
		}
		// The rest: the set's first cards.
		for _, i := range idx {
			if chosen >= ts.Limit {
				break
			}
			take(i)
		}
	}
	out := make([]*snapshots.Card, 0, 600)
	for i, c := range cards {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}

// expand adds the synthetic reprint editions of the large preset.
func expand(seed int64, reprints int, cards []*snapshots.Card, sets []*snapshots.Set) ([]*snapshots.Card, []*snapshots.Set) {
	h := mix64(uint64(seed) ^ 0x3c6ef372fe94f82b)
	editions := make(map[setKey]int, len(sets)) // set -> number of reprints
	setsOf := make(map[setKey]*snapshots.Set, len(sets))
	for _, s := range sets {
		k := setKey{s.Game, s.ID}
		setsOf[k] = s
		editions[k] = max(1, reprints-1+int(hashString(h, s.Game+"\x00"+s.ID)%3))
	}
	// Reprint ids of the English cards, for en_card_id.
	cardSet := make(map[setKey]setKey, len(cards))
	for _, c := range cards {
		cardSet[setKey{c.Game, c.ID}] = setKey{c.Game, c.SetID}
	}
	outCards := make([]*snapshots.Card, 0, len(cards)*(reprints+1))
	outSets := make([]*snapshots.Set, 0, len(sets)*(reprints+1))
	for gi := 0; gi <= len(Games); gi++ {
		var gameCards []*snapshots.Card
		for _, c := range cards {
			if GameIndex(c.Game) == gi {
				gameCards = append(gameCards, c)
			}
		}
		var gameSets []*snapshots.Set
		for _, s := range sets {
			if GameIndex(s.Game) == gi {
				gameSets = append(gameSets, s)
			}
		}
		outCards = append(outCards, gameCards...)
		outSets = append(outSets, gameSets...)
		maxK := 0
		for _, s := range gameSets {
			maxK = max(maxK, editions[setKey{s.Game, s.ID}])
		}
		for k := 2; k <= maxK+1; k++ {
			suffix := "-r" + strconv.Itoa(k)
			for _, s := range gameSets {
				if editions[setKey{s.Game, s.ID}]+1 < k {
					continue
				}
				cp := *s
				cp.ID = s.Language + ":x-" + s.SourceID + suffix
				cp.SourceID = "x-" + s.SourceID + suffix
				cp.Name = s.Name + " (Reprint Edition " + strconv.Itoa(k) + ")"
				if s.Abbreviation != "" {
					cp.Abbreviation = s.Abbreviation + "-R" + strconv.Itoa(k)
				}
				if d, ok := ReleaseDay(s); ok {
					cp.ReleaseDate = d.String()
				}
				cp.Source = SyntheticSource
				outSets = append(outSets, &cp)
			}
			for _, c := range gameCards {
				sk := setKey{c.Game, c.SetID}
				s := setsOf[sk]
				if s == nil || editions[sk]+1 < k {
					continue
				}
				cp := *c
				cp.ID = c.Language + ":x-" + c.SourceID + suffix
				cp.SourceID = "x-" + c.SourceID + suffix
				cp.SetID = s.Language + ":x-" + s.SourceID + suffix
				cp.Source = SyntheticSource
				cp.Subtypes = slices.Clone(c.Subtypes)
				cp.Colors = slices.Clone(c.Colors)
				cp.NationalDex = slices.Clone(c.NationalDex)
				cp.Variants = slices.Clone(c.Variants)
				cp.MarketIDs = nil // a synthetic reprint is no marketplace's product
				cp.ENCardID, cp.ENMatch = "", ""
				if c.ENCardID != "" {
					if es, ok := cardSet[setKey{c.Game, c.ENCardID}]; ok && editions[es]+1 >= k {
						if en := setsOf[es]; en != nil {
							_, src, _ := cutLang(c.ENCardID)
							cp.ENCardID = en.Language + ":x-" + src + suffix
							cp.ENMatch = c.ENMatch
						}
					}
				}
				outCards = append(outCards, &cp)
			}
		}
	}
	return outCards, outSets
}

// cutLang splits "en:base1-4" into "en" and "base1-4".
func cutLang(id string) (lang, rest string, ok bool) {
	for i := 0; i < len(id); i++ {
		if id[i] == ':' {
			return id[:i], id[i+1:], true
		}
	}
	return "", id, false
}
