package edge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/edge/resolve"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/jsontext"
	"github.com/cardedge/cardedge/state"
)

// Collection imports: POST /api/v3/me/imports/preview takes a collection as
// CSV or JSON rows, resolves every row to a card (or ambiguous candidates, or
// unmatched with a reason), values it and keeps the preview in the state file
// for 24 hours under a preview id; POST /api/v3/me/imports/confirm with that
// id adds the resolved rows to the key's collection, once (a second confirm
// answers already_confirmed and stores nothing).

// Limits of an upload.
const (
	importMaxBytes   = 1 << 20 // body
	importMaxRows    = 5000    // data rows, blank rows included
	importPreviewTTL = 24 * time.Hour
	importMaxQty     = 100000
)

// The imports' tables in the state store (Options.State).
var (
	importPreviews    = state.NewTable[storedPreview](state.ImportPreviews) // preview id -> preview, for importPreviewTTL
	importCollections = state.NewTable[collection](state.Collections)       // key id -> collection
)

// importStateTimeout bounds one transaction of the imports on the state store.
const importStateTimeout = 5 * time.Second

// importNow is the clock of preview expiry.
var importNow = time.Now

func (s *Server) registerImportRoutes() {
	s.router.add(&route{method: "POST", pattern: "/api/v3/me/imports/preview", name: "imports_preview", contract: "import-preview.v1", hasGame: true,
		summary: "Preview a collection upload (CSV or JSON rows): each row resolved, valued, and kept 24 h under a preview id", schema: "ImportPreview",
		bodyTypes: []string{"text/csv", "application/json"},
		params: []paramSpec{
			pBool("strict", "false", "true: any invalid row makes the whole upload a 422 naming each row and column; false: invalid rows are reported and skipped."),
			gameParam(),
		},
		cost: importPreviewCost, handle: s.handleImportPreview})
	s.router.add(&route{method: "POST", pattern: "/api/v3/me/imports/confirm", name: "imports_confirm", contract: "import-confirm.v1",
		summary: "Confirm a preview: store its resolved rows in the key's collection (idempotent)", schema: "ImportConfirm",
		handle: s.handleImportConfirm})
}

// ---- reading the upload ----

// importFields are the fields of a row, with the column names each accepts
// (compared after lowercasing and turning spaces and dashes into _).
var importFields = []struct {
	field   string
	aliases []string
}{
	{"card_id", []string{"card_id", "id", "cardid"}},
	{"name", []string{"name", "card_name", "card", "cardname"}},
	{"set", []string{"set", "set_id", "set_name", "set_code", "setname", "expansion", "edition"}},
	{"number", []string{"number", "card_number", "collector_number", "no", "num", "#"}},
	{"language", []string{"language", "lang"}},
	{"grade", []string{"grade", "graded", "slab"}},
	{"condition", []string{"condition", "cond"}},
	{"quantity", []string{"quantity", "qty", "count", "copies"}},
	{"price_paid", []string{"price_paid", "paid", "price_paid_usd", "purchase_price", "cost", "paid_usd", "buy_price"}},
}

func importField(column string) string {
	c := strings.ToLower(strings.TrimSpace(column))
	c = strings.NewReplacer(" ", "_", "-", "_").Replace(c)
	for _, f := range importFields {
		if slices.Contains(f.aliases, c) {
			return f.field
		}
	}
	return ""
}

// importRow is one data row as uploaded.
type importRow struct {
	Row    int               // 1-based data row (the CSV header is not a row)
	Line   int               // CSV line where the row starts (0 for JSON)
	Values map[string]string // field -> trimmed text
}

func (r importRow) get(f string) string { return r.Values[f] }

func (r importRow) blank() bool {
	for _, v := range r.Values {
		if v != "" {
			return false
		}
	}
	return true
}

// upload is a parsed file.
type upload struct {
	Format  string
	Columns map[string]string // column as uploaded -> field
	Ignored []string          // columns no field takes
	Rows    []importRow
}

// tooLarge is the 413 of an upload over a limit.
func tooLarge(format string, args ...any) error {
	return snapshots.Errorf(snapshots.ETOOLARGE, format, args...)
}

