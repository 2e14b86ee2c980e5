package snapshots_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/snapshots"
)

func TestParseMarketplaces(t *testing.T) {
	set, err := snapshots.ParseMarketplaces(" ebay, PARTNER_FEED,,courtyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range snapshots.AllMarketplaces() {
		want := m == snapshots.MarketEbay || m == snapshots.MarketPartner || m == snapshots.VenueCourtyard
		if set.Has(m) != want || set.Match(m) != want {
			t.Errorf("%s: Has %v Match %v, want %v", m, set.Has(m), set.Match(m), want)
		}
	}
	for _, all := range []string{"", " ", "All", ","} {
		set, err := snapshots.ParseMarketplaces(all)
		if err != nil || set != 0 || !set.Match(snapshots.MarketMercari) {
			t.Errorf("%q: %v %v", all, set, err)
		}
	}
	if _, err := snapshots.ParseMarketplaces("ebay,amazon"); err == nil || !strings.Contains(err.Error(), `unknown marketplace "amazon"; known: partner, ebay`) {
		t.Errorf("amazon: %v", err)
	}
}
