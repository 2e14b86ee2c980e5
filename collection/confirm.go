package collection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
)

// ConfirmRequest confirms a preview: its id, and the candidate picked for
// ambiguous rows (row number as text -> card id).
type ConfirmRequest struct {
	PreviewID string            `json:"preview_id"`
	Choices   map[string]string `json:"choices"`
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

// confirmSummary is the collection after a confirm, as import-confirm.v1
// shows it.
type confirmSummary struct {
	Holdings int      `json:"holdings"`
	Cards    int      `json:"cards"`
	Quantity int      `json:"quantity"`
	Imports  int      `json:"imports"`
	ValueUSD float64  `json:"value_usd"`
	PaidUSD  float64  `json:"paid_usd"`
	Unvalued int      `json:"unvalued_holdings"`
	ImportID []string `json:"import_ids"`
}

// Confirmation is import-confirm.v1.
type Confirmation struct {
	PreviewID        string          `json:"preview_id"`
	ImportID         string          `json:"import_id"`
	Status           string          `json:"status"` // confirmed or already_confirmed
	AlreadyConfirmed bool            `json:"already_confirmed"`
	ConfirmedAt      string          `json:"confirmed_at"`
	StoredRows       int             `json:"stored_rows"`
	StoredQuantity   int             `json:"stored_quantity"`
	Skipped          []skippedRow    `json:"skipped"`
	Collection       *confirmSummary `json:"collection"`
	Basis            string          `json:"basis"`
}

// ParseConfirm reads an import-confirm body. FieldErrors when it is not one.
func ParseConfirm(body []byte) (ConfirmRequest, error) {
	var b ConfirmRequest
	if err := json.Unmarshal(body, &b); err != nil {
		return b, apperr.FieldErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"preview_id\": \"imp_...\", \"choices\": {\"<row>\": \"<card_id>\"}}: " + err.Error(), Type: "json_invalid"}}
	}
	return b, b.check()
}

func (b ConfirmRequest) check() error {
	if !strings.HasPrefix(b.PreviewID, "imp_") || len(b.PreviewID) > 64 {
		return apperr.FieldErrors{{Loc: []any{"body", "preview_id"}, Msg: "preview_id must be the id a preview returned (imp_...)", Type: "value_error", Input: b.PreviewID}}
	}
	return nil
}

// applyImport adds a preview's matched rows, and the ambiguous rows given a
// choice among their candidates, to the collection.
func applyImport(src *live.View, coll *collection, p *storedPreview, choices map[string]string, now time.Time) (*importConfirmation, apperr.FieldErrors) {
	byRow := map[int]*storedRow{}
	for i := range p.Rows {
		byRow[p.Rows[i].Row] = &p.Rows[i]
	}
	picked := map[int]string{}
	var verrs apperr.FieldErrors
	for k, id := range choices {
		n, err := strconv.Atoi(k)
		row := byRow[n]
		switch {
		case id == "": // a form's "none of these": the row is skipped
		case err != nil || row == nil:
			verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("preview %s has no row %s", p.ID, k), Type: "value_error", Input: id})
		case row.Status != "ambiguous":
			verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d is %s, not ambiguous: only ambiguous rows take a choice", n, row.Status), Type: "value_error", Input: id})
		default:
			ok := false
			for _, c := range row.Candidates {
				if strings.EqualFold(c, id) {
					picked[n], ok = c, true
				}
			}
			if !ok {
				verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d: %q is not one of its candidates (%s)", n, id, strings.Join(row.Candidates, ", ")), Type: "value_error", Input: id})
				continue
			}
			// The printing the row asked for, read against the pick.
			if row.Printing != "" {
				c, err := src.Reader.Card(p.Game, picked[n])
				if err == nil {
					_, err = printingOf(c, row.Printing)
				}
				if err != nil {
					verrs = append(verrs, apperr.FieldError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d: %s", n, apperr.ErrorMessage(err)), Type: "value_error", Input: id})
				}
			}
		}
	}
	if len(verrs) > 0 {
		return nil, verrs
	}
	conf := &importConfirmation{ImportID: p.ID, ConfirmedAt: now, Skipped: []skippedRow{}}
	idx := coll.index()
	for _, row := range p.Rows {
		if row.Status == "blank" {
			continue
		}
		id, printing := row.CardID, row.Printing
		if row.Status == "ambiguous" {
			id = picked[row.Row]
			if id != "" && printing != "" {
				c, _ := src.Reader.Card(p.Game, id) // checked above
				printing, _ = printingOf(c, printing)
			}
		}
		if id == "" {
			reason := row.Reason
			if row.Status == "ambiguous" {
				reason = "ambiguous and no choice given: " + reason
			}
			conf.Skipped = append(conf.Skipped, skippedRow{Row: row.Row, Status: row.Status, Reason: reason})
			continue
		}
		k := holdingKey(p.Game, id, printing, row.Grade)
		i, ok := idx[k]
		if !ok {
			coll.Holdings = append(coll.Holdings, holding{Game: p.Game, CardID: id, Printing: printing, Grade: row.Grade, Added: now})
			i = len(coll.Holdings) - 1
			idx[k] = i
		}
		h := &coll.Holdings[i]
		h.Quantity = min(h.Quantity+row.Quantity, MaxQuantity)
		if row.HasPaid {
			h.PaidCents += row.PaidCents * int64(row.Quantity)
			h.PaidQuantity += row.Quantity
		}
		conf.StoredRows++
		conf.StoredQuantity += row.Quantity
	}
	if len(coll.Holdings) > MaxHoldings {
		return nil, apperr.FieldErrors{{Loc: []any{"body", "preview_id"}, Type: "value_error", Input: p.ID,
			Msg: fmt.Sprintf("the collection would hold %d holdings (card, printing and grade); at most %d: remove some first", len(coll.Holdings), MaxHoldings)}}
	}
	coll.Imports = append(coll.Imports, importRecord{ImportID: p.ID, ConfirmedAt: now, Rows: conf.StoredRows, Quantity: conf.StoredQuantity})
	return conf, nil
}