// fileError is the 422 of a file that cannot be read; loc names the row and
// column when known.
func fileError(msg string, loc ...any) error {
	return validationErrors{{Loc: append([]any{"body"}, loc...), Msg: msg, Type: "value_error"}}
}

// parseUpload reads a CSV or JSON upload; contentType picks the format (a
// JSON body is also recognised by its first character).
func parseUpload(body []byte, contentType string) (*upload, error) {
	if len(body) > importMaxBytes {
		return nil, tooLarge("the upload is %d bytes; at most %d (1 MiB) and %d rows per import: split the file", len(body), importMaxBytes, importMaxRows)
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")) // a spreadsheet's BOM
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, fileError("the upload is empty: send CSV (text/csv) with a header row, or JSON rows")
	}
	mt, _, _ := strings.Cut(strings.ToLower(contentType), ";")
	mt = strings.TrimSpace(mt)
	first := bytes.TrimSpace(body)[0]
	isJSON := mt == "application/json" || ((mt == "" || mt == "application/octet-stream") && (first == '[' || first == '{'))
	if isJSON {
		return parseJSONUpload(body)
	}
	return parseCSVUpload(body)
}

func parseCSVUpload(body []byte) (*upload, error) {
	if !utf8.Valid(body) {
		line := 1 + bytes.Count(body[:firstInvalidUTF8(body)], []byte("\n"))
		return nil, fileError(fmt.Sprintf("line %d is not valid UTF-8: save the file as UTF-8", line), "line", line)
	}
	// The delimiter: a comma unless the header has none and a semicolon or
	// tab instead (spreadsheets in some locales).
	header, _, _ := bytes.Cut(body, []byte("\n"))
	rd := csv.NewReader(bytes.NewReader(body))
	if !bytes.ContainsRune(header, ',') {
		if bytes.ContainsRune(header, ';') {
			rd.Comma = ';'
		} else if bytes.ContainsRune(header, '\t') {
			rd.Comma = '\t'
		}
	}
	rd.TrimLeadingSpace = true
	cols, err := rd.Read()
	if err != nil {
		return nil, csvError(err, 0, nil)
	}
	up := &upload{Format: "csv", Columns: map[string]string{}}
	fields := make([]string, len(cols))
	seen := map[string]string{}
	for i, c := range cols {
		c = strings.TrimSpace(c)
		f := importField(c)
		if f == "" {
			if c != "" {
				up.Ignored = append(up.Ignored, c)
			}
			continue
		}
		if prev, dup := seen[f]; dup {
			return nil, fileError(fmt.Sprintf("header: columns %q and %q both mean %s", prev, c, f), "header", i+1)
		}
		seen[f] = c
		fields[i] = f
		up.Columns[c] = f
	}
	if err := checkColumns(seen, cols); err != nil {
		return nil, err
	}
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		row := len(up.Rows) + 1
		if err != nil {
			return nil, csvError(err, row, cols)
		}
		if row > importMaxRows {
			return nil, tooLarge("the upload has more than %d rows; at most %d rows (and 1 MiB) per import: split the file", importMaxRows, importMaxRows)
		}
		line, _ := rd.FieldPos(0)
		r := importRow{Row: row, Line: line, Values: map[string]string{}}
		for i, v := range rec {
			if fields[i] != "" {
				r.Values[fields[i]] = strings.TrimSpace(v)
			}
		}
		up.Rows = append(up.Rows, r)
	}
	if len(up.Rows) == 0 {
		return nil, fileError("the file has a header but no rows")
	}
	return up, nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// csvError names the row and column of a CSV syntax error.
func csvError(err error, row int, header []string) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fileError("cannot read the CSV: " + err.Error())
	}
	if row == 0 {
		return fileError(fmt.Sprintf("header (line %d), column %d: %v", pe.Line, pe.Column, pe.Err), "header", pe.Column)
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return fileError(fmt.Sprintf("row %d (line %d) does not have the %d columns of the header (%s): check for a missing or extra comma",
			row, pe.StartLine, len(header), strings.Join(header, ", ")), "row", row)
	}
	return fileError(fmt.Sprintf("row %d (line %d), column %d: %v (quote a field that contains commas or quotes, and double the quotes inside it)",
		row, pe.Line, pe.Column, pe.Err), "row", row, pe.Column)
}

