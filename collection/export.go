package collection

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"

	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
)

// ExportColumns are the columns of Export's CSV. The first nine are what an
// import reads back (price_paid per copy), the rest the valuation.
var ExportColumns = []string{"card_id", "name", "set", "number", "language", "printing", "grade", "quantity", "price_paid",
	"game", "set_title", "fmv_usd", "value_usd", "confidence", "gain_usd", "change_30d_usd", "as_of"}

// Export writes o's collection as CSV (ExportColumns), valued as of src,
// one row per holding sorted by value; a holding with a price paid for only
// some copies is two rows (the copies with one, the copies without), so
// that importing the file into an empty collection gives the same holdings.
func (s *Service) Export(ctx context.Context, src *live.View, o Owner) ([]byte, error) {
	coll, err := s.read(ctx, o)
	if err != nil {
		return nil, err
	}
	val := valueCollection(src, &coll)
	sortRows(val.rows, "value")
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(ExportColumns)
	money := func(cents int64, ok bool) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(snapshots.USD(cents), 'f', 2, 64)
	}
	for _, r := range val.rows {
		// A line of qty of the holding's copies, paid: what they cost (0:
		// none given).
		line := func(qty int, paid int64) []string {
			fmv := r.valueCents / int64(max(1, r.Quantity))
			change := (r.valueCents - r.thenCents) * int64(qty) / int64(max(1, r.Quantity))
			return []string{r.CardID, r.Name, r.SetID, r.Number, r.Language, r.Printing, r.Grade, strconv.Itoa(qty),
				money(paid/int64(max(1, qty)), paid > 0), r.Game, r.SetName, money(fmv, r.valued), money(fmv*int64(qty), r.valued),
				r.Confidence, money(fmv*int64(qty)-paid, r.valued && paid > 0), money(change, r.hasThen), src.AsOf.String()}
		}
		if r.PaidQuantity > 0 {
			w.Write(line(r.PaidQuantity, r.paidCents))
		}
		if n := r.Quantity - r.PaidQuantity; n > 0 {
			w.Write(line(n, 0))
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
