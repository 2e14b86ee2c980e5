package collection

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
	"github.com/cardedge/cardedge/state"
)

type importCard struct {
	CardID   string   `json:"card_id"`
	Name     string   `json:"name"`
	SetID    string   `json:"set_id"`
	SetName  string   `json:"set_name"`
	Number   string   `json:"number"`
	Language string   `json:"language"`
	PriceUSD *float64 `json:"price_usd"` // raw:near_mint fmv, to tell candidates apart
}

type previewRow struct {
	Row          int               `json:"row"`
	Line         *int              `json:"line,omitempty"`
	Status       string            `json:"status"` // matched, ambiguous, unmatched, invalid
	Input        map[string]string `json:"input"`
	Match        *string           `json:"match,omitempty"` // how it matched: card_id, partner_product_id, cardmarket_product_id, set_number, set_name, name
	Card         *importCard       `json:"card,omitempty"`
	Candidates   []importCard      `json:"candidates,omitempty"`
	Reason       string            `json:"reason,omitempty"`
	Errors       []rowIssue        `json:"errors,omitempty"`
	Warnings     []string          `json:"warnings,omitempty"`
	Grade        string            `json:"grade,omitempty"`
	GradeName    string            `json:"grade_name,omitempty"` // as people read it: PSA 10, Raw, near mint
	Quantity     int               `json:"quantity,omitempty"`
	PricePaidUSD *float64          `json:"price_paid_usd,omitempty"` // per copy
	FMVUSD       *float64          `json:"fmv_usd,omitempty"`        // per copy, fmv of the grade
	ValueUSD     *float64          `json:"value_usd,omitempty"`      // fmv x quantity
	ValueNote    string            `json:"value_note,omitempty"`
	// Printing is the printing the row is of (matched: the card's variant;
	// ambiguous: as written, read against the candidate picked).
	Printing string `json:"printing,omitempty"`
}

type previewSummary struct {
	Rows      int     `json:"rows"`
	Matched   int     `json:"matched"`
	Ambiguous int     `json:"ambiguous"`
	Unmatched int     `json:"unmatched"`
	Invalid   int     `json:"invalid"`
	Blank     int     `json:"blank"`
	Quantity  int     `json:"matched_quantity"`
	ValueUSD  float64 `json:"matched_value_usd"`
	PaidUSD   float64 `json:"matched_paid_usd"`
	Unvalued  int     `json:"matched_unvalued"`
}

type Preview struct {
	PreviewID  string            `json:"preview_id"`
	ExpiresAt  string            `json:"expires_at"`
	Game       string            `json:"game"`
	Format     string            `json:"format"`
	Columns    map[string]string `json:"columns"`
	Ignored    []string          `json:"ignored_columns"`
	Summary    previewSummary    `json:"summary"`
	Rows       []previewRow      `json:"rows"`
	SnapshotID string            `json:"snapshot_id"`
	AsOf       string            `json:"as_of"`
	Basis      string            `json:"basis"`
	Next       string            `json:"next"`
	// Confirmed is set once the preview was confirmed (ShowPreview).
	Confirmed bool `json:"confirmed"`
}

// storedPreview is a preview as the state store keeps it: what Confirm
// needs and what ShowPreview shows again.
type storedPreview struct {
	ID         string              `json:"id"`
	Owner      string              `json:"owner,omitempty"`  // the owner's id (Owner.id)
	KeyID      string              `json:"key_id,omitempty"` // previews made before owners: the key's id
	Game       string              `json:"game"`
	SnapshotID string              `json:"snapshot_id"`
	Format     string              `json:"format,omitempty"`
	Columns    map[string]string   `json:"columns,omitempty"`
	Ignored    []string            `json:"ignored,omitempty"`
	Created    time.Time           `json:"created"`
	Expires    time.Time           `json:"expires"`
	Rows       []storedRow         `json:"rows"`
	Confirmed  *importConfirmation `json:"confirmed,omitempty"`
}