// checkColumns refuses a header that can name no card.
func checkColumns(seen map[string]string, cols []string) error {
	if seen["card_id"] != "" || seen["name"] != "" || (seen["set"] != "" && seen["number"] != "") {
		return nil
	}
	return fileError(fmt.Sprintf("the header (%s) names no card column: give card_id, or name, or set and number (also language, grade or condition, quantity, price_paid)",
		strings.Join(cols, ", ")), "header")
}

func parseJSONUpload(body []byte) (*upload, error) {
	var raw json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonUploadError(body, err)
	}
	if dec.More() {
		return nil, fileError("the JSON has more than one value: send one array of rows, or {\"rows\": [...]}")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var wrapper struct {
			Rows json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(raw, &wrapper); err != nil || wrapper.Rows == nil {
			return nil, fileError("a JSON object upload must hold the rows in \"rows\": {\"rows\": [{\"name\": ..., \"set\": ..., ...}]}", "rows")
		}
		raw = wrapper.Rows
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fileError("the rows must be a JSON array of objects", "rows")
	}
	if len(items) > importMaxRows {
		return nil, tooLarge("the upload has %d rows; at most %d rows (and 1 MiB) per import: split the file", len(items), importMaxRows)
	}
	if len(items) == 0 {
		return nil, fileError("the upload has no rows", "rows")
	}
	up := &upload{Format: "json", Columns: map[string]string{}}
	ignored := map[string]bool{}
	seenFields := map[string]string{}
	for i, item := range items {
		row := i + 1
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(item))
		d.UseNumber()
		if err := d.Decode(&obj); err != nil || obj == nil {
			return nil, fileError(fmt.Sprintf("row %d is not a JSON object", row), "row", row)
		}
		r := importRow{Row: row, Values: map[string]string{}}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f := importField(k)
			if f == "" {
				if !ignored[k] {
					ignored[k] = true
					up.Ignored = append(up.Ignored, k)
				}
				continue
			}
			if _, dup := r.Values[f]; dup {
				return nil, fileError(fmt.Sprintf("row %d: two properties mean %s", row, f), "row", row, k)
			}
			up.Columns[k] = f
			seenFields[f] = k
			switch v := obj[k].(type) {
			case nil:
				r.Values[f] = ""
			case string:
				r.Values[f] = strings.TrimSpace(v)
			case json.Number:
				r.Values[f] = v.String()
			default:
				return nil, fileError(fmt.Sprintf("row %d, column %q: expected a string or a number", row, k), "row", row, k)
			}
		}
		up.Rows = append(up.Rows, r)
	}
	if err := checkColumns(seenFields, keysOf(up.Columns)); err != nil {
		return nil, err
	}
	return up, nil
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func jsonUploadError(body []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(min(se.Offset, int64(len(body))))
		line := 1 + bytes.Count(body[:off], []byte("\n"))
		col := off - bytes.LastIndexByte(body[:off], '\n')
		return fileError(fmt.Sprintf("JSON syntax error at line %d, column %d: %v", line, col, err), "line", line)
	}
	return fileError("cannot read the JSON: " + err.Error())
}

// ---- checking and resolving rows ----

// rowIssue is one invalid value of a row.
type rowIssue struct {
	Column  string `json:"column"`
	Message string `json:"message"`
}

// checkedRow is a row's values after validation.
type checkedRow struct {
	grade    snapshots.Grade
	quantity int
	paid     int64 // cents per copy
	hasPaid  bool
	language string
	issues   []rowIssue
}

var languageNames = map[string]string{
	"en": "en", "english": "en", "eng": "en",
	"ja": "ja", "jp": "ja", "jpn": "ja", "japanese": "ja",
	"zh-cn": "zh-cn", "zh_cn": "zh-cn", "chinese (simplified)": "zh-cn", "simplified chinese": "zh-cn", "s-chinese": "zh-cn",
	"zh-tw": "zh-tw", "zh_tw": "zh-tw", "chinese (traditional)": "zh-tw", "traditional chinese": "zh-tw", "t-chinese": "zh-tw",
}

