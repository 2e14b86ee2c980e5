package pokemontcg

import (
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// Set is pokemontcg.io's set object, its fields in its order
// (docs/api-reference/sets/set-object.md): releaseDate is YYYY/MM/DD,
// updatedAt YYYY/MM/DD HH:MM:SS; legalities hold "Legal" only.
type Set struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Series       string     `json:"series"`
	PrintedTotal int        `json:"printedTotal"`
	Total        int        `json:"total"`
	Legalities   Legalities `json:"legalities"`
	PTCGOCode    string     `json:"ptcgoCode,omitempty"`
	ReleaseDate  string     `json:"releaseDate"`
	UpdatedAt    string     `json:"updatedAt"`
	Images       SetImages  `json:"images"`
}

// SetImages are a set's image URLs.
type SetImages struct {
	Symbol string `json:"symbol"`
	Logo   string `json:"logo"`
}

// newSet builds the set object of s with its cards in the catalog.
func (cat *Catalog) newSet(s *snapshots.Set, cards []*snapshots.Card) *Set {
	return &Set{
		ID: s.SourceID, Name: s.Name, Series: s.Series, PrintedTotal: s.CardCountPrinted, Total: s.Total(len(cards)),
		Legalities: legalities(snapshots.SetLegalities(cards)), PTCGOCode: s.Abbreviation,
		ReleaseDate: strings.ReplaceAll(s.ReleaseDate, "-", "/"), UpdatedAt: cat.updatedAt,
		Images: SetImages{Symbol: cat.imageURL(s.SourceID, "symbol"), Logo: cat.imageURL(s.SourceID, "logo")},
	}
}

// values returns the set's values of a field of syntax.Sets, for
// index.MatchValues.
func (s *Set) values(field string) []string {
	str := func(v string) []string {
		if v == "" {
			return nil
		}
		return []string{v}
	}
	switch field {
	case "id":
		return str(s.ID)
	case "name":
		return str(s.Name)
	case "series":
		return str(s.Series)
	case "ptcgoCode":
		return str(s.PTCGOCode)
	case "releaseDate":
		return str(s.ReleaseDate)
	case "printedTotal":
		return []string{strconv.Itoa(s.PrintedTotal)}
	case "total":
		return []string{strconv.Itoa(s.Total)}
	case "legalities.standard":
		return str(strings.ToLower(s.Legalities.Standard))
	case "legalities.expanded":
		return str(strings.ToLower(s.Legalities.Expanded))
	case "legalities.unlimited":
		return str(strings.ToLower(s.Legalities.Unlimited))
	}
	return nil
}

// MatchSets returns the sets (in catalog order) that q, parsed with
// syntax.Sets, matches; every set for a blank q.
func (cat *Catalog) MatchSets(q *syntax.Query) []*Set {
	var out []*Set
	for _, s := range cat.sets {
		if index.MatchValues(q.Root, syntax.Sets, s.values) {
			out = append(out, s)
		}
	}
	return out
}
