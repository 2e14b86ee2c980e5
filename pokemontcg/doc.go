// Package pokemontcg speaks pokemontcg.io's v2 API: its card and set
// objects (field names, order and formats as theirs, so that its SDKs'
// strict data classes load them), built from a snapshot's English Pokémon
// cards and sets; orderBy over every field of the objects; select of
// top-level fields; the list envelope {data, page, pageSize, count,
// totalCount}, single resources {data} and errors {error: {message, code}};
// the lists of types, subtypes, supertypes and rarities; and the search of
// sets. The edge's /v2 routes call it (next to come): a card query is q
// parsed with syntax.Cards, restricted to English cards by CardQuery and
// run by index.Match; the Catalog sorts, pages and writes the result.
//
// Imports: snapshots (the domain types), snapshots/jsontext, index (its
// MatchValues evaluates set queries as Match evaluates card fields),
// index/syntax, and the standard library. It knows neither fasthttp nor
// bbolt.
//
// # Fields
//
// A card's id is the catalog's source_id (base1-4: pokemontcg.io's own id
// for the cards of pokemon-tcg-data); hp and level are strings; legalities
// are "Legal" or "Banned", a format where the card is neither left out; an
// attack always has cost (possibly []) and damage (possibly ""). images
// come from an image URL template (Options.ImageURL, DefaultImageURL
// pokemontcg.io's own). The text fields (rules, abilities[].text,
// attacks[].text, flavorText, ancientTrait) and evolvesTo are there only
// for a snapshot built from a pokemon-tcg-data clone. A set's releaseDate
// is YYYY/MM/DD, its updatedAt the snapshot's as_of at midnight
// (YYYY/MM/DD HH:MM:SS), its legalities the formats at least half of its
// cards are legal or banned in (snapshots.SetLegalities), its total the
// source's or the catalog's count. tcgplayer and cardmarket are left out
// until prices are joined; cardedge (the card's cardedge id and its
// /api/v3 detail path) is cardedge's own field, which the SDKs ignore.
//
// # Caveats
//
//   - Ability.Text is required (not Optional) in the Python SDK's data
//     class: without card text a card with an ability does not load there,
//     as cardedge leaves unknown text out rather than write "".
//   - English cards the catalog took from tcgdex (the Mega Evolution sets
//     after me1) keep tcgdex's ids (me02-001), not pokemontcg.io's, and
//     their images do not exist under the default template.
//   - orderBy on a list field sorts by its first value; a card without a
//     value of a key sorts after those with one, in either direction.
package pokemontcg
