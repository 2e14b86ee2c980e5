// Package pricecharting reads PriceCharting's price guide CSV (the
// download of a subscriber's guide: one product per line, prices in
// dollars as "$12.34", or pennies as the API gives them):
//
//	id,console-name,product-name,loose-price,cib-price,new-price,graded-price,box-only-price,
//	manual-only-price,bgs-10-price,condition-17-price,condition-18-price,...
//
// For trading cards its columns are grades: loose-price ungraded,
// cib-price grade 7, new-price grade 8, graded-price grade 9, box-only-price
// grade 9.5, manual-only-price PSA 10, bgs-10-price BGS 10,
// condition-17-price CGC 10, condition-18-price SGC 10 (Grades says which
// API grade each becomes). Other columns are ignored; a file without id,
// console-name and product-name is refused.
//
// The guide has no id of the catalog's: Map matches a product by its
// console name ("Pokemon Base Set", "Pokemon Japanese Scarlet & Violet 151",
// "One Piece Romance Dawn") to a set, and its product name ("Charizard
// [1st Edition] #4") to a card by number and name, the bracketed words
// read with the collectors' words reader (snapshots.ReadWords) for the
// printing. Only a product whose set, number and name agree on one card and
// printing gives prices; every other row goes to the report (unmatched, or
// ambiguous with the candidates), never into prices.
//
// The day of a file is its day= option, else its modification time (a
// file's, or the response's Last-Modified) in UTC.
//
// It imports builder/source, snapshots and the standard library.
package pricecharting