// parseMoney reads "12.50", "$1,200", "12 USD" as cents.
func parseMoney(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "USD"), "USD"))
	t = strings.ReplaceAll(strings.TrimPrefix(t, "$"), ",", "")
	f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e9 {
		return 0, fmt.Errorf("price_paid %q: want an amount in USD such as 12.50 (per copy)", s)
	}
	return int64(math.Round(f * 100)), nil
}

func checkRow(r importRow) checkedRow {
	var c checkedRow
	g, col, err := snapshots.ReadGradeCondition(r.get("grade"), r.get("condition"))
	if err != nil {
		c.issues = append(c.issues, rowIssue{Column: col, Message: err.Error()})
	}
	c.grade = g
	c.quantity = 1
	if q := r.get("quantity"); q != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(q, ".0"))
		if err != nil || n < 1 || n > importMaxQty {
			c.issues = append(c.issues, rowIssue{Column: "quantity", Message: fmt.Sprintf("quantity %q: want a whole number from 1 to %d", q, importMaxQty)})
		} else {
			c.quantity = n
		}
	}
	if p := r.get("price_paid"); p != "" {
		cents, err := parseMoney(p)
		if err != nil {
			c.issues = append(c.issues, rowIssue{Column: "price_paid", Message: err.Error()})
		} else {
			c.paid, c.hasPaid = cents, true
		}
	}
	if l := strings.ToLower(r.get("language")); l != "" {
		if x, ok := languageNames[l]; ok {
			c.language = x
		} else {
			c.issues = append(c.issues, rowIssue{Column: "language", Message: fmt.Sprintf("language %q: want en, ja, zh-cn or zh-tw", r.get("language"))})
		}
	}
	if r.get("card_id") == "" && r.get("name") == "" && (r.get("set") == "" || r.get("number") == "") {
		c.issues = append(c.issues, rowIssue{Column: "name", Message: "the row names no card: give card_id, or name, or set and number"})
	}
	return c
}

// ---- preview ----

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
	Match        *string           `json:"match,omitempty"` // how it matched: card_id, partner_product_id, set_number, set_name, name
	Card         *importCard       `json:"card,omitempty"`
	Candidates   []importCard      `json:"candidates,omitempty"`
	Reason       string            `json:"reason,omitempty"`
	Errors       []rowIssue        `json:"errors,omitempty"`
	Warnings     []string          `json:"warnings,omitempty"`
	Grade        string            `json:"grade,omitempty"`
	Quantity     int               `json:"quantity,omitempty"`
	PricePaidUSD *float64          `json:"price_paid_usd,omitempty"` // per copy
	FMVUSD       *float64          `json:"fmv_usd,omitempty"`        // per copy, fmv of the grade
	ValueUSD     *float64          `json:"value_usd,omitempty"`      // fmv x quantity
	ValueNote    string            `json:"value_note,omitempty"`
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

type previewPayload struct {
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
}

// storedPreview is what confirm needs of a preview.
type storedPreview struct {
	ID         string              `json:"id"`
	KeyID      string              `json:"key_id"`
	Game       string              `json:"game"`
	SnapshotID string              `json:"snapshot_id"`
	Created    time.Time           `json:"created"`
	Expires    time.Time           `json:"expires"`
	Rows       []storedRow         `json:"rows"`
	Confirmed  *importConfirmation `json:"confirmed,omitempty"`
}

type storedRow struct {
	Row        int      `json:"row"`
	Status     string   `json:"status"`
	CardID     string   `json:"card_id,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
	Grade      string   `json:"grade,omitempty"`
	Quantity   int      `json:"quantity,omitempty"`
	PaidCents  int64    `json:"paid_cents,omitempty"`
	HasPaid    bool     `json:"has_paid,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// importPreviewCost reads the upload before anything is charged (bad files
// and oversized ones cost nothing): one unit per started 100 rows.
func importPreviewCost(r *request) (int, error) {
	up, err := parseUpload(r.body, string(r.ctx.Request.Header.ContentType()))
	if err != nil {
		return 0, err
	}
	return (len(up.Rows) + 99) / 100, nil
}

func newPreviewID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "imp_" + base64.RawURLEncoding.EncodeToString(b), nil
}

