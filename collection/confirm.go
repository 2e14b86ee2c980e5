package collection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/edge/resolve"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

type confirmBody struct {
	PreviewID string            `json:"preview_id"`
	Choices   map[string]string `json:"choices"`
}

// collection is a key's stored collection: holdings merged by card and grade,
// and the imports that made them.
type collection struct {
	KeyID    string         `json:"key_id"`
	Holdings []holding      `json:"holdings"`
	Imports  []importRecord `json:"imports"`
	Updated  time.Time      `json:"updated"`
}

type holding struct {
	Game         string `json:"game"`
	CardID       string `json:"card_id"`
	Grade        string `json:"grade"`
	Quantity     int    `json:"quantity"`
	PaidCents    int64  `json:"paid_cents"`    // total paid for the copies with a price
	PaidQuantity int    `json:"paid_quantity"` // copies with a price paid
}

type importRecord struct {
	ImportID    string    `json:"import_id"`
	ConfirmedAt time.Time `json:"confirmed_at"`
	Rows        int       `json:"rows"`
	Quantity    int       `json:"quantity"`
}

type skippedRow struct {
	Row    int    `json:"row"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

type importConfirmation struct {
	ImportID       string       `json:"import_id"`
	ConfirmedAt    time.Time    `json:"confirmed_at"`
	StoredRows     int          `json:"stored_rows"`
	StoredQuantity int          `json:"stored_quantity"`
	Skipped        []skippedRow `json:"skipped"`
}

type collectionSummary struct {
	Holdings int      `json:"holdings"`
	Cards    int      `json:"cards"`
	Quantity int      `json:"quantity"`
	Imports  int      `json:"imports"`
	ValueUSD float64  `json:"value_usd"`
	PaidUSD  float64  `json:"paid_usd"`
	Unvalued int      `json:"unvalued_holdings"`
	ImportID []string `json:"import_ids"`
}

type Confirmation struct {
	PreviewID        string             `json:"preview_id"`
	ImportID         string             `json:"import_id"`
	Status           string             `json:"status"` // confirmed or already_confirmed
	AlreadyConfirmed bool               `json:"already_confirmed"`
	ConfirmedAt      string             `json:"confirmed_at"`
	StoredRows       int                `json:"stored_rows"`
	StoredQuantity   int                `json:"stored_quantity"`
	Skipped          []skippedRow       `json:"skipped"`
	Collection       *collectionSummary `json:"collection"`
	Basis            string             `json:"basis"`
}

func ParseConfirm(body []byte) (confirmBody, error) {
	var b confirmBody
	if err := json.Unmarshal(body, &b); err != nil {
		return b, snapshots.FieldErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"preview_id\": \"imp_...\", \"choices\": {\"<row>\": \"<card_id>\"}}: " + err.Error(), Type: "json_invalid"}}
	}
	if !strings.HasPrefix(b.PreviewID, "imp_") || len(b.PreviewID) > 64 {
		return b, snapshots.FieldErrors{{Loc: []any{"body", "preview_id"}, Msg: "preview_id must be the id a preview returned (imp_...)", Type: "value_error", Input: b.PreviewID}}
	}
	return b, nil
}

// applyImport adds a preview's matched rows, and the ambiguous rows given a
// choice among their candidates, to the collection.
func applyImport(coll *collection, p *storedPreview, choices map[string]string, now time.Time) (*importConfirmation, snapshots.FieldErrors) {
	byRow := map[int]*storedRow{}
	for i := range p.Rows {
		byRow[p.Rows[i].Row] = &p.Rows[i]
	}
	picked := map[int]string{}
	var verrs snapshots.FieldErrors
	for k, id := range choices {
		n, err := strconv.Atoi(k)
		row := byRow[n]
		switch {
		case err != nil || row == nil:
			verrs = append(verrs, snapshots.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("preview %s has no row %s", p.ID, k), Type: "value_error", Input: id})
		case row.Status != "ambiguous":
			verrs = append(verrs, snapshots.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d is %s, not ambiguous: only ambiguous rows take a choice", n, row.Status), Type: "value_error", Input: id})
		default:
			ok := false
			for _, c := range row.Candidates {
				if strings.EqualFold(c, id) {
					picked[n], ok = c, true
				}
			}
			if !ok {
				verrs = append(verrs, snapshots.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d: %q is not one of its candidates (%s)", n, id, strings.Join(row.Candidates, ", ")), Type: "value_error", Input: id})
			}
		}
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	conf := &importConfirmation{ImportID: p.ID, ConfirmedAt: now, Skipped: []skippedRow{}}
	idx := map[string]int{}
	for i, h := range coll.Holdings {
		idx[h.Game+"|"+strings.ToLower(h.CardID)+"|"+h.Grade] = i
	}
	for _, row := range p.Rows {
		id := row.CardID
		if row.Status == "ambiguous" {
			id = picked[row.Row]
		}
		if id == "" {
			reason := row.Reason
			if row.Status == "ambiguous" {
				reason = "ambiguous and no choice given: " + reason
			}
			conf.Skipped = append(conf.Skipped, skippedRow{Row: row.Row, Status: row.Status, Reason: reason})
			continue
		}
		k := p.Game + "|" + strings.ToLower(id) + "|" + row.Grade
		i, ok := idx[k]
		if !ok {
			coll.Holdings = append(coll.Holdings, holding{Game: p.Game, CardID: id, Grade: row.Grade})
			i = len(coll.Holdings) - 1
			idx[k] = i
		}
		h := &coll.Holdings[i]
		h.Quantity += row.Quantity
		if row.HasPaid {
			h.PaidCents += row.PaidCents * int64(row.Quantity)
			h.PaidQuantity += row.Quantity
		}
		conf.StoredRows++
		conf.StoredQuantity += row.Quantity
	}
	coll.Imports = append(coll.Imports, importRecord{ImportID: p.ID, ConfirmedAt: now, Rows: conf.StoredRows, Quantity: conf.StoredQuantity})
	return conf, nil
}

func summarize(src resolve.Source, coll *collection) *collectionSummary {
	out := &collectionSummary{Holdings: len(coll.Holdings), Imports: len(coll.Imports), ImportID: []string{}}
	cards := map[string]bool{}
	var value, paid int64
	for _, h := range coll.Holdings {
		out.Quantity += h.Quantity
		paid += h.PaidCents
		cards[h.Game+"|"+strings.ToLower(h.CardID)] = true
		c, err := src.Reader.Card(h.Game, h.CardID)
		g, gerr := snapshots.ParseGrade(h.Grade)
		if err != nil || gerr != nil {
			out.Unvalued++
			continue
		}
		fmv, err := pricing.FMV(src.Reader, c, g, src.AsOf)
		if err != nil || fmv == 0 {
			out.Unvalued++
			continue
		}
		value += fmv * int64(h.Quantity)
	}
	for _, im := range coll.Imports {
		out.ImportID = append(out.ImportID, im.ImportID)
	}
	out.Cards = len(cards)
	out.ValueUSD, out.PaidUSD = snapshots.USD(value), snapshots.USD(paid)
	return out
}

// Confirm adds a preview's resolved rows (and the ambiguous rows body's
// choices pick) to keyID's collection, once: a second confirm of the same
// preview answers already_confirmed and stores nothing. The collection's
// summary is valued as of src. Errors: FieldErrors for a bad body or choice,
// ENOTFOUND for a preview this key does not have (or that expired);
// storage errors wrapped.
func (s *Service) Confirm(ctx context.Context, src resolve.Source, keyID string, body []byte) (*Confirmation, error) {
	b, err := ParseConfirm(body)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	var out Confirmation
	var coll collection
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err = s.state.Update(sctx, func(tx state.Tx) error {
		var err error
		out = Confirmation{}
		coll, err = collections.Get(tx, keyID)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("imports: collection of %s: %w", keyID, err)
		}
		p, err := previews.Get(tx, b.PreviewID)
		found := err == nil
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("imports: preview %s: %w", b.PreviewID, err)
		}
		if !found || p.KeyID != keyID {
			for _, im := range coll.Imports {
				if im.ImportID == b.PreviewID { // confirmed, and the preview has expired since
					out = Confirmation{PreviewID: b.PreviewID, ImportID: im.ImportID, Status: "already_confirmed", AlreadyConfirmed: true,
						ConfirmedAt: im.ConfirmedAt.Format(time.RFC3339), StoredRows: im.Rows, StoredQuantity: im.Quantity, Skipped: []skippedRow{}}
					return nil
				}
			}
			return snapshots.Errorf(snapshots.ENOTFOUND, "no preview %s for this key: previews are kept 24 hours; upload the file again", b.PreviewID)
		}
		if p.Confirmed != nil {
			c := p.Confirmed
			out = Confirmation{PreviewID: p.ID, ImportID: c.ImportID, Status: "already_confirmed", AlreadyConfirmed: true,
				ConfirmedAt: c.ConfirmedAt.Format(time.RFC3339), StoredRows: c.StoredRows, StoredQuantity: c.StoredQuantity, Skipped: c.Skipped}
			return nil
		}
		if !now.Before(p.Expires) {
			return snapshots.Errorf(snapshots.ENOTFOUND, "preview %s expired at %s; upload the file again", p.ID, p.Expires.Format(time.RFC3339))
		}
		conf, verrs := applyImport(&coll, &p, b.Choices, now)
		if verrs != nil {
			return verrs
		}
		coll.KeyID, coll.Updated = keyID, now
		if err := collections.Put(tx, keyID, coll, 0); err != nil {
			return err
		}
		p.Confirmed = conf
		if err := previews.Put(tx, p.ID, p, p.Expires.Sub(now)); err != nil {
			return err
		}
		out = Confirmation{PreviewID: p.ID, ImportID: conf.ImportID, Status: "confirmed", ConfirmedAt: conf.ConfirmedAt.Format(time.RFC3339),
			StoredRows: conf.StoredRows, StoredQuantity: conf.StoredQuantity, Skipped: conf.Skipped}
		return nil
	})
	if err != nil {
		var verrs snapshots.FieldErrors
		if errors.As(err, &verrs) || snapshots.ErrorCode(err) != snapshots.EINTERNAL {
			return nil, err
		}
		return nil, fmt.Errorf("imports: confirm: %w", err)
	}
	out.Collection = summarize(src, &coll)
	out.Basis = "the collection holds every confirmed import of this key, merged by card and grade; value_usd = fmv of each holding's grade x quantity as of the snapshot"
	if out.Skipped == nil {
		out.Skipped = []skippedRow{}
	}
	return &out, nil
}
