package catalog

import (
	"slices"
	"sort"
	"strings"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
)

// Sets are one game's set directory in every order of the set list,
// sorted once (a snapshot's Catalog keeps them).
type Sets struct {
	sorted [NumSetOrders][]*snapshots.Set // by SetOrder
}

// SetOrder is one sort of the set list, an index of SetSortKeys.
type SetOrder int

// SetSortKeys are the set list's sort keys; a key's index is its SetOrder:
// release_date, newest first (sets without a date last); release_date_asc,
// oldest first (sets without a date last); name (folded, index.Fold);
// volume, 30-day volume, highest first; card_count, most cards first. Ties
// go by set id.
var SetSortKeys = [...]string{"release_date", "release_date_asc", "name", "volume", "card_count"}

// NumSetOrders is the number of orders of the set list.
const NumSetOrders = len(SetSortKeys)

// SetOrderOf returns the order of a sort key (release_date for a key that is
// none of SetSortKeys).
func SetOrderOf(key string) SetOrder {
	if i := slices.Index(SetSortKeys[:], key); i >= 0 {
		return SetOrder(i)
	}
	return 0
}

// NewSets sorts sets (catalog order) in every order.
func NewSets(sets []*snapshots.Set) *Sets {
	type item struct {
		set    *snapshots.Set
		folded string // index.Fold(set.Name)
	}
	items := make([]item, len(sets))
	for i, s := range sets {
		items[i] = item{set: s, folded: index.Fold(s.Name)}
	}
	out := &Sets{}
	for ord, key := range SetSortKeys {
		sorted := slices.Clone(items)
		sort.SliceStable(sorted, func(i, j int) bool {
			return setLess(key, sorted[i].set, sorted[j].set, sorted[i].folded, sorted[j].folded)
		})
		out.sorted[ord] = make([]*snapshots.Set, len(sorted))
		for i, it := range sorted {
			out.sorted[ord][i] = it.set
		}
	}
	return out
}

// Sorted returns the sets in order o (shared, read-only).
func (s *Sets) Sorted(o SetOrder) []*snapshots.Set { return s.sorted[o] }

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
