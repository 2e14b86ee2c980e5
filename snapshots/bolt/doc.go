// Package bolt stores snapshots in bbolt files: the Writer the builder uses
// and the read-only Reader (a snapshots.Reader) the edge and MCP server use.
//
// Layout (one bucket per game inside each bucket group, keys as noted):
//
//	catalog.bolt     sets/<game>        set id            -> JSON Set        (catalog order in "setorder")
//	                 setorder/<game>    uint32 BE index   -> set id
//	                 cards/<game>       uint32 BE ordinal -> JSON Card
//	market.bolt      sales/<game>       uint32 BE ordinal -> EncodeSales (every printing)
//	                 prices/<game>      uint32 BE ordinal -> EncodeSeries (base printing)
//	                 analytics/<game>   uint32 BE ordinal -> EncodeAnalytics (base printing)
//	                 listings/<game>    uint32 BE ordinal -> JSON []Listing (every printing)
//	                 cum/<game>         uint32 BE ordinal -> EncodeCum (verified sales, base printing)
//	                 fprices/<game>     uint32 BE ordinal -> AppendPrinting(EncodeSeries) per other printing
//	                 fanalytics/<game>  uint32 BE ordinal -> AppendPrinting(EncodeAnalytics) per other printing
//	                 fcum/<game>        uint32 BE ordinal -> AppendPrinting(EncodeCum) per other printing
//	                 printings/<game>   uint32 BE ordinal -> EncodePrintings (every printing's summary)
//	                 sources/<game>     uint32 BE ordinal -> EncodeCardSources (provenance; builds from real sources only)
//	aggregates.bolt  trending/<game>    metric|window|lang -> EncodeTrending (liquid base printings)
//	                 trendrows/<game>   metric|window|all  -> EncodeTrendingRows (every printing)
//	                 setagg/<game>      set id            -> JSON SetAggregates
//	                 setdaily/<game>    set id            -> EncodeDaily
//
// The base printing's rows sit where a card's rows sat before printings were
// kept apart (format 2), so the per-request reads of the base printing are
// what they were.
//
// It imports snapshots, apperr, bbolt and the standard library.
//
// # Caveats
//
// bbolt values are valid only inside their transaction: the Reader decodes
// (copies) every value before its transaction ends, so nothing it returns
// aliases the memory map. The per-card reads of market.bolt reuse read-only
// transactions kept open in a pool, each used by one goroutine at a time;
// Close rolls them back, waiting for reads in progress.
package bolt
