package syntax

import "strings"

// Kind is what a field's value is, and so how it compares.
type Kind uint8

const (
	// KindText takes any value: the words of the value must be words of a
	// value of the field, side by side (rarity:holo matches "Rare Holo");
	// with "!" the whole value (!rarity:"rare holo"). Compared with ":"
	// (or "=") and "!=".
	KindText Kind = iota
	// KindNumber takes a whole number, compared with any operator or a
	// range.
	KindNumber
	// KindEnum takes one of the field's Values (any case), with ":" (or
	// "=") and "!=".
	KindEnum
	// KindKeyword takes a whole value (an id, a collector number, a code),
	// case-insensitive, with ":" (or "=") and "!=".
	KindKeyword
	// KindDate takes a date, YYYY/MM/DD or YYYY-MM-DD, compared with any
	// operator or a range.
	KindDate
)

// Field is one field of the syntax.
type Field struct {
	Name    string   // canonical name, as Term.Field holds it
	Aliases []string // other names accepted for it
	Kind    Kind
	Values  []string // KindEnum: the values, lower case
	Doc     string   // what it matches, for the documentation
	// PokemonTCG marks the field names of pokemontcg.io's q (its own name
	// or one of Aliases is theirs).
	PokemonTCG bool
}

// Field names, as Term.Field holds them.
const (
	FieldName      = "name"
	FieldArtist    = "artist"
	FieldType      = "type"
	FieldColor     = "color"
	FieldHP        = "hp"
	FieldCost      = "cost"
	FieldPower     = "power"
	FieldCounter   = "counter"
	FieldRetreat   = "retreat"
	FieldLife      = "life"
	FieldAttack    = "attack"
	FieldAbility   = "ability"
	FieldAttribute = "attribute"
	FieldLegal     = "legal"
	FieldBanned    = "banned"
	FieldReg       = "reg"
	FieldSet       = "set"
	FieldRarity    = "rarity"
	FieldLang      = "lang"
	FieldIs        = "is"

	// The fields of pokemontcg.io's q (dotted names are nested fields of
	// its card object).
	FieldID                = "id"
	FieldSupertype         = "supertype"
	FieldSubtypes          = "subtypes"
	FieldTypes             = "types"
	FieldLevel             = "level"
	FieldEvolvesFrom       = "evolvesFrom"
	FieldEvolvesTo         = "evolvesTo"
	FieldNumber            = "number"
	FieldDex               = "nationalPokedexNumbers"
	FieldRules             = "rules"
	FieldFlavorText        = "flavorText"
	FieldAncientTraitName  = "ancientTrait.name"
	FieldAncientTraitText  = "ancientTrait.text"
	FieldAbilityText       = "abilities.text"
	FieldAbilityType       = "abilities.type"
	FieldAttackText        = "attacks.text"
	FieldAttackCost        = "attacks.cost"
	FieldAttackDamage      = "attacks.damage"
	FieldAttackEnergy      = "attacks.convertedEnergyCost"
	FieldWeaknessType      = "weaknesses.type"
	FieldWeaknessValue     = "weaknesses.value"
	FieldResistanceType    = "resistances.type"
	FieldResistanceValue   = "resistances.value"
	FieldRetreatCost       = "retreatCost"
	FieldLegalStandard     = "legalities.standard"
	FieldLegalExpanded     = "legalities.expanded"
	FieldLegalUnlimited    = "legalities.unlimited"
	FieldSetID             = "set.id"
	FieldSetName           = "set.name"
	FieldSetSeries         = "set.series"
	FieldSetCode           = "set.ptcgoCode"
	FieldSetReleaseDate    = "set.releaseDate"
	FieldSetPrintedTotal   = "set.printedTotal"
	FieldSetTotal          = "set.total"
	FieldSetLegalStandard  = "set.legalities.standard"
	FieldSetLegalExpanded  = "set.legalities.expanded"
	FieldSetLegalUnlimited = "set.legalities.unlimited"
)

