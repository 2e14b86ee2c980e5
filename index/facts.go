package index

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/snapshots"
)

// The facts field (fFacts) is one keyword field that holds, for the
// fields of the search syntax, what their own Bleve fields do not: terms
// prefixed by the field's key (its canonical name in lower case, see
// factKey):
//
//	key*        the card has a value of the field (field:*)
//	key=value   a whole value: normalizeText of a text field's value,
//	            normalizeID of a keyword field's ("!field:value", keyword
//	            fields, wildcards of whole values, hints)
//	key:run     a run of up to maxRun words of a text value (wordRuns),
//	            for the text fields that have no Bleve field of runs
//	key#n       a number (numberTerm) or a date (YYYY/MM/DD): term ranges
//
// The set fields (set.name ...) are per set, not here (setfacts.go).
// One field rather than one per syntax field: the mapping stays small, and
// every term of a field sorts together, so that a range or a wildcard of
// one field reads one stretch of the term dictionary. Fields whose values
// other Bleve fields hold are not repeated here: id (ids), set.id and set
// (set, set_code, set_exact); nor the presence of the fields every card
// has (alwaysHas).
const (
	factHas   = "*"
	factWhole = "="
	factRun   = ":"
	factSort  = "#"
	// factSortEnd follows every key#n term of a key: the open end of a
	// range.
	factSortEnd = "$"
)

// factKey is the key of a field of the syntax in the facts field.
func factKey(field string) string { return strings.ToLower(field) }

// runFact reports whether the text field has its runs in the facts field
// (the others have a Bleve field of runs, or compare whole values).
func runFact(field string) bool {
	switch field {
	case syntax.FieldArtist, syntax.FieldType, syntax.FieldColor, syntax.FieldAttack, syntax.FieldAbility,
		syntax.FieldAttribute, syntax.FieldSet, syntax.FieldReg, syntax.FieldIs:
		return false
	}
	return true
}

// wholeFact reports whether field has key=value terms: every text and
// keyword field but those whose own Bleve fields hold whole values (reg,
// is, set, id, set.id).
func wholeFact(f syntax.Field) bool {
	switch f.Name {
	case syntax.FieldReg, syntax.FieldIs, syntax.FieldSet, syntax.FieldID, syntax.FieldSetID:
		return false
	}
	return f.Kind == syntax.KindText || f.Kind == syntax.KindKeyword
}

// alwaysHas reports whether every card has a value of field (its name, id,
// language, number and set are required of a card): field:* is every card,
// and no presence term is indexed.
func alwaysHas(field string) bool {
	switch field {
	case syntax.FieldName, syntax.FieldID, syntax.FieldLang, syntax.FieldNumber, syntax.FieldSet, syntax.FieldSetID:
		return true
	}
	return false
}

// sortFact reports whether the number or date field has key#n terms (the
// others have a Bleve field of numbers).
func sortFact(f syntax.Field) bool {
	if f.Kind == syntax.KindDate {
		return true
	}
	return f.Kind == syntax.KindNumber && numericFields[f.Name] == ""
}

// cardValues is a card with what its set fields need.
type cardValues struct {
	c        *snapshots.Card
	set      *snapshots.Set // nil when unknown
	setLegal snapshots.Legalities
	setTotal int // set.total (Set.Total)
}