// Confirm adds a preview's resolved rows (and the ambiguous rows req's
// choices pick; an empty choice skips the row) to o's collection, once: a
// second confirm of the same preview answers already_confirmed and stores
// nothing. A preview is the owner's that made it: an account's preview may
// be confirmed by any of its keys and its pages. The collection's summary
// is valued as of src. Errors: FieldErrors for a bad request or choice,
// ENOTFOUND for a preview this owner does not have (or that expired);
// storage errors wrapped.
func (s *Service) Confirm(ctx context.Context, src *live.View, o Owner, req ConfirmRequest) (*Confirmation, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	now := s.clock()
	var out Confirmation
	var coll collection
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err := s.state.Update(sctx, func(tx state.Tx) error {
		var err error
		var folded bool
		out = Confirmation{}
		coll, folded, err = load(tx, o)
		if err != nil {
			return err
		}
		p, err := previews.Get(tx, req.PreviewID)
		found := err == nil
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("imports: preview %s: %w", req.PreviewID, err)
		}
		if !found || !p.ownedBy(o) {
			for _, im := range coll.Imports {
				if im.ImportID == req.PreviewID { // confirmed, and the preview has expired since
					out = Confirmation{PreviewID: req.PreviewID, ImportID: im.ImportID, Status: "already_confirmed", AlreadyConfirmed: true,
						ConfirmedAt: im.ConfirmedAt.Format(time.RFC3339), StoredRows: im.Rows, StoredQuantity: im.Quantity, Skipped: []skippedRow{}}
					return nil
				}
			}
			return apperr.Errorf(apperr.ENOTFOUND, "no preview %s for this collection: previews are kept 24 hours; upload the file again", req.PreviewID)
		}
		if p.Confirmed != nil {
			c := p.Confirmed
			out = Confirmation{PreviewID: p.ID, ImportID: c.ImportID, Status: "already_confirmed", AlreadyConfirmed: true,
				ConfirmedAt: c.ConfirmedAt.Format(time.RFC3339), StoredRows: c.StoredRows, StoredQuantity: c.StoredQuantity, Skipped: c.Skipped}
			return nil
		}
		if !now.Before(p.Expires) {
			return apperr.Errorf(apperr.ENOTFOUND, "preview %s expired at %s; upload the file again", p.ID, p.Expires.Format(time.RFC3339))
		}
		conf, verrs := applyImport(src, &coll, &p, req.Choices, now)
		if verrs != nil {
			return verrs
		}
		coll.Updated = now
		if err := save(tx, o, coll, folded); err != nil {
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
		var verrs apperr.FieldErrors
		if errors.As(err, &verrs) || apperr.ErrorCode(err) != apperr.EINTERNAL {
			return nil, err
		}
		return nil, fmt.Errorf("imports: confirm: %w", err)
	}
	sum := valueCollection(src, &coll).summary
	out.Collection = &confirmSummary{Holdings: sum.Holdings, Cards: sum.Cards, Quantity: sum.Quantity, Imports: len(coll.Imports),
		ValueUSD: snapshots.USD(sum.valueCents), PaidUSD: snapshots.USD(sum.paidCents), Unvalued: sum.Unvalued, ImportID: []string{}}
	for _, im := range coll.Imports {
		out.Collection.ImportID = append(out.Collection.ImportID, im.ImportID)
	}
	out.Basis = "the collection holds every confirmed import and every change of its owner (an account's keys, pages and chat share one), merged by card, printing and grade; value_usd = the fmv of each holding's printing and grade x quantity as of the snapshot"
	if out.Skipped == nil {
		out.Skipped = []skippedRow{}
	}
	return &out, nil
}
