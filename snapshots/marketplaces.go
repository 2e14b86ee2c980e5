package snapshots

import (
	"fmt"
	"strings"
)

// MarketplaceSet is a set of marketplaces: bit m stands for Marketplace m.
type MarketplaceSet uint32

// Has reports whether m is in s.
func (s MarketplaceSet) Has(m Marketplace) bool { return m < 32 && s&(1<<m) != 0 }

// Match reports whether the filter s selects m: the empty set (no list
// given) selects every marketplace.
func (s MarketplaceSet) Match(m Marketplace) bool { return s == 0 || s.Has(m) }

// ParseMarketplaces reads a comma list of marketplace and venue names, as
// ParseMarketplace reads each (any case; partner_feed is partner); empty
// items are skipped. "" and "all" select every marketplace (the empty set).
// An unknown name is an error that lists the known ones.
func ParseMarketplaces(list string) (MarketplaceSet, error) {
	if strings.EqualFold(strings.TrimSpace(list), "all") {
		return 0, nil
	}
	var set MarketplaceSet
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		m, ok := ParseMarketplace(name)
		if !ok {
			return 0, fmt.Errorf("unknown marketplace %q; known: %s, %s (partner_feed is partner)", strings.TrimSpace(name), strings.Join(marketplaceNames[:], ", "), PartnerFeedAlias)
		}
		set |= 1 << m
	}
	return set, nil
}
