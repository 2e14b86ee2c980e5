package collection

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
)

// Reading an upload: CSV (comma, semicolon or tab; a header row) or JSON
// rows, any column names a collector's spreadsheet uses (importFields).

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
	{"printing", []string{"printing", "finish", "variant"}},
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

// Upload is a parsed file: its format, the columns it had (as uploaded ->
// field), the columns no field takes, and its rows.
type Upload struct {
	Format  string
	Columns map[string]string // column as uploaded -> field
	Ignored []string          // columns no field takes
	Rows    []importRow
}

// tooLarge is the 413 of an upload over a limit.
func tooLarge(format string, args ...any) error {
	return apperr.Errorf(apperr.ETOOLARGE, format, args...)
}

// fileError is the 422 of a file that cannot be read; loc names the row and
// column when known.
func fileError(msg string, loc ...any) error {
	return apperr.FieldErrors{{Loc: append([]any{"body"}, loc...), Msg: msg, Type: "value_error"}}
}

// ParseUpload reads a CSV or JSON upload; contentType picks the format (a
// JSON body is also recognised by its first character).
func ParseUpload(body []byte, contentType string) (*Upload, error) {
	if len(body) > MaxBytes {
		return nil, tooLarge("the upload is %d bytes; at most %d (1 MiB) and %d rows per import: split the file", len(body), MaxBytes, MaxRows)
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

func parseCSVUpload(body []byte) (*Upload, error) {
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
	up := &Upload{Format: "csv", Columns: map[string]string{}}
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
		if row > MaxRows {
			return nil, tooLarge("the upload has more than %d rows; at most %d rows (and 1 MiB) per import: split the file", MaxRows, MaxRows)
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

func parseJSONUpload(body []byte) (*Upload, error) {
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
	if len(items) > MaxRows {
		return nil, tooLarge("the upload has %d rows; at most %d rows (and 1 MiB) per import: split the file", len(items), MaxRows)
	}
	if len(items) == 0 {
		return nil, fileError("the upload has no rows", "rows")
	}
	up := &Upload{Format: "json", Columns: map[string]string{}}
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