// values returns the card's values of field (a canonical name of
// syntax.Cards) as the syntax compares them: text and keyword values as
// printed, numbers in decimal, dates as YYYY/MM/DD, enum values in lower
// case; nil when the card has none. Empty strings are left out.
func (v *cardValues) values(field string) []string {
	c, set := v.c, v.set
	pk, op := c.Play.Pokemon, c.Play.OnePiece
	if pk == nil {
		pk = &snapshots.PokemonPlay{}
	}
	if op == nil {
		op = &snapshots.OnePiecePlay{}
	}
	ints := func(xs ...*int) []string {
		var out []string
		for _, x := range xs {
			if x != nil {
				out = append(out, strconv.Itoa(*x))
			}
		}
		return out
	}
	legal := func(want string) []string {
		var out []string
		for _, f := range snapshots.Formats {
			if pk.Legalities.Of(f) == want {
				out = append(out, f)
			}
		}
		return out
	}
	legality := func(format string) []string {
		switch l := pk.Legalities.Of(format); l {
		case snapshots.LegalityLegal, snapshots.LegalityBanned:
			return []string{l}
		}
		return nil
	}
	switch field {
	case syntax.FieldName:
		return nonEmpty(c.Name)
	case syntax.FieldArtist:
		return nonEmpty(pk.Artist)
	case syntax.FieldType:
		return nonEmpty(append(append([]string{c.Supertype}, c.Subtypes...), pk.Types...)...)
	case syntax.FieldColor:
		return nonEmpty(c.Colors...)
	case syntax.FieldHP:
		return ints(pk.HP)
	case syntax.FieldRetreat:
		return ints(pk.Retreat)
	case syntax.FieldCost:
		return ints(op.Cost)
	case syntax.FieldPower:
		return ints(op.Power)
	case syntax.FieldCounter:
		return ints(op.Counter)
	case syntax.FieldLife:
		return ints(op.Life)
	case syntax.FieldAttack:
		var out []string
		for _, a := range pk.Attacks {
			out = append(out, a.Name)
		}
		return nonEmpty(out...)
	case syntax.FieldAbility:
		var out []string
		for _, a := range pk.Abilities {
			out = append(out, a.Name)
		}
		return nonEmpty(out...)
	case syntax.FieldAttribute:
		return nonEmpty(op.Attributes...)
	case syntax.FieldLegal:
		return legal(snapshots.LegalityLegal)
	case syntax.FieldBanned:
		return legal(snapshots.LegalityBanned)
	case syntax.FieldReg:
		return nonEmpty(pk.RegulationMark)
	case syntax.FieldSet:
		if set == nil {
			return nonEmpty(c.SetID, sourceOf(c.SetID))
		}
		return nonEmpty(set.ID, set.SourceID, set.Abbreviation, set.Name)
	case syntax.FieldRarity:
		return nonEmpty(c.Rarity)
	case syntax.FieldLang:
		return nonEmpty(c.Language)
	case syntax.FieldIs:
		return nonEmpty(c.Variants...)
	case syntax.FieldID:
		ids := nonEmpty(c.ID, c.SourceID)
		if c.PartnerProductID > 0 {
			ids = append(ids, strconv.FormatInt(c.PartnerProductID, 10))
		}
		return ids
	case syntax.FieldSupertype:
		return nonEmpty(c.Supertype)
	case syntax.FieldSubtypes:
		return nonEmpty(c.Subtypes...)
	case syntax.FieldTypes:
		return nonEmpty(pk.Types...)
	case syntax.FieldLevel:
		return nonEmpty(pk.Level)
	case syntax.FieldEvolvesFrom:
		return nonEmpty(pk.EvolvesFrom)
	case syntax.FieldEvolvesTo:
		return nonEmpty(pk.EvolvesTo...)
	case syntax.FieldNumber:
		return nonEmpty(c.Number)
	case syntax.FieldDex:
		var out []string
		for _, n := range c.NationalDex {
			out = append(out, strconv.Itoa(n))
		}
		return out
	case syntax.FieldRules:
		return nonEmpty(pk.Rules...)
	case syntax.FieldFlavorText:
		return nonEmpty(pk.FlavorText)
	case syntax.FieldAncientTraitName, syntax.FieldAncientTraitText:
		if t := pk.AncientTrait; t != nil {
			if field == syntax.FieldAncientTraitName {
				return nonEmpty(t.Name)
			}
			return nonEmpty(t.Text)
		}
		return nil
	case syntax.FieldAbilityText, syntax.FieldAbilityType:
		var out []string
		for _, a := range pk.Abilities {
			switch {
			case field == syntax.FieldAbilityType:
				out = append(out, a.Type)
			case a.Text != nil:
				out = append(out, *a.Text)
			}
		}
		return nonEmpty(out...)
	case syntax.FieldAttackText, syntax.FieldAttackCost, syntax.FieldAttackDamage, syntax.FieldAttackEnergy:
		var out []string
		for _, a := range pk.Attacks {
			switch field {
			case syntax.FieldAttackText:
				if a.Text != nil {
					out = append(out, *a.Text)
				}
			case syntax.FieldAttackCost:
				out = append(out, a.Cost...)
			case syntax.FieldAttackDamage:
				out = append(out, a.Damage)
			case syntax.FieldAttackEnergy:
				out = append(out, strconv.Itoa(a.ConvertedEnergyCost()))
			}
		}
		return nonEmpty(out...)
	case syntax.FieldWeaknessType, syntax.FieldWeaknessValue, syntax.FieldResistanceType, syntax.FieldResistanceValue:
		mods := pk.Weaknesses
		if field == syntax.FieldResistanceType || field == syntax.FieldResistanceValue {
			mods = pk.Resistances
		}
		var out []string
		for _, m := range mods {
			if field == syntax.FieldWeaknessType || field == syntax.FieldResistanceType {
				out = append(out, m.Type)
			} else {
				out = append(out, m.Value)
			}
		}
		return nonEmpty(out...)
	case syntax.FieldRetreatCost:
		return pk.RetreatCost()
	case syntax.FieldLegalStandard:
		return legality("standard")
	case syntax.FieldLegalExpanded:
		return legality("expanded")
	case syntax.FieldLegalUnlimited:
		return legality("unlimited")
	case syntax.FieldSetID:
		if set == nil {
			return nonEmpty(c.SetID, sourceOf(c.SetID))
		}
		return nonEmpty(set.ID, set.SourceID)
	case syntax.FieldSetName, syntax.FieldSetSeries, syntax.FieldSetCode, syntax.FieldSetReleaseDate, syntax.FieldSetPrintedTotal,
		syntax.FieldSetTotal, syntax.FieldSetLegalStandard, syntax.FieldSetLegalExpanded, syntax.FieldSetLegalUnlimited:
		return setFieldValues(set, v.setLegal, v.setTotal, field)
	}
	return nil
}

