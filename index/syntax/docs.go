package syntax

import "strings"

// Doc is the search syntax as users read it (Markdown): the "Search syntax"
// section of docs/search-syntax.md and the OpenAPI description of q carry this
// text, so that it is written once. TestDoc checks that every field is in
// it and that its examples parse.
const Doc = `Plain words search as ` + "`q`" + ` always has: on ` + "`/api/v3/search`" + ` and MCP ` + "`search`" + ` the full text (card names in any language with accents and case ignored, romaji and pinyin, set names and codes, collector numbers, ids and rarities, typos tolerated), on ` + "`/api/v3/cards`" + ` a substring of the card name or id. Add field terms to narrow the search; every term must hold.

| term | matches |
| --- | --- |
| ` + "`name:pikachu`" + ` | words of the card name |
| ` + "`artist:` `a:`" + ` | the illustrator: ` + "`a:arita`, `a:\"Mitsuhiro Arita\"`" + ` |
| ` + "`type:` `t:`" + ` | Pokémon energy type, supertype or subtype (` + "`t:water`, `t:supporter`, `t:\"stage 2\"`" + `); One Piece type / affiliation or category (` + "`t:\"straw hat crew\"`, `t:character`" + `) |
| ` + "`color:` `c:`" + ` | card color (` + "`c:fire`, `c:red`" + `) |
| ` + "`hp` `retreat`" + ` | Pokémon HP and retreat cost, with ` + "`=` `!=` `<` `<=` `>` `>=`" + ` (` + "`:`" + ` is ` + "`=`" + `): ` + "`hp>=300`" + ` |
| ` + "`cost` `power` (`pow`) `counter` `life`" + ` | One Piece numbers, with the same comparisons: ` + "`cost=5`, `power>=7000`" + ` |
| ` + "`attack:` `ability:`" + ` | an attack or ability name, or whole words of one: ` + "`attack:\"Fire Spin\"`" + ` |
| ` + "`attribute:` `attr:`" + ` | One Piece attribute (` + "`attr:slash`" + `) |
| ` + "`legal:` (`f:`, `format:`) `banned:`" + ` | legal or banned in a Pokémon format: ` + "`standard`, `expanded`, `unlimited`" + ` |
| ` + "`reg:` `regulation:`" + ` | Pokémon regulation mark (` + "`reg:h`" + `) |
| ` + "`set:` `s:`" + ` | set id, code or abbreviation, or whole set name (` + "`set:base1`, `set:MEW`, `set:op-01`, `set:\"base set\"`" + `) |
| ` + "`rarity:` `r:`" + ` | words of the rarity: ` + "`r:holo`" + ` (Rare Holo, Rare Holo EX ...), ` + "`r:\"rare holo\"`, `r:sr`" + `; ` + "`!r:\"rare holo\"`" + ` the whole rarity |
| ` + "`lang:` `language:`" + ` | card language: ` + "`en`, `ja`, `zh-cn`, `zh-tw`" + ` |
| ` + "`is:`" + ` | a printing the card has: ` + "`is:1st-edition`, `is:reverse`, `is:holo`, `is:shadowless`, `is:alternate-art`" + `, or any part of a variant (` + "`is:pokeball`" + `) |

Field names ignore case, values case and accents. Put a value with spaces in double quotes (` + "`a:\"Mitsuhiro Arita\"`" + `; ` + "`\\\"`" + ` is a quote inside). ` + "`-`" + ` right before a term negates it (` + "`-set:base1`, `-is:reverse`" + `), ` + "`or`" + ` between terms matches either, and parentheses group: ` + "`(t:fire or t:water) hp>=200`" + `. ` + "`!=`" + ` on a number matches cards that print a different number; ` + "`-hp=100`" + ` also matches cards without HP. Plain words inside ` + "`-`" + ` or ` + "`or`" + ` must match whole words (no typo tolerance), and results are ranked by the plain words outside them (by popularity when there are none). Ids such as ` + "`en:base1-4`" + `, a colon followed by a space (` + "`Type: Null`" + `) and a ` + "`-`" + ` before a digit (` + "`-4`" + `) stay plain words.

Examples (Pokémon): ` + "`a:\"Mitsuhiro Arita\" charizard`" + ` · ` + "`t:water hp>=300 legal:standard`" + ` · ` + "`attack:\"Fire Spin\"`" + ` · ` + "`charizard -set:base1`" + ` · ` + "`pikachu is:1st-edition`" + `. One Piece (game=onepiece): ` + "`c:red cost=5 power>=7000`" + ` · ` + "`t:\"straw hat crew\" t:character counter>=2000`" + ` · ` + "`luffy is:alternate-art`" + `.

Field terms also take the Lucene forms and field names of pokemontcg.io's ` + "`q`" + ` (` + "`set.id:sv1`, `name:char*`, `!name:charizard`, `hp:[150 TO *]`, `AND`, `NOT`" + `; see pokemontcg.io's q in the search syntax documentation). When a query matches nothing because of a field's value, ` + "`/api/v3/search`" + ` says which values the field has (` + "`hints`" + `).

A term that does not parse (an unknown field, a bad operator or value, an unclosed quote or parenthesis) is refused with a message naming the term, its position (0-based, in characters) and the known fields.`

