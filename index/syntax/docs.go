package syntax

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
| ` + "`rarity:` `r:`" + ` | rarity (` + "`r:\"rare holo\"`, `r:sr`" + `) |
| ` + "`lang:` `language:`" + ` | card language: ` + "`en`, `ja`, `zh-cn`, `zh-tw`" + ` |
| ` + "`is:`" + ` | a printing the card has: ` + "`is:1st-edition`, `is:reverse`, `is:holo`, `is:shadowless`, `is:alternate-art`" + `, or any part of a variant (` + "`is:pokeball`" + `) |

Field names ignore case, values case and accents. Put a value with spaces in double quotes (` + "`a:\"Mitsuhiro Arita\"`" + `; ` + "`\\\"`" + ` is a quote inside). ` + "`-`" + ` right before a term negates it (` + "`-set:base1`, `-is:reverse`" + `), ` + "`or`" + ` between terms matches either, and parentheses group: ` + "`(t:fire or t:water) hp>=200`" + `. ` + "`!=`" + ` on a number matches cards that print a different number; ` + "`-hp=100`" + ` also matches cards without HP. Plain words inside ` + "`-`" + ` or ` + "`or`" + ` must match whole words (no typo tolerance), and results are ranked by the plain words outside them (by popularity when there are none). Ids such as ` + "`en:base1-4`" + `, a colon followed by a space (` + "`Type: Null`" + `) and a ` + "`-`" + ` before a digit (` + "`-4`" + `) stay plain words.

Examples (Pokémon): ` + "`a:\"Mitsuhiro Arita\" charizard`" + ` · ` + "`t:water hp>=300 legal:standard`" + ` · ` + "`attack:\"Fire Spin\"`" + ` · ` + "`charizard -set:base1`" + ` · ` + "`pikachu is:1st-edition`" + `. One Piece (game=onepiece): ` + "`c:red cost=5 power>=7000`" + ` · ` + "`t:\"straw hat crew\" t:character counter>=2000`" + ` · ` + "`luffy is:alternate-art`" + `.

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
