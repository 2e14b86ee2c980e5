package syntax

import "strings"

// Kind is what a field's value is.
type Kind uint8

const (
	// KindText takes any value, compared with ":" (or "=") and "!=".
	KindText Kind = iota
	// KindNumber takes a whole number, compared with any operator.
	KindNumber
	// KindEnum takes one of the field's Values (any case), with ":" (or
	// "=") and "!=".
	KindEnum
)

// Field is one field of the syntax.
type Field struct {
	Name    string   // canonical name, as Term.Field holds it
	Aliases []string // other names accepted for it
	Kind    Kind
	Values  []string // KindEnum: the values, lower case
	Doc     string   // what it matches, for the documentation
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
)

var formats = []string{"standard", "expanded", "unlimited"}

// fields are the fields of the syntax, in documentation order.
var fields = []Field{
	{Name: FieldName, Kind: KindText, Doc: "words of the card name (any language, its romaji or pinyin, the linked English name)"},
	{Name: FieldArtist, Aliases: []string{"a"}, Kind: KindText, Doc: "the illustrator, or whole words of the name (Pokémon)"},
	{Name: FieldType, Aliases: []string{"t"}, Kind: KindText, Doc: "Pokémon: energy type, supertype or subtype (water, trainer, supporter, \"stage 2\", ex); One Piece: type / affiliation or card category (\"straw hat crew\", character, leader)"},
	{Name: FieldColor, Aliases: []string{"c"}, Kind: KindText, Doc: "card color: Pokémon energy color (fire), One Piece color (red)"},
	{Name: FieldHP, Kind: KindNumber, Doc: "Pokémon HP"},
	{Name: FieldCost, Kind: KindNumber, Doc: "One Piece cost"},
	{Name: FieldPower, Aliases: []string{"pow"}, Kind: KindNumber, Doc: "One Piece power"},
	{Name: FieldCounter, Kind: KindNumber, Doc: "One Piece counter"},
	{Name: FieldRetreat, Kind: KindNumber, Doc: "Pokémon retreat cost"},
	{Name: FieldLife, Kind: KindNumber, Doc: "One Piece life (leaders)"},
	{Name: FieldAttack, Kind: KindText, Doc: "an attack name, or whole words of one (Pokémon)"},
	{Name: FieldAbility, Kind: KindText, Doc: "an ability name, or whole words of one (Pokémon)"},
	{Name: FieldAttribute, Aliases: []string{"attr"}, Kind: KindText, Doc: "One Piece attribute (slash, strike, ranged, special, wisdom)"},
	{Name: FieldLegal, Aliases: []string{"f", "format"}, Kind: KindEnum, Values: formats, Doc: "legal in a Pokémon format"},
	{Name: FieldBanned, Kind: KindEnum, Values: formats, Doc: "banned in a Pokémon format"},
	{Name: FieldReg, Aliases: []string{"regulation"}, Kind: KindText, Doc: "Pokémon regulation mark (g, h)"},
	{Name: FieldSet, Aliases: []string{"s"}, Kind: KindText, Doc: "set id, set code or abbreviation, or whole set name (base1, en:sv3pt5, MEW, op-01, \"base set\")"},
	{Name: FieldRarity, Aliases: []string{"r"}, Kind: KindText, Doc: "rarity (\"rare holo\", sr); spaces, - and _ are alike"},
	{Name: FieldLang, Aliases: []string{"language"}, Kind: KindEnum, Values: []string{"en", "ja", "zh-cn", "zh-tw"}, Doc: "card language"},
	{Name: FieldIs, Kind: KindText, Doc: "a printing the card has: 1st-edition, reverse, holo, normal, shadowless, alternate-art, or any part of a variant (pokeball, masterball, staff ...)"},
}

var fieldByName = func() map[string]*Field {
	m := map[string]*Field{}
	for i := range fields {
		f := &fields[i]
		m[f.Name] = f
		for _, a := range f.Aliases {
			m[a] = f
		}
	}
	return m
}()

// Fields returns the fields of the syntax, in documentation order. The
// slice is a copy; its Values and Aliases are shared and must not be
// modified.
func Fields() []Field { return append([]Field(nil), fields...) }

// LookupField returns the field named name (or an alias of it), in any
// case; ok is false for an unknown name.
func LookupField(name string) (f Field, ok bool) {
	p := fieldByName[strings.ToLower(name)]
	if p == nil {
		return Field{}, false
	}
	return *p, true
}

// KnownFields lists the field names with their aliases in parentheses, as
// errors list them: "name, artist (a), type (t), ...".
func KnownFields() []string { return append([]string(nil), knownFields...) }

var knownFields = func() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
		if len(f.Aliases) > 0 {
			out[i] += " (" + strings.Join(f.Aliases, ", ") + ")"
		}
	}
	return out
}()

// idPrefixes are the language prefixes of card and set ids: "en:base1-4"
// is a plain word (an id), not a field term.
var idPrefixes = map[string]bool{"en": true, "ja": true, "zh": true}