// Examples are the queries Doc shows, each with its game.
var Examples = []struct{ Game, Q string }{
	{"pokemon", `a:"Mitsuhiro Arita" charizard`},
	{"pokemon", `t:water hp>=300 legal:standard`},
	{"pokemon", `attack:"Fire Spin"`},
	{"pokemon", `charizard -set:base1`},
	{"pokemon", `pikachu is:1st-edition`},
	{"pokemon", `(t:fire or t:water) hp>=200`},
	{"onepiece", `c:red cost=5 power>=7000`},
	{"onepiece", `t:"straw hat crew" t:character counter>=2000`},
	{"onepiece", `luffy is:alternate-art`},
}

// LuceneDoc is the syntax of pokemontcg.io's q as this package reads it
// (Markdown): the Lucene forms, how each kind of field compares, and the
// fields under pokemontcg.io's names. The same parser reads both: every
// form below also works in q of /api/v3, and Doc's fields in /v2.
var LuceneDoc = luceneDoc()

func luceneDoc() string {
	var b strings.Builder
	b.WriteString(`The Lucene-like forms of pokemontcg.io's ` + "`q`" + `, read by the same parser as the search syntax above:

| form | meaning |
| --- | --- |
| ` + "`name:charizard`" + ` | a field term; field names ignore case, values case and accents |
| ` + "`set.id:sv1`, `attacks.name:\"Fire Spin\"`" + ` | nested fields of the card object, dotted |
| ` + "`name:\"venusaur v\"`" + ` | a quoted phrase: the words side by side |
| ` + "`name:charizard subtypes:mega`" + `, ` + "`a AND b`" + ` | terms side by side must all hold (` + "`AND`" + ` in capitals is the same) |
| ` + "`subtypes:mega OR subtypes:vmax`" + ` | either (` + "`or`" + ` in any case) |
| ` + "`name:charizard (subtypes:mega OR subtypes:vmax)`" + ` | parentheses group |
| ` + "`-types:water`, `NOT types:water`" + ` | not |
| ` + "`name:char*`, `name:char*der`" + ` | ` + "`*`" + ` stands for any characters; ` + "`field:*`" + ` is any card that has the field |
| ` + "`!name:charizard`" + ` | the whole value, not words of it |
| ` + "`hp:[150 TO *]`, `nationalPokedexNumbers:[1 TO 151]`, `hp:{30 TO 100}`" + ` | a range of a number or date field: ` + "`[ ]`" + ` include the bounds, ` + "`{ }`" + ` leave them out, ` + "`*`" + ` is open |

How a value compares depends on its field. A text field matches when the value's words are words of one of the card's values, side by side (` + "`rarity:holo`" + ` matches Rare Holo and Rare Holo EX; ` + "`name:charizard`" + ` matches Dark Charizard); a phrase of more than four words must be the whole value. Words are letters and digits: case, accents and punctuation are ignored. A keyword field (ids, numbers, codes, damage) matches its whole value, case ignored. Number fields also take ` + "`<` `<=` `>` `>=` `!=`" + ` (` + "`hp>=150`" + `), date fields YYYY/MM/DD or YYYY-MM-DD. With several values (subtypes, attacks), one value must match the whole term. A term on a field a card does not have (an energy's hp) does not match it; ` + "`-`" + ` of it does. ` + "`name`" + ` is the one text field whose words may come in any order (every word of the value must be a word of the name, its romaji or pinyin, or the linked English name: ` + "`name:\"venusaur v\"`" + ` matches Venusaur V).

| field (pokemontcg.io) | kind | matches |
| --- | --- | --- |
`)
	kinds := [...]string{KindText: "text", KindNumber: "number", KindEnum: "one of", KindKeyword: "keyword", KindDate: "date"}
	for _, f := range cardFields {
		if !f.PokemonTCG {
			continue
		}
		names := "`" + f.Name + "`"
		for _, a := range f.Aliases {
			names += " `" + a + "`"
		}
		kind := kinds[f.Kind]
		if f.Kind == KindEnum {
			kind += " " + strings.Join(f.Values, ", ")
		}
		b.WriteString("| " + names + " | " + kind + " | " + f.Doc + " |\n")
	}
	b.WriteString(`
On /v2/sets, the set fields are named without ` + "`set.`" + ` (` + "`id`, `name`, `series`, `ptcgoCode`, `releaseDate`, `printedTotal`, `total`, `legalities.standard`" + `...). Prices (` + "`tcgplayer.`, `cardmarket.`" + `) and images are not searchable. A term that does not parse, or names a field this list lacks, is refused with a message naming the term.

Examples (pokemontcg.io's documentation): `)
	seen := map[string]bool{}
	var orders []string
	for _, ex := range LuceneExamples {
		if ex.OrderBy != "" {
			orders = append(orders, "`"+ex.OrderBy+"`")
		}
		if seen[ex.Q] {
			continue
		}
		if len(seen) > 0 {
			b.WriteString(" · ")
		}
		seen[ex.Q] = true
		b.WriteString("`" + ex.Q + "`")
	}
	b.WriteString("; orderBy: " + strings.Join(orders, " · ") + ".")
	return b.String()
}

