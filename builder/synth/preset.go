package synth

import (
	"fmt"
	"strings"
)

// CatalogMode says how a preset derives its catalog from the shipped one.
type CatalogMode int

// Catalog modes.
const (
	// CatalogFull keeps the shipped catalog unchanged.
	CatalogFull CatalogMode = iota
	// CatalogTiny keeps a curated subset of about 500 cards (see Preset.Catalog).
	CatalogTiny
	// CatalogExpanded adds synthetic reprint editions of the real sets.
	CatalogExpanded
)

func (m CatalogMode) String() string {
	switch m {
	case CatalogFull:
		return "full"
	case CatalogTiny:
		return "tiny"
	case CatalogExpanded:
		return "expanded"
	}
	return fmt.Sprintf("CatalogMode(%d)", int(m))
}

// Preset is a named scale of synthetic market data. The zero value is not
// useful; start from PresetByName and adjust fields if needed.
type Preset struct {
	// Name is the preset's name: "tiny", "default" or "large".
	Name string

	// Mode says how the Catalog method derives the preset's catalog.
	Mode CatalogMode

	// Reprints is the average number of synthetic reprint editions added per
	// real set when Mode is CatalogExpanded (each set gets between
	// Reprints-1 and Reprints+1, chosen from the seed). Ignored otherwise.
	Reprints int

	// HistoryDays is the length of the sales history, ending at as_of
	// (inclusive). Cards of sets released later start at their release day.
	HistoryDays int

	// SalesScale multiplies every card's expected number of executed sales.
	// 1 gives about 1.5 M sales over the shipped catalog and two years.
	SalesScale float64

	// FeedDays is how many days (ending at as_of) partner price-feed rows
	// cover; 0 disables the feed.
	FeedDays int

	// FeedDailyRate and FeedWeeklyRate are the thresholds on a card's intrinsic
	// popularity (its expected executed sales per day at SalesScale 1) above
	// which a first-game card gets a price-feed row every day, or one a week.
	// Cards below FeedWeeklyRate get none. 0 means no threshold (every card).
	FeedDailyRate  float64
	FeedWeeklyRate float64

	// ListingScale multiplies the expected number of current shop listings per
	// card; 1 leaves about 40 % of the shipped catalog's cards without any.
	ListingScale float64
}

var presets = []Preset{
	{
		Name:           "tiny",
		Mode:           CatalogTiny,
		HistoryDays:    730,
		SalesScale:     2.5,
		FeedDays:       365,
		FeedDailyRate:  0.12,
		FeedWeeklyRate: 0.038,
		ListingScale:   1,
	},
	{
		Name:           "default",
		Mode:           CatalogFull,
		HistoryDays:    730,
		SalesScale:     1,
		FeedDays:       365,
		FeedDailyRate:  0.12,
		FeedWeeklyRate: 0.038,
		ListingScale:   1,
	},
	{
		Name:           "large",
		Mode:           CatalogExpanded,
		Reprints:       3,
		HistoryDays:    730,
		SalesScale:     4.3,
		FeedDays:       365,
		FeedDailyRate:  0.12,
		FeedWeeklyRate: 0.038,
		ListingScale:   1,
	},
}

// PresetNames lists the valid preset names.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// PresetByName returns the preset called name.
func PresetByName(name string) (Preset, error) {
	for _, p := range presets {
		if p.Name == name {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("synth: unknown preset %q: want one of %s", name, strings.Join(PresetNames(), ", "))
}