var formats = []string{"standard", "expanded", "unlimited"}

// legality is the value of a legalities.<format> field: pokemontcg.io
// writes Legal or Banned, and leaves a format out where the card is not
// legal.
var legality = []string{"legal", "banned"}

// cardFields are the fields of card queries, in documentation order.
var cardFields = []Field{
	{Name: FieldName, Kind: KindText, PokemonTCG: true, Doc: "words of the card name (any language, its romaji or pinyin, the linked English name)"},
	{Name: FieldArtist, Aliases: []string{"a"}, Kind: KindText, PokemonTCG: true, Doc: "the illustrator, or whole words of the name (Pokémon)"},
	{Name: FieldType, Aliases: []string{"t"}, Kind: KindText, Doc: "Pokémon: energy type, supertype or subtype (water, trainer, supporter, \"stage 2\", ex); One Piece: type / affiliation or card category (\"straw hat crew\", character, leader)"},
	{Name: FieldColor, Aliases: []string{"c"}, Kind: KindText, Doc: "card color: Pokémon energy color (fire), One Piece color (red)"},
	{Name: FieldHP, Kind: KindNumber, PokemonTCG: true, Doc: "Pokémon HP"},
	{Name: FieldCost, Kind: KindNumber, Doc: "One Piece cost"},
	{Name: FieldPower, Aliases: []string{"pow"}, Kind: KindNumber, Doc: "One Piece power"},
	{Name: FieldCounter, Kind: KindNumber, Doc: "One Piece counter"},
	{Name: FieldRetreat, Aliases: []string{"convertedRetreatCost"}, Kind: KindNumber, PokemonTCG: true, Doc: "Pokémon retreat cost"},
	{Name: FieldLife, Kind: KindNumber, Doc: "One Piece life (leaders)"},
	{Name: FieldAttack, Aliases: []string{"attacks.name"}, Kind: KindText, PokemonTCG: true, Doc: "an attack name, or whole words of one (Pokémon)"},
	{Name: FieldAbility, Aliases: []string{"abilities.name"}, Kind: KindText, PokemonTCG: true, Doc: "an ability name, or whole words of one (Pokémon)"},
	{Name: FieldAttribute, Aliases: []string{"attr"}, Kind: KindText, Doc: "One Piece attribute (slash, strike, ranged, special, wisdom)"},
	{Name: FieldLegal, Aliases: []string{"f", "format"}, Kind: KindEnum, Values: formats, Doc: "legal in a Pokémon format"},
	{Name: FieldBanned, Kind: KindEnum, Values: formats, Doc: "banned in a Pokémon format"},
	{Name: FieldReg, Aliases: []string{"regulation", "regulationMark"}, Kind: KindText, PokemonTCG: true, Doc: "Pokémon regulation mark (g, h)"},
	{Name: FieldSet, Aliases: []string{"s"}, Kind: KindText, Doc: "set id, set code or abbreviation, or whole set name (base1, en:sv3pt5, MEW, op-01, \"base set\")"},
	{Name: FieldRarity, Aliases: []string{"r"}, Kind: KindText, PokemonTCG: true, Doc: "words of the rarity (holo, \"rare holo\", sr); !r: the whole rarity"},
	{Name: FieldLang, Aliases: []string{"language"}, Kind: KindEnum, Values: []string{"en", "ja", "zh-cn", "zh-tw"}, Doc: "card language"},
	{Name: FieldIs, Kind: KindText, Doc: "a printing the card has: 1st-edition, reverse, holo, normal, shadowless, alternate-art, or any part of a variant (pokeball, masterball, staff ...)"},

	{Name: FieldID, Kind: KindKeyword, PokemonTCG: true, Doc: "the card id, with or without its language (base1-4, en:base1-4)"},
	{Name: FieldSupertype, Kind: KindText, PokemonTCG: true, Doc: "supertype (Pokémon, Trainer, Energy; One Piece: Leader, Character ...)"},
	{Name: FieldSubtypes, Kind: KindText, PokemonTCG: true, Doc: "a subtype (Basic, \"Stage 2\", VMAX, Supporter; One Piece: a type)"},
	{Name: FieldTypes, Kind: KindText, PokemonTCG: true, Doc: "a Pokémon energy type (Fire, Water)"},
	{Name: FieldLevel, Kind: KindKeyword, PokemonTCG: true, Doc: "the level printed on older Pokémon (76, X)"},
	{Name: FieldEvolvesFrom, Kind: KindText, PokemonTCG: true, Doc: "the Pokémon it evolves from"},
	{Name: FieldEvolvesTo, Kind: KindText, PokemonTCG: true, Doc: "a Pokémon it evolves to (built with pokemon-tcg-data)"},
	{Name: FieldNumber, Kind: KindKeyword, PokemonTCG: true, Doc: "the collector number as printed (4, TG01)"},
	{Name: FieldDex, Kind: KindNumber, PokemonTCG: true, Doc: "a National Pokédex number of the card"},
	{Name: FieldRules, Kind: KindText, PokemonTCG: true, Doc: "rules text (built with pokemon-tcg-data)"},
	{Name: FieldFlavorText, Kind: KindText, PokemonTCG: true, Doc: "flavor text (built with pokemon-tcg-data)"},
	{Name: FieldAncientTraitName, Kind: KindText, PokemonTCG: true, Doc: "the ancient trait's name (built with pokemon-tcg-data)"},
	{Name: FieldAncientTraitText, Kind: KindText, PokemonTCG: true, Doc: "the ancient trait's text (built with pokemon-tcg-data)"},
	{Name: FieldAbilityText, Kind: KindText, PokemonTCG: true, Doc: "an ability's text (built with pokemon-tcg-data)"},
	{Name: FieldAbilityType, Kind: KindText, PokemonTCG: true, Doc: "an ability's kind (Ability, \"Pokémon Power\", \"Poké-Body\")"},
	{Name: FieldAttackText, Kind: KindText, PokemonTCG: true, Doc: "an attack's text (built with pokemon-tcg-data)"},
	{Name: FieldAttackCost, Kind: KindText, PokemonTCG: true, Doc: "an energy type of an attack's cost"},
	{Name: FieldAttackDamage, Kind: KindKeyword, PokemonTCG: true, Doc: "an attack's damage as printed (30, 30+, 100×)"},
	{Name: FieldAttackEnergy, Kind: KindNumber, PokemonTCG: true, Doc: "an attack's converted energy cost"},
	{Name: FieldWeaknessType, Kind: KindText, PokemonTCG: true, Doc: "a weakness's type"},
	{Name: FieldWeaknessValue, Kind: KindKeyword, PokemonTCG: true, Doc: "a weakness's value as printed (×2)"},
	{Name: FieldResistanceType, Kind: KindText, PokemonTCG: true, Doc: "a resistance's type"},
	{Name: FieldResistanceValue, Kind: KindKeyword, PokemonTCG: true, Doc: "a resistance's value as printed (-30)"},
	{Name: FieldRetreatCost, Kind: KindText, PokemonTCG: true, Doc: "an energy of the retreat cost (Colorless)"},
	{Name: FieldLegalStandard, Kind: KindEnum, Values: legality, PokemonTCG: true, Doc: "legal or banned in Standard"},
	{Name: FieldLegalExpanded, Kind: KindEnum, Values: legality, PokemonTCG: true, Doc: "legal or banned in Expanded"},
	{Name: FieldLegalUnlimited, Kind: KindEnum, Values: legality, PokemonTCG: true, Doc: "legal or banned in Unlimited"},
	{Name: FieldSetID, Kind: KindKeyword, PokemonTCG: true, Doc: "the set id, with or without its language (base1, en:base1)"},
	{Name: FieldSetName, Kind: KindText, PokemonTCG: true, Doc: "words of the set name"},
	{Name: FieldSetSeries, Kind: KindText, PokemonTCG: true, Doc: "words of the set's series (Base, \"Sword & Shield\")"},
	{Name: FieldSetCode, Kind: KindKeyword, PokemonTCG: true, Doc: "the set's code (PTCGO code: BS, SVI)"},
	{Name: FieldSetReleaseDate, Kind: KindDate, PokemonTCG: true, Doc: "the set's release date"},
	{Name: FieldSetPrintedTotal, Kind: KindNumber, PokemonTCG: true, Doc: "the set size printed on its cards"},
	{Name: FieldSetTotal, Kind: KindNumber, PokemonTCG: true, Doc: "the set's cards, secret rares included"},
	{Name: FieldSetLegalStandard, Kind: KindEnum, Values: legality[:1], PokemonTCG: true, Doc: "the set is legal in Standard"},
	{Name: FieldSetLegalExpanded, Kind: KindEnum, Values: legality[:1], PokemonTCG: true, Doc: "the set is legal in Expanded"},
	{Name: FieldSetLegalUnlimited, Kind: KindEnum, Values: legality[:1], PokemonTCG: true, Doc: "the set is legal in Unlimited"},
}

