package builder

import "github.com/cardedge/cardedge/snapshots"

// CheckMarketFeeds reads the market feeds in dir (sales.jsonl, and
// prices.jsonl and listings.jsonl when present; .gz accepted) against cards
// exactly as a build with Options.MarketDir does, and builds nothing. A bad
// row is a *FeedError. It is the entry point of the feed-line fuzz target and
// can check feeds before a build.
func CheckMarketFeeds(dir string, cards []*snapshots.Card) error {
	_, _, _, err := readMarketFeeds(dir, cards)
	return err
}