type storedRow struct {
	Row    int    `json:"row"`
	Status string `json:"status"`
	CardID string `json:"card_id,omitempty"`
	// Printing is the printing to store (matched rows: "" for the base
	// printing), or as the upload wrote it (ambiguous rows: read against
	// the candidate confirm picks).
	Printing   string   `json:"printing,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
	Grade      string   `json:"grade,omitempty"`
	Quantity   int      `json:"quantity,omitempty"`
	PaidCents  int64    `json:"paid_cents,omitempty"`
	HasPaid    bool     `json:"has_paid,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	// What the preview shows of the row again.
	Line     int               `json:"line,omitempty"`
	Input    map[string]string `json:"input,omitempty"`
	Match    string            `json:"match,omitempty"`
	Errors   []rowIssue        `json:"errors,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
}

// ownedBy reports whether o may confirm p: the owner that made it (a
// preview made before owners: the key that uploaded it).
func (p *storedPreview) ownedBy(o Owner) bool {
	if p.Owner != "" {
		return p.Owner == o.id()
	}
	return p.KeyID != "" && p.KeyID == o.Key
}

func newPreviewID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "imp_" + base64.RawURLEncoding.EncodeToString(b), nil
}

func newImportCard(r snapshots.Reader, c *snapshots.Card) importCard {
	out := importCard{CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Language: c.Language}
	if price, err := snapshots.ShownPrice(r, c); err == nil { // null at confidence none, as every card's price
		out.PriceUSD = snapshots.USDOrNil(price)
	}
	if s, err := r.Set(c.Game, c.SetID); err == nil {
		out.SetName = s.Name
	}
	return out
}

// rowStatus is the preview status of a resolution status.
var rowStatus = map[string]string{resolve.Resolved: "matched", resolve.Ambiguous: "ambiguous", resolve.NotFound: "unmatched"}

// PreviewRequest is one upload to preview.
type PreviewRequest struct {
	Owner       Owner  // whose collection the upload is for
	Game        string // the game the rows are of
	Body        []byte // CSV or JSON (ParseUpload)
	ContentType string // picks the format ("" or octet-stream: sniffed)
	// Strict makes any invalid row a FieldErrors naming each row and
	// column; otherwise invalid rows are reported and skipped.
	Strict bool
}

// Preview reads an upload, checks and resolves every row (resolve.Columns),
// values the matched rows (the estimate of their printing and grade, as
// of src's day) and keeps the
// preview PreviewTTL in the state store under its preview id, for Confirm.
// Errors: FieldErrors for a file that cannot be read (and for invalid rows
// when Strict), ETOOLARGE over MaxBytes or MaxRows; storage errors wrapped.
func (s *Service) Preview(ctx context.Context, src *live.View, req PreviewRequest) (*Preview, error) {
	if err := req.Owner.check(); err != nil {
		return nil, err
	}
	up, err := ParseUpload(req.Body, req.ContentType)
	if err != nil {
		return nil, err
	}
	cols, err := resolve.NewColumns(src, req.Game)
	if err != nil {
		return nil, err
	}
	id, err := newPreviewID()
	if err != nil {
		return nil, err
	}
	now := s.clock()
	stored := storedPreview{ID: id, Owner: req.Owner.id(), Game: req.Game, SnapshotID: src.Reader.Manifest().SnapshotID,
		Format: up.Format, Columns: up.Columns, Ignored: up.Ignored, Created: now, Expires: now.Add(PreviewTTL)}
	var strictErrs apperr.FieldErrors
	resolved := 0
	for _, row := range up.Rows {
		st := storedRow{Row: row.Row, Line: row.Line, Input: row.Values}
		if row.blank() {
			st.Status = "blank"
			stored.Rows = append(stored.Rows, st)
			continue
		}
		chk := checkRow(row)
		rctx, cancel := context.WithTimeout(ctx, rowTimeout)
		var res resolve.Match
		if len(chk.issues) == 0 {
			res = cols.Resolve(rctx, resolve.Fields{CardID: row.get("card_id"), Name: row.get("name"), Set: row.get("set"), Number: row.get("number"), Language: chk.language})
		}
		cancel()
		if len(chk.issues) == 0 && res.Status == resolve.Resolved {
			printing, err := printingOf(res.Card, chk.printing)
			if err != nil {
				chk.issues = append(chk.issues, rowIssue{Column: "printing", Message: apperr.ErrorMessage(err)})
			}
			st.CardID, st.Printing = res.Card.ID, printing
		}
		if len(chk.issues) > 0 {
			st = storedRow{Row: row.Row, Line: row.Line, Input: row.Values, Status: "invalid", Reason: chk.issues[0].Message, Errors: chk.issues}
			for _, is := range chk.issues {
				where := fmt.Sprintf("row %d", row.Row)
				if row.Line > 0 {
					where += fmt.Sprintf(" (line %d)", row.Line)
				}
				strictErrs = append(strictErrs, apperr.FieldError{Loc: []any{"body", "row", row.Row, is.Column}, Msg: where + ", column " + is.Column + ": " + is.Message, Type: "value_error"})
			}
			stored.Rows = append(stored.Rows, st)
			continue
		}
		resolved++
		st.Status, st.Reason, st.Warnings = rowStatus[res.Status], res.Reason, res.Warnings
		st.Grade, st.Quantity, st.PaidCents, st.HasPaid = chk.grade.String(), chk.quantity, chk.paid, chk.hasPaid
		switch st.Status {
		case "matched":
			st.Match = res.By
		case "ambiguous":
			st.Printing = chk.printing
			for _, c := range res.Candidates {
				st.Candidates = append(st.Candidates, c.ID)
			}
		}
		stored.Rows = append(stored.Rows, st)
	}
	if req.Strict && len(strictErrs) > 0 {
		return nil, strictErrs
	}
	if resolved == 0 {
		if len(strictErrs) > 50 {
			strictErrs = strictErrs[:50]
		}
		if len(strictErrs) == 0 {
			return nil, fileError("the upload has only blank rows")
		}
		return nil, strictErrs
	}
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err = s.state.Update(sctx, func(tx state.Tx) error { return previews.Put(tx, id, stored, PreviewTTL) })
	if err != nil {
		return nil, fmt.Errorf("imports: keep preview: %w", err)
	}
	return stored.view(src), nil
}

// ShowPreview returns o's preview id again, as Preview returned it (valued
// as of src), with Confirmed set once it was confirmed. ENOTFOUND: no such
// preview of this owner (or it expired).
func (s *Service) ShowPreview(ctx context.Context, src *live.View, o Owner, id string) (*Preview, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var p storedPreview
	sctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	err := s.state.View(sctx, func(tx state.Tx) error {
		var err error
		p, err = previews.Get(tx, id)
		return err
	})
	if errors.Is(err, state.ErrNotFound) || (err == nil && !p.ownedBy(o)) || len(id) > 64 {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "no preview %s for this collection: previews are kept 24 hours; upload the file again", id)
	}
	if err != nil {
		return nil, fmt.Errorf("imports: preview %s: %w", id, err)
	}
	return p.view(src), nil
}

// view is the preview as the API shows it, its matched rows valued as of
// src and its candidates read from src.
func (p *storedPreview) view(src *live.View) *Preview {
	out := &Preview{PreviewID: p.ID, ExpiresAt: p.Expires.UTC().Format(time.RFC3339), Game: p.Game, Format: p.Format,
		Columns: p.Columns, Ignored: jsontext.NonNil(p.Ignored), Rows: make([]previewRow, 0, len(p.Rows)),
		SnapshotID: src.Reader.Manifest().SnapshotID, AsOf: src.AsOf.String(), Confirmed: p.Confirmed != nil,
		Basis: "value_usd = fmv of the row's printing and grade (as of the snapshot) x quantity; price_paid is per copy",
		Next:  "POST /api/v3/me/imports/confirm {\"preview_id\": \"" + p.ID + "\"} stores the matched rows (and ambiguous rows you pick with \"choices\": {\"<row>\": \"<card_id>\"}) within 24 hours"}
	if out.Columns == nil {
		out.Columns = map[string]string{}
	}
	var sum previewSummary
	var paidCents, valueCents int64
	for _, st := range p.Rows {
		sum.Rows++
		pr := previewRow{Row: st.Row, Input: st.Input, Status: st.Status, Reason: st.Reason, Errors: st.Errors, Warnings: st.Warnings}
		if pr.Input == nil {
			pr.Input = map[string]string{}
		}
		if st.Line > 0 {
			line := st.Line
			pr.Line = &line
		}
		switch st.Status {
		case "blank":
			sum.Blank++
			out.Rows = append(out.Rows, pr)
			continue
		case "invalid":
			sum.Invalid++
			pr.Reason = ""
			out.Rows = append(out.Rows, pr)
			continue
		}
		pr.Grade, pr.GradeName, pr.Quantity = st.Grade, snapshots.GradeNameOf(st.Grade), st.Quantity
		if st.HasPaid {
			v := snapshots.USD(st.PaidCents)
			pr.PricePaidUSD = &v
		}
		switch st.Status {
		case "matched":
			sum.Matched++
			sum.Quantity += st.Quantity
			by := st.Match
			pr.Match = &by
			if c, err := src.Reader.Card(p.Game, st.CardID); err == nil {
				ic := newImportCard(src.Reader, c)
				pr.Card = &ic
				if st.Printing != "" {
					pr.Printing = st.Printing
				} else if b := snapshots.BasePrinting(c); b < len(c.Variants) {
					pr.Printing = c.Variants[b]
				}
			}
			if hr := valueHolding(src, holding{Game: p.Game, CardID: st.CardID, Printing: st.Printing, Grade: st.Grade, Quantity: st.Quantity}, snapshots.NoDay); hr.valued {
				pr.FMVUSD, pr.ValueUSD = hr.FMVUSD, hr.ValueUSD
				valueCents += hr.valueCents
			} else {
				sum.Unvalued++
				pr.ValueNote = hr.Note
			}
			if st.HasPaid {
				paidCents += st.PaidCents * int64(st.Quantity)
			}
		case "ambiguous":
			sum.Ambiguous++
			pr.Printing = st.Printing
			for _, id := range st.Candidates {
				if c, err := src.Reader.Card(p.Game, id); err == nil {
					pr.Candidates = append(pr.Candidates, newImportCard(src.Reader, c))
				}
			}
		default:
			sum.Unmatched++
		}
		out.Rows = append(out.Rows, pr)
	}
	sum.ValueUSD, sum.PaidUSD = snapshots.USD(valueCents), snapshots.USD(paidCents)
	out.Summary = sum
	return out
}

// Cost is what previewing an upload costs, read before anything is charged
// (a bad or oversized upload costs nothing): one unit per started 100 rows.
func Cost(body []byte, contentType string) (int, error) {
	up, err := ParseUpload(body, contentType)
	if err != nil {
		return 0, err
	}
	return (len(up.Rows) + 99) / 100, nil
}