// setFields are the fields of set queries (pokemontcg.io's /v2/sets): the
// set fields of cards, without "set.".
var setFields = func() []Field {
	var out []Field
	for _, f := range cardFields {
		if strings.HasPrefix(f.Name, "set.") {
			f.Name = strings.TrimPrefix(f.Name, "set.")
			out = append(out, f)
		}
	}
	return out
}()

// A Schema is the fields a query may name. Cards is the schema of card
// queries (Parse), Sets that of set queries.
type Schema struct {
	fields []Field
	byName map[string]*Field // lower-case name or alias
	known  []string
}

// NewSchema returns the schema of fields. Names and aliases are looked up
// in any case; they must be unique.
func NewSchema(fields []Field) *Schema {
	s := &Schema{fields: fields, byName: map[string]*Field{}}
	for i := range fields {
		f := &fields[i]
		s.byName[strings.ToLower(f.Name)] = f
		for _, a := range f.Aliases {
			s.byName[strings.ToLower(a)] = f
		}
		k := f.Name
		if len(f.Aliases) > 0 {
			k += " (" + strings.Join(f.Aliases, ", ") + ")"
		}
		s.known = append(s.known, k)
	}
	return s
}

// Cards is the schema of card queries: cardedge's fields and pokemontcg.io's
// card fields.
var Cards = NewSchema(cardFields)

