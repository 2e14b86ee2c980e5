// Package cardmarket reads Cardmarket's public price guide, the daily
// price_guide_<game>.json files (6: Pokémon, 18: One Piece) at
// https://downloads.s3.cardmarket.com/productCatalog/priceGuide/:
//
//	{"version":1,"createdAt":"2025-11-26T02:47:06+0100","priceGuides":[
//	  {"idProduct":273699,"idCategory":51,"avg":..,"low":..,"trend":..,"avg1":..,"avg7":..,"avg30":..,
//	   "avg-holo":..,"low-holo":..,"trend-holo":..,"avg1-holo":..,"avg7-holo":..,"avg30-holo":..}]}
//
// Amounts are EUR; any field may be null or absent. Read refuses a version
// other than 1, a file that is not whole JSON (truncated, trailing data), a
// file without createdAt or price guides: nothing of a refused file is
// used. The day of a file is the date of its createdAt in its own offset.
// (A createdAt older than the last one loaded is refused by the builder,
// which knows the history.)
//
// Map joins idProduct to cards through the catalog's market_ids and files
// the plain fields and the -holo fields under printings of the card by the
// rule of Printings (see its comment for the evidence). The numbers are of
// the grade raw:near_mint: Cardmarket's guide mixes conditions, and is the
// ungraded market.
//
// It imports builder/source, snapshots and the standard library.
package cardmarket
