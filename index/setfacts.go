package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// The set fields of the syntax (set.name, set.series, set.releaseDate,
// set.printedTotal, set.total, set.ptcgoCode, set.legalities.<format>) are
// the same on every card of a set: rather than index them on each card
// (a third of the facts of a card), Build writes each set's values into
// SetFactsFile, Open reads them, and a term of such a field becomes the
// cards of the sets it matches (index.MatchValues on each set, then the
// set field's terms of those sets).

// SetFactsFile is the file of the sets' values of the syntax's set fields
// that Build writes under its dir (JSON).
const SetFactsFile = "setfacts.json"

// setFacts is one set's values of the set fields, as cardValues gives
// them.
type setFacts struct {
	Game   string              `json:"game"`
	ID     string              `json:"id"`
	Values map[string][]string `json:"values"`
}

func (s *setFacts) value(field string) []string { return s.Values[field] }

// setField reports whether field is a set field answered per set (set.id
// is on each card's set field already).
func setField(field string) bool {
	return strings.HasPrefix(field, "set.") && field != syntax.FieldSetID
}

// setFieldValues returns set s's values of the set field (a canonical name
// of syntax.Cards), as the syntax compares them; legal and total are the
// set's legalities and total (snapshots.SetLegalities, Set.Total).
func setFieldValues(s *snapshots.Set, legal snapshots.Legalities, total int, field string) []string {
	if s == nil {
		return nil
	}
	legality := func(l string) []string {
		if l == "" {
			return nil
		}
		return []string{l}
	}
	switch field {
	case syntax.FieldSetID:
		return nonEmpty(s.ID, s.SourceID)
	case syntax.FieldSetName:
		return nonEmpty(s.Name)
	case syntax.FieldSetSeries:
		return nonEmpty(s.Series)
	case syntax.FieldSetCode:
		return nonEmpty(s.Abbreviation)
	case syntax.FieldSetReleaseDate:
		return nonEmpty(strings.ReplaceAll(s.ReleaseDate, "-", "/"))
	case syntax.FieldSetPrintedTotal:
		return []string{fmt.Sprint(s.CardCountPrinted)}
	case syntax.FieldSetTotal:
		return []string{fmt.Sprint(total)}
	case syntax.FieldSetLegalStandard:
		return legality(legal.Standard)
	case syntax.FieldSetLegalExpanded:
		return legality(legal.Expanded)
	case syntax.FieldSetLegalUnlimited:
		return legality(legal.Unlimited)
	}
	return nil
}

// writeSetFacts writes the set facts of in's sets into dir.
func writeSetFacts(dir string, in *input) error {
	out := make([]setFacts, 0, len(in.sets))
	for _, s := range in.sets {
		sf := setFacts{Game: s.Game, ID: s.ID, Values: map[string][]string{}}
		for _, f := range syntax.Fields() {
			if setField(f.Name) {
				if v := setFieldValues(s, in.setLegal[s], in.setTotal[s], f.Name); len(v) > 0 {
					sf.Values[f.Name] = v
				}
			}
		}
		out = append(out, sf)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return writeFileSync(filepath.Join(dir, SetFactsFile), b)
}

// readSetFacts reads the set facts Build wrote into dir.
func readSetFacts(dir string) ([]setFacts, error) {
	b, err := os.ReadFile(filepath.Join(dir, SetFactsFile))
	if err != nil {
		return nil, err
	}
	var out []setFacts
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, SetFactsFile, err)
	}
	return out, nil
}

// setFieldQuery matches the cards of the sets whose set field term t holds
// ("!=" and "-" as on each card: the set's values are its cards').
func (ix *Index) setFieldQuery(t syntax.Term) query.Query {
	n := &syntax.Node{Kind: syntax.NodeTerm, Term: t}
	var qs []query.Query
	for i := range ix.sets {
		s := &ix.sets[i]
		if MatchValues(n, syntax.Cards, s.value) {
			qs = append(qs, termQ(fSet, normKeyword(s.ID), 0))
		}
	}
	if len(qs) == 0 {
		return query.NewMatchNoneQuery()
	}
	return query.NewDisjunctionQuery(qs)
}