// nonEmpty returns the strings of v that are not blank.
func nonEmpty(v ...string) []string {
	var out []string
	for _, s := range v {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// facts returns the terms of the facts field of a card.
func (v *cardValues) facts() []string {
	var out []string
	for _, f := range syntax.Fields() {
		if setField(f.Name) {
			continue // per set: setfacts.go
		}
		vals := v.values(f.Name)
		if len(vals) == 0 {
			continue
		}
		key := factKey(f.Name)
		if !alwaysHas(f.Name) {
			out = append(out, key+factHas)
		}
		switch {
		case !wholeFact(f) && f.Kind != syntax.KindEnum && !sortFact(f):
			// their own Bleve fields hold them
		case f.Kind == syntax.KindText:
			for _, x := range vals {
				if n := normalizeText(x); n != "" {
					out = append(out, key+factWhole+n)
				}
			}
			if runFact(f.Name) {
				for _, x := range vals {
					out = appendRuns(out, key+factRun, x)
				}
			}
		case f.Kind == syntax.KindKeyword:
			for _, x := range vals {
				out = append(out, key+factWhole+normalizeID(x))
			}
		case sortFact(f) && f.Kind == syntax.KindNumber:
			for _, x := range vals {
				n, _ := strconv.Atoi(x)
				out = append(out, key+factSort+numberTerm(n))
			}
		case sortFact(f):
			for _, x := range vals {
				out = append(out, key+factSort+x)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// appendRuns appends prefix + each run of wordRuns(v) to out (runs may
// repeat: facts sorts and compacts them).
func appendRuns(out []string, prefix, v string) []string {
	words := strings.Fields(normalizeText(v))
	for i := range words {
		for n := 1; n <= maxRun && i+n <= len(words); n++ {
			out = append(out, prefix+strings.Join(words[i:i+n], " "))
		}
	}
	if len(words) > maxRun {
		out = append(out, prefix+strings.Join(words, " "))
	}
	return out
}
