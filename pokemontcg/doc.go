// Package pokemontcg speaks pokemontcg.io's v2 API: its card and set
// objects (field names, order and formats as theirs, so that its SDKs'
// strict data classes load them), built from a snapshot's English Pokémon
// cards and sets; orderBy over every field of the objects; select of
// top-level fields; the list envelope {data, page, pageSize, count,
// totalCount}, single resources {data} and errors {error: {message, code}};
// the lists of types, subtypes, supertypes and rarities; and the search of
// sets.
//
// The edge serves it under /v2 (docs/pokemontcg-migration.md): Endpoints
// lists the routes and their parameters, Serve answers one request with a
// Body (its JSON appended to a buffer) or an apperr error (EINVALID naming
// the parameter or the term of q, ENOTFOUND), ErrorBody writes an error as
// pokemontcg.io does (400 for invalid input), Responses and Schemas
// describe the bodies for the OpenAPI document. A card query is q parsed
// with syntax.Parse, restricted to English cards by CardQuery and run by
// index.Match; the Catalog sorts (SortCards), pages (Paging.Window) and
// writes the result. The Catalog of a snapshot is built once, before the
// snapshot serves, by Derivation (a live.Derivation: Load, then Of finds
// it): its cards' prices (prices.go), each card's object encoded whole
// (what a page copies when select is not given) and the ranks of WarmSorts.
//
// Imports: apperr, snapshots (the domain types), snapshots/jsontext, index
// (Match, and MatchValues for set queries), index/syntax, live (the view of
// a snapshot, Derivation), pricing (the shown fmv of a printing),
// jsonschema (Schemas), and the standard library. It knows neither fasthttp
// nor bbolt.
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
// source's or the catalog's count. abilities[].text is "" without card
// text (the Python SDK's Ability requires text). tcgplayer and cardmarket
// (prices.go) are the real sources' numbers in a snapshot built from them
// (TCGplayer's in USD, Cardmarket's in EUR, of their newest day), else
// tcgplayer holds the fmv of each printing as market; cardedge (the card's
// cardedge id, its /api/v3 detail path and priceSource: sources, synthetic
// or feed) is cardedge's own field, which the SDKs ignore.
//
// # Caveats
//
//   - Ability.Text is required (not Optional) in the Python SDK's data
//     class: without card text it is "" (not the card's text, which is the
//     publisher's); the other text fields are left out.
//   - q reads no price fields (tcgplayer.prices.holofoil.market:[10 TO *]),
//     and orderBy sorts by none.
//   - English cards the catalog took from tcgdex (the Mega Evolution sets
//     after me1) keep tcgdex's ids (me02-001), not pokemontcg.io's, and
//     their images do not exist under the default template.
//   - orderBy on a list field sorts by its first value; a card without a
//     value of a key sorts after those with one, in either direction.
package pokemontcg