func newImportCard(r snapshots.Reader, c *snapshots.Card) importCard {
	out := importCard{CardID: c.ID, Name: c.Name, SetID: c.SetID, Number: c.Number, Language: c.Language, PriceUSD: snapshots.USDOrNil(c.PriceCents)}
	if s, err := r.Set(c.Game, c.SetID); err == nil {
		out.SetName = s.Name
	}
	return out
}

// rowStatus is the preview status of a resolution status.
var rowStatus = map[string]string{resolve.Resolved: "matched", resolve.Ambiguous: "ambiguous", resolve.NotFound: "unmatched"}

func (s *Server) handleImportPreview(r *request) (any, error) {
	up, err := parseUpload(r.body, string(r.ctx.Request.Header.ContentType()))
	if err != nil {
		return nil, err
	}
	cols, err := resolve.NewColumns(resolve.Source{Reader: r.snap.Reader, Index: r.snap.Index, AsOf: r.snap.AsOf}, r.game)
	if err != nil {
		return nil, err
	}
	id, err := newPreviewID()
	if err != nil {
		return nil, err
	}
	now := importNow().UTC().Truncate(time.Second)
	out := &previewPayload{PreviewID: id, ExpiresAt: now.Add(importPreviewTTL).Format(time.RFC3339), Game: r.game, Format: up.Format,
		Columns: up.Columns, Ignored: jsontext.NonNil(up.Ignored), Rows: make([]previewRow, 0, len(up.Rows)),
		SnapshotID: r.snap.Manifest().SnapshotID, AsOf: r.snap.AsOf.String(),
		Basis: "value_usd = fmv of the row's grade (as of the snapshot) x quantity; price_paid is per copy",
		Next:  "POST /api/v3/me/imports/confirm {\"preview_id\": \"" + id + "\"} stores the matched rows (and ambiguous rows you pick with \"choices\": {\"<row>\": \"<card_id>\"}) within 24 hours"}
	stored := storedPreview{ID: id, KeyID: r.caller.KeyID, Game: r.game, SnapshotID: out.SnapshotID, Created: now, Expires: now.Add(importPreviewTTL)}
	var strictErrs validationErrors
	var sum previewSummary
	var paidCents, valueCents int64
	for _, row := range up.Rows {
		sum.Rows++
		pr := previewRow{Row: row.Row, Input: row.Values}
		if row.Line > 0 {
			line := row.Line
			pr.Line = &line
		}
		if row.blank() {
			sum.Blank++
			pr.Status = "blank"
			out.Rows = append(out.Rows, pr)
			continue
		}
		chk := checkRow(row)
		if len(chk.issues) > 0 {
			sum.Invalid++
			pr.Status, pr.Errors = "invalid", chk.issues
			for _, is := range chk.issues {
				where := fmt.Sprintf("row %d", row.Row)
				if row.Line > 0 {
					where += fmt.Sprintf(" (line %d)", row.Line)
				}
				strictErrs = append(strictErrs, validationError{Loc: []any{"body", "row", row.Row, is.Column}, Msg: where + ", column " + is.Column + ": " + is.Message, Type: "value_error"})
			}
			out.Rows = append(out.Rows, pr)
			stored.Rows = append(stored.Rows, storedRow{Row: row.Row, Status: "invalid", Reason: chk.issues[0].Message})
			continue
		}
		pr.Grade, pr.Quantity = chk.grade.String(), chk.quantity
		if chk.hasPaid {
			v := snapshots.USD(chk.paid)
			pr.PricePaidUSD = &v
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		res := cols.Resolve(ctx, resolve.Fields{CardID: row.get("card_id"), Name: row.get("name"), Set: row.get("set"), Number: row.get("number"), Language: chk.language})
		cancel()
		pr.Status, pr.Reason, pr.Warnings = rowStatus[res.Status], res.Reason, res.Warnings
		st := storedRow{Row: row.Row, Status: pr.Status, Grade: pr.Grade, Quantity: chk.quantity, PaidCents: chk.paid, HasPaid: chk.hasPaid, Reason: res.Reason}
		switch pr.Status {
		case "matched":
			sum.Matched++
			sum.Quantity += chk.quantity
			by := res.By
			pr.Match = &by
			ic := newImportCard(r.snap.Reader, res.Card)
			pr.Card = &ic
			st.CardID = res.Card.ID
			fmv, err := pricing.FMV(r.snap, res.Card, chk.grade, r.snap.AsOf)
			if err != nil {
				return nil, err
			}
			if fmv > 0 {
				pr.FMVUSD = snapshots.USDOrNil(fmv)
				pr.ValueUSD = snapshots.USDOrNil(fmv * int64(chk.quantity))
				valueCents += fmv * int64(chk.quantity)
			} else {
				sum.Unvalued++
				pr.ValueNote = "no fmv for " + pr.Grade + ": no verified sale of this card in that grade"
			}
			if chk.hasPaid {
				paidCents += chk.paid * int64(chk.quantity)
			}
		case "ambiguous":
			sum.Ambiguous++
			for _, c := range res.Candidates {
				pr.Candidates = append(pr.Candidates, newImportCard(r.snap.Reader, c))
				st.Candidates = append(st.Candidates, c.ID)
			}
		default:
			sum.Unmatched++
		}
		out.Rows = append(out.Rows, pr)
		stored.Rows = append(stored.Rows, st)
	}
	if r.p.flag("strict") && len(strictErrs) > 0 {
		return nil, strictErrs
	}
	if sum.Matched+sum.Ambiguous+sum.Unmatched == 0 {
		if len(strictErrs) > 50 {
			strictErrs = strictErrs[:50]
		}
		if len(strictErrs) == 0 {
			return nil, fileError("the upload has only blank rows")
		}
		return nil, strictErrs
	}
	sum.ValueUSD, sum.PaidUSD = snapshots.USD(valueCents), snapshots.USD(paidCents)
	out.Summary = sum
	ctx, cancel := context.WithTimeout(context.Background(), importStateTimeout)
	defer cancel()
	err = s.opts.State.Update(ctx, func(tx state.Tx) error { return importPreviews.Put(tx, id, stored, importPreviewTTL) })
	if err != nil {
		return nil, fmt.Errorf("imports: keep preview: %w", err)
	}
	return out, nil
}

// ---- confirm ----

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

type confirmPayload struct {
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

func parseConfirm(body []byte) (confirmBody, error) {
	var b confirmBody
	if err := json.Unmarshal(body, &b); err != nil {
		return b, validationErrors{{Loc: []any{"body"}, Msg: "body must be a JSON object {\"preview_id\": \"imp_...\", \"choices\": {\"<row>\": \"<card_id>\"}}: " + err.Error(), Type: "json_invalid"}}
	}
	if !strings.HasPrefix(b.PreviewID, "imp_") || len(b.PreviewID) > 64 {
		return b, validationErrors{{Loc: []any{"body", "preview_id"}, Msg: "preview_id must be the id a preview returned (imp_...)", Type: "value_error", Input: b.PreviewID}}
	}
	return b, nil
}

func (s *Server) handleImportConfirm(r *request) (any, error) {
	b, err := parseConfirm(r.body)
	if err != nil {
		return nil, err
	}
	now := importNow().UTC().Truncate(time.Second)
	var out confirmPayload
	var coll collection
	ctx, cancel := context.WithTimeout(context.Background(), importStateTimeout)
	defer cancel()
	err = s.opts.State.Update(ctx, func(tx state.Tx) error {
		var err error
		out = confirmPayload{}
		coll, err = importCollections.Get(tx, r.caller.KeyID)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("imports: collection of %s: %w", r.caller.KeyID, err)
		}
		p, err := importPreviews.Get(tx, b.PreviewID)
		found := err == nil
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("imports: preview %s: %w", b.PreviewID, err)
		}
		if !found || p.KeyID != r.caller.KeyID {
			for _, im := range coll.Imports {
				if im.ImportID == b.PreviewID { // confirmed, and the preview has expired since
					out = confirmPayload{PreviewID: b.PreviewID, ImportID: im.ImportID, Status: "already_confirmed", AlreadyConfirmed: true,
						ConfirmedAt: im.ConfirmedAt.Format(time.RFC3339), StoredRows: im.Rows, StoredQuantity: im.Quantity, Skipped: []skippedRow{}}
					return nil
				}
			}
			return snapshots.Errorf(snapshots.ENOTFOUND, "no preview %s for this key: previews are kept 24 hours; upload the file again", b.PreviewID)
		}
		if p.Confirmed != nil {
			c := p.Confirmed
			out = confirmPayload{PreviewID: p.ID, ImportID: c.ImportID, Status: "already_confirmed", AlreadyConfirmed: true,
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
		coll.KeyID, coll.Updated = r.caller.KeyID, now
		if err := importCollections.Put(tx, r.caller.KeyID, coll, 0); err != nil {
			return err
		}
		p.Confirmed = conf
		if err := importPreviews.Put(tx, p.ID, p, p.Expires.Sub(now)); err != nil {
			return err
		}
		out = confirmPayload{PreviewID: p.ID, ImportID: conf.ImportID, Status: "confirmed", ConfirmedAt: conf.ConfirmedAt.Format(time.RFC3339),
			StoredRows: conf.StoredRows, StoredQuantity: conf.StoredQuantity, Skipped: conf.Skipped}
		return nil
	})
	if err != nil {
		var verrs validationErrors
		if errors.As(err, &verrs) || snapshots.ErrorCode(err) != snapshots.EINTERNAL {
			return nil, err
		}
		return nil, fmt.Errorf("imports: confirm: %w", err)
	}
	out.Collection = summarizeCollection(r.snap, &coll)
	out.Basis = "the collection holds every confirmed import of this key, merged by card and grade; value_usd = fmv of each holding's grade x quantity as of the snapshot"
	if out.Skipped == nil {
		out.Skipped = []skippedRow{}
	}
	return out, nil
}

// applyImport adds a preview's matched rows, and the ambiguous rows given a
// choice among their candidates, to the collection.
func applyImport(coll *collection, p *storedPreview, choices map[string]string, now time.Time) (*importConfirmation, validationErrors) {
	byRow := map[int]*storedRow{}
	for i := range p.Rows {
		byRow[p.Rows[i].Row] = &p.Rows[i]
	}
	picked := map[int]string{}
	var verrs validationErrors
	for k, id := range choices {
		n, err := strconv.Atoi(k)
		row := byRow[n]
		switch {
		case err != nil || row == nil:
			verrs = append(verrs, validationError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("preview %s has no row %s", p.ID, k), Type: "value_error", Input: id})
		case row.Status != "ambiguous":
			verrs = append(verrs, validationError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d is %s, not ambiguous: only ambiguous rows take a choice", n, row.Status), Type: "value_error", Input: id})
		default:
			ok := false
			for _, c := range row.Candidates {
				if strings.EqualFold(c, id) {
					picked[n], ok = c, true
				}
			}
			if !ok {
				verrs = append(verrs, validationError{Loc: []any{"body", "choices", k}, Msg: fmt.Sprintf("row %d: %q is not one of its candidates (%s)", n, id, strings.Join(row.Candidates, ", ")), Type: "value_error", Input: id})
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

func summarizeCollection(snap *Snapshot, coll *collection) *collectionSummary {
	out := &collectionSummary{Holdings: len(coll.Holdings), Imports: len(coll.Imports), ImportID: []string{}}
	cards := map[string]bool{}
	var value, paid int64
	for _, h := range coll.Holdings {
		out.Quantity += h.Quantity
		paid += h.PaidCents
		cards[h.Game+"|"+strings.ToLower(h.CardID)] = true
		c, err := snap.Card(h.Game, h.CardID)
		g, gerr := snapshots.ParseGrade(h.Grade)
		if err != nil || gerr != nil {
			out.Unvalued++
			continue
		}
		fmv, err := pricing.FMV(snap, c, g, snap.AsOf)
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
