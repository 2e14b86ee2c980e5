// Package catalog is the catalog of an open snapshot as its list views see
// it: the card list's orders and filters, the set list's orders, each set's
// top priced cards, the trending rankings grouped by set, a card's edition
// in another language (Counterpart) and the distinct cards of many ids
// (CardsByID, what a batch costs).
//
// A Catalog holds one snapshot's views per game, each built on first use and
// kept for the snapshot's life. The card list needs them on every request
// (51,152 cards in the default snapshot): Cards sorts the catalog once in
// each of its six orders, and classes the cards by set, rarity, collector
// number, language, variant and name trigrams, so that List answers a
// filtered, sorted page from the smallest class its filters name, without
// sorting or scanning the catalog (see Cards). Sets sorts the set directory
// once per order of the set list.
//
// The REST front door (edge) builds a Catalog in its live.Derivation, for
// every game, before a snapshot serves; a caller without one (the
// dashboard's set page) applies the same rule to a ranking's rows with
// SetRows. Every view is tested against a plain scan of the tiny snapshot
// and of made-up catalogs full of ties.
//
// It imports the standard library, apperr, snapshots, index (Fold,
// CardSet), resolve (collector numbers, ids) and pricing (the trending
// rankings and their liquidity rule); never a transport.
//
// # Caveats
//
//   - The slices the views return (List's page, Sorted, TopCards,
//     SetTrending) are shared by every caller of the snapshot: read only.
//   - A Catalog reads its snapshot while it builds a view: the caller holds
//     the snapshot open for as long as it uses the Catalog (edge keeps it in
//     the snapshot's derived data, closed with it).
//   - Filters compare set ids, rarities and variants under strings.EqualFold
//     (through a fold key per value), languages exactly and collector
//     numbers normalized (resolve.NormalizeNumber); Q is matched against
//     index.Fold of the name and the lower-case id.
//   - An error building SetTrending's groups is not kept (the next call tries
//     again); an error building Cards, Sets or TopCards is kept for the
//     snapshot's life, as the snapshot does not change.
package catalog
