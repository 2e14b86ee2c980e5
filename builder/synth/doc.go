// Package synth synthesizes deterministic market data on top of the real card
// catalog: the preset's catalog (Preset.Catalog), and for every card two years
// of sales, partner price-feed rows and current shop listings
// (Generator.CardMarket), shaped like a market a collector recognises: the
// chase cards on top of their sets, 1st editions far above unlimited
// prints, graded ladders that rise with the grade.
//
// The builder calls it; it imports only package snapshots (and through it
// package estimate, for the base printing) and the standard library, reads
// no files, flags or environment, and keeps no global state beyond
// read-only tables.
//
// # Model
//
// A card's desirability sets both how often it sells (popularity, a log
// rate of executed sales per day) and what it sells for (a log price level
// of its base printing, raw near mint). Each factor below adds to both logs
// (with its own weights) and says what public knowledge it rests on. The
// sources are public price guides and sold listings (PriceCharting, TCGplayer
// market prices, eBay sold listings, PSA's auction prices and population
// reports, Card Ladder's indexes) and the hobby press; the model reproduces
// their orders of magnitude and their orderings, not any one price.
//
//   - Rarity tier (pokemonRarities, onepieceRarities): a typical price of a
//     fresh English print per rarity, from $0.15 commons to $30 special
//     illustration rares and $50 mega hyper rares; $30 secret rares and $60
//     SP cards in One Piece. Source: the rarity medians of recent sets in
//     the price guides. Each tier also has a collectibility (0 bulk .. 1.35
//     vintage holo) that scales age appreciation, grading premiums and the
//     share of graded sales.
//   - Art tier. Special illustration, hyper, secret and shiny rares are
//     rarities of the catalog. Sun & Moon and Sword & Shield alternate arts
//     are not: WithCatalog finds them from their sets (the second card of a
//     name at an ultra or rainbow rarity, or a rainbow rare printed without
//     the rainbow foil: en:swsh7-215, the "Moonbreon" Umbreon VMAX) and they
//     sell at 3.7 times their tier (altArtPrice; the alternate art of a
//     Sword & Shield V or VMAX sells for three to six times its full-art or
//     rainbow twin in the guides). One Piece parallels ("_p1", alternate art)
//     sell at 5.5 times their rarity's regular print, and manga rares (a
//     secret rare's second parallel in its own set, en:OP05-119_p2) at 3.3
//     times more again (isManga): the game's most expensive pulls. A
//     trainer's full or special art sells below its set's Pokémon chase cards
//     (trainerArtDiscount).
//   - Species and character popularity (famousDex, famousOnePiece):
//     Charizard, Pikachu, Umbreon, Lugia, Gengar, Mewtwo, Rayquaza, the
//     Eeveelutions...; Luffy, Shanks, Zoro, Nami, Yamato... Source: the
//     species and characters that top the price guides' most-valuable lists
//     and the hobby press's "most collected" rankings, year after year. The
//     boost is half as large again on vintage cards (collectors pay most for
//     the icons of their childhood: a Base Set Charizard sells for about ten
//     times a common Base Set holo), and famous vintage cards are traded
//     most (they change hands daily on the marketplaces).
//   - Era and print run (eraPop, ageCurve, iconicSets): sets of the last
//     two years sell most; out-of-print sets appreciate (about 9 % a year of
//     age past three years, by collectibility; the indexes' long-run
//     returns); the WotC era, Evolving Skies, 151 and other iconic sets
//     carry a premium of their own.
//   - Printing (variantModel): each variant of a card sells in proportion to
//     its print run and at a premium over the base printing
//     (snapshots.BasePrinting), which sets the card's price level: a 1st
//     edition at 2.8 to 5 times (firstEditionPremium, by collectibility: the
//     holos at the top), a shadowless print at 2.2 to 3.5 times
//     (shadowlessPremium), so that a 1st edition shadowless Base Set holo is
//     about 17 times its unlimited print (the guides: Base Set Charizard
//     about $500 unlimited, $2,000 shadowless, $10,000 and more 1st edition,
//     raw near mint); reverse holos and stamps at their own factors, World
//     Championship decks at a third.
//   - Language (languagePop, languagePrice): Japanese cards a fifth below
//     English, Chinese ones half; Japanese sales mostly on Japanese
//     marketplaces (Mercari, Yahoo! Auctions).
//   - Grading (gradeMultiplier, gradedFloor, graderSteps): a top-grader 10
//     sells for exp(logP10) times raw near mint: about 2 to 3 times for a
//     modern card, 10 to 20 times for a vintage holo (PSA's auction prices);
//     a slabbed 6 of a modern card sells below a raw near-mint copy (a raw
//     copy is presumed to grade well) and every step up is worth something,
//     so ladders rise with the grade; BGS and CGC grades sell below the same
//     PSA number, a BGS 10 above it. Graded copies sell at a floor that rises
//     with the grade ($4 to $24: grading costs money) and with less noise
//     than raw ones. Vintage copies grade lower (PSA's population reports).
//   - A card's own factor (cardPriceNoise, 0.3 in log) and its set's: two
//     cards of one rarity and character are not priced alike, but not so
//     unlike that a common holo outprices its set's chase card.
//
// Over time, a card's raw near-mint price walks day by day (mean-reverting
// random walk with drift, weekly and annual seasonality, release hype for new
// sets, and hype events: spikes and slumps that decay, part of which stays;
// vintage events are half as large). Executed sales are a Poisson process
// whose intensity follows popularity, seasonality and events; each sale draws
// a grade (raw conditions, or slab/bgs/cgc grades), a marketplace (by game,
// language and whether the card is graded; on-chain venues sell graded cards
// as on_chain_transfer), a trade type, a finish (index into Card.Variants),
// an identity confidence (about 2 % untrusted) and quality flags (about 3 %
// flagged, most of them price outliers). First-game cards whose Popularity
// reaches the preset's thresholds also get partner price-feed rows
// (SalePriceFeed, one a day or one a week over the last FeedDays days), and
// cards get current listings (Poisson in popularity; about 40 % of the
// shipped cards have none).
//
// Chases lists each set's most famous chase card; cardbuild report prints
// its price rank. On the default preset (seed 1) every one is first or
// second in its set, the Base Set Charizard first.
//
// Volumes (seed 1, as_of 2026-11-15): tiny about 120 k executed sales (over
// 200 a card), default about 1.6 M executed sales and 1.2 M feed rows (about
// 70 printings of each game trade slabbed on a quiet summer weekday with 5
// slabbed sales in the month: the 1-day slab leaderboards are full), large
// about 21 M executed sales and 3.2 M feed rows.
//
// # Caveats
//
// Determinism: the output of CardMarket depends only on the generator's preset,
// seed and as_of, on the catalog given to WithCatalog, and on the card (its
// id, features, Ordinal) and its set; not on call order or concurrency. It
// does depend on this package's version and on math/rand/v2's PCG and its
// NormFloat64/ExpFloat64 algorithms: a new Go release that changed those
// would change the data (same for the model constants here). The history is
// drawn forward from as_of - HistoryDays + 1, so a snapshot built with a
// later as_of is a different history, not an extension of the earlier one.
//
// Sale ids are gameIndex<<56 | Ordinal<<24 | seq: unique across a snapshot as
// long as ordinals are unique per game and below 1<<32, and a card has fewer
// than 1<<24 rows (it has at most thousands), so the caller sets Ordinal
// before calling CardMarket. Product ids are not synthesized: a card's
// partner product id is the marketplace's own (snapshots.Card.MarketIDs).
//
// Money is integer cents (USD). Listing DealScore compares the ask with the
// synthesizer's own fair value of that grade and finish on as_of, not with the
// builder's FMV.
package synth
