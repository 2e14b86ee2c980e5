package pricing

import (
	"fmt"

	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// Provenance: where a price comes from, as every market payload says it
// (source, synthetic). A snapshot built from real sources records, per card,
// which source made each price series (snapshots.CardSources); the synthetic
// default's numbers are all synthesized; a snapshot of cardedge's own feeds
// prices from its verified sales.

// Origin is where one number comes from.
type Origin struct {
	// Source names it: a source's file (snapshots.SourceTCGplayer,
	// SourceCardmarket, SourcePriceCharting), verified sales
	// (SourceObserved: one sale, or the estimator over them) or the
	// synthesizer (SourceSynthetic).
	Source string
	// Field is the source's field of a file's number (TCGplayer market,
	// Cardmarket trend, ...); "" otherwise.
	Field     string
	Synthetic bool
}

// Provenance is what a snapshot says of one card's numbers: the snapshot's
// market source (snapshots.Manifest.MarketSource) and the card's sources
// (nil when it has none: the synthetic default, a card no source had).
type Provenance struct {
	Market  string
	Sources *snapshots.CardSources
	// Manifest is the snapshot's (nil: no source is known stale).
	Manifest *snapshots.Manifest
}

// ReadProvenance reads card c's provenance from r. Only a snapshot built
// from sources has any to read.
func ReadProvenance(r snapshots.Reader, c *snapshots.Card) (Provenance, error) {
	p := Provenance{Market: r.Manifest().MarketSource, Manifest: r.Manifest()}
	if p.Market != snapshots.MarketSources {
		return p, nil
	}
	cs, err := r.CardSources(c.Game, c.ID)
	if err != nil {
		return Provenance{}, fmt.Errorf("provenance of %s: %w", c.ID, err)
	}
	p.Sources = cs
	return p, nil
}

// SeriesOrigin is the origin of the card's price series of printing finish
// and grade g (its fmv, and the estimate of it): the source that made it,
// else the card's verified sales (SalesOrigin).
func (p Provenance) SeriesOrigin(finish int, g snapshots.Grade) Origin {
	if s, ok := p.Sources.SeriesSourceOf(uint8(finish), g); ok {
		return Origin{Source: s.Source, Field: s.Field, Synthetic: s.Source == snapshots.SourceSynthetic}
	}
	return p.SalesOrigin()
}

// SalesOrigin is the origin of what the card's verified sales make:
// synthetic in the synthetic default and for a card --synthetic-fill
// synthesized, else observed.
func (p Provenance) SalesOrigin() Origin {
	if p.Market == snapshots.MarketSynthetic || (p.Sources != nil && p.Sources.Synthetic) {
		return Origin{Source: snapshots.SourceSynthetic, Synthetic: true}
	}
	return Origin{Source: snapshots.SourceObserved}
}

// SaleOrigin is the origin of one of the card's sale rows: synthesized
// (the synthetic default, SaleSynthetic), TCGplayer's market price (a
// partner price-feed row), else an observed sale.
func (p Provenance) SaleOrigin(s *snapshots.Sale) Origin {
	switch {
	case p.Market == snapshots.MarketSynthetic || s.Flags&snapshots.SaleSynthetic != 0:
		return Origin{Source: snapshots.SourceSynthetic, Synthetic: true}
	case s.Flags&snapshots.SalePriceFeed != 0: // the partner marketplace's price feed
		return Origin{Source: snapshots.SourceTCGplayer, Field: "market"}
	}
	return Origin{Source: snapshots.SourceObserved}
}

// RowOrigin is the origin of a leaderboard row of printing finish: its
// reference series' (raw near-mint for the metrics without slab_, the
// printing's first series of the top grader for slab_ ones), else its
// sales'.
func (p Provenance) RowOrigin(finish int, slab bool) Origin {
	if !slab {
		return p.SeriesOrigin(finish, snapshots.RawNearMint)
	}
	if p.Sources != nil {
		for _, s := range p.Sources.Series {
			if int(s.Finish) == finish && s.Grade.Grader() == 0 {
				return p.SeriesOrigin(finish, s.Grade)
			}
		}
	}
	return p.SalesOrigin()
}

// SourceStale reports whether the snapshot's manifest says source is stale
// (no file for more than snapshots.StaleAfterDays days before as_of).
func (p Provenance) SourceStale(source string) bool {
	if p.Manifest == nil {
		return false
	}
	for _, s := range p.Manifest.Sources {
		if s.Name == source {
			return s.Stale
		}
	}
	return false
}

// SourceLabel names a source for people: the marketplaces' and guide's own
// names.
func SourceLabel(source string) string {
	switch source {
	case snapshots.SourceTCGplayer:
		return "TCGplayer"
	case snapshots.SourceCardmarket:
		return "Cardmarket"
	case snapshots.SourcePriceCharting:
		return "PriceCharting"
	}
	return source
}

// feedBasis says what a source's price of a printing and grade is.
func feedBasis(o Origin) string {
	rule := &estimate.Default.Sources
	s := fmt.Sprintf("%s's %s price of the printing named in finish, from its file of the price's date: a marketplace's market price, not a sale; "+
		"%s confidence while the file is fresh, %s and flagged stale after %d days without one (see /api/v3/methodology, sources)",
		SourceLabel(o.Source), o.Field, rule.FreshConfidence, rule.StaleConfidence, rule.StaleAfterDays)
	if o.Source == snapshots.SourceCardmarket {
		s += "; EUR converted to USD with the ECB reference rate of its day (prices.v1 source=cardmarket gives the EUR amount and the rate)"
	}
	return s
}
