// Package tcgcsv reads TCGplayer's prices through tcgcsv.com, the daily
// mirror of TCGplayer's catalog API, in its layout (a base URL such as
// https://tcgcsv.com, or a directory with the same paths):
//
//	last-updated.txt                          when the mirror last updated (its day)
//	tcgplayer/{categoryId}/groups             {"success","errors","results":[{groupId,name,abbreviation,...}]}
//	tcgplayer/{categoryId}/{groupId}/products {"success","errors","results":[{productId,name,extendedData:[{name:"Number",value:"4/102"}]}]}
//	tcgplayer/{categoryId}/{groupId}/prices   {"success","errors","results":[{productId,lowPrice,midPrice,highPrice,
//	                                             marketPrice,directLowPrice,subTypeName}]}
//
// and in tcgcsv's dated archive layout for backfill (the daily
// prices-YYYY-MM-DD archives extracted: prices only):
//
//	YYYY-MM-DD/{categoryId}/{groupId}/prices
//
// Categories: Pokémon 3, Pokémon Japan 85, One Piece 68 (option
// categories=3+85+68; a directory's default is the categories it has).
// Amounts are USD; a price may be null. Read is all or nothing: a file
// missing, not whole JSON or answering success false refuses the day.
//
// Map joins productId to cards through the catalog's market_ids (category
// 85 prefers Japanese cards, 3 English ones), else, for a Pokémon product
// whose id the catalog lacks, by its group's set and its Number with a name
// check; One Piece (no ids in the catalog) by card number and name, an
// alternate art by its product name's words. subTypeName picks the
// printing (PrintingOf). The numbers are raw:near_mint.
//
// It imports builder/source, snapshots and the standard library.
package tcgcsv