// LuceneExamples are the q examples of pokemontcg.io's documentation
// (PokemonTCG/pokemon-tcg-api-docs: docs/api-reference/cards/search-cards.mdx
// and sets/search-sets.mdx), each with the resource it searches ("cards"
// or "sets") and its orderBy.
var LuceneExamples = []struct{ Resource, Q, OrderBy string }{
	{"cards", `name:charizard`, ""},
	{"cards", `name:"venusaur v"`, ""},
	{"cards", `name:charizard subtypes:mega`, ""},
	{"cards", `name:charizard (subtypes:mega OR subtypes:vmax)`, ""},
	{"cards", `subtypes:mega -types:water`, ""},
	{"cards", `name:char*`, ""},
	{"cards", `name:char*der`, ""},
	{"cards", `!name:charizard`, ""},
	{"cards", `nationalPokedexNumbers:[1 TO 151]`, ""},
	{"cards", `hp:[* TO 100]`, ""},
	{"cards", `hp:[150 TO *]`, ""},
	{"cards", `set.id:sm1`, ""},
	{"cards", `attacks.name:Spelunk`, ""},
	{"cards", `legalities.standard:banned`, ""},
	{"cards", `set.name:generations subtypes:mega`, ""},
	{"cards", `subtypes:mega`, "-set.releaseDate"},
	{"cards", `set.id:sm1`, "number"},
	{"cards", `set.id:sm1`, "name,-number"},
	{"sets", `legalities.standard:legal`, ""},
}
