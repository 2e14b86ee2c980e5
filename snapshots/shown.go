package snapshots

import "github.com/cardedge/cardedge/estimate"

// Shown is the fmv an estimate shows: its FMVCents, or 0 at confidence none
// (no accepted verified sale in estimate.Default.SampleDays days), where the
// API shows no value but a note, as the methodology says.
func (e Estimate) Shown() int64 {
	if e.Confidence == estimate.ConfidenceNone {
		return 0
	}
	return e.FMVCents
}

// ShownPrice is card c's price as the API shows it: the raw near-mint fmv of
// its base printing (c.PriceCents), or 0 at confidence none. ENOTFOUND.
func ShownPrice(r Reader, c *Card) (int64, error) {
	if c.PriceCents == 0 {
		return 0, nil
	}
	ps, err := r.Printings(c.Game, c.ID)
	if err != nil {
		return 0, err
	}
	for i := range ps {
		if !ps[i].Base {
			continue
		}
		for _, e := range ps[i].Estimates {
			if e.Grade == RawNearMint {
				return e.Shown(), nil
			}
		}
	}
	return 0, nil
}