// Sets is the schema of set queries: pokemontcg.io's set fields (id, name,
// series, ptcgoCode, releaseDate, printedTotal, total, legalities.<format>).
var Sets = NewSchema(setFields)

// Fields returns the fields of the schema, in documentation order. The
// slice is a copy; its Values and Aliases are shared and must not be
// modified.
func (s *Schema) Fields() []Field { return append([]Field(nil), s.fields...) }

// Lookup returns the field named name (or an alias of it), in any case; ok
// is false for an unknown name.
func (s *Schema) Lookup(name string) (f Field, ok bool) {
	p := s.byName[strings.ToLower(name)]
	if p == nil {
		return Field{}, false
	}
	return *p, true
}

// KnownFields lists the field names with their aliases in parentheses, as
// errors list them: "name, artist (a), type (t), ...".
func (s *Schema) KnownFields() []string { return append([]string(nil), s.known...) }

// Fields returns the fields of card queries (Cards.Fields).
func Fields() []Field { return Cards.Fields() }

// LookupField looks a field of card queries up (Cards.Lookup).
func LookupField(name string) (f Field, ok bool) { return Cards.Lookup(name) }

// KnownFields lists the fields of card queries (Cards.KnownFields).
func KnownFields() []string { return Cards.KnownFields() }

// idPrefixes are the language prefixes of card and set ids: "en:base1-4"
// is a plain word (an id), not a field term.
var idPrefixes = map[string]bool{"en": true, "ja": true, "zh": true}
