package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/state"
)

// End-to-end tests of collection imports (POST /api/v3/me/imports/preview and
// /confirm) against the shared edge of main_test.go: every expectation is
// read from the same server's REST routes.

type catalogCard struct{ id, name, set, number, lang string }

// catalogOf reads every card of the first game through the REST list.
func catalogOf(t *testing.T) []catalogCard {
	t.Helper()
	var out []catalogCard
	for off := 0; ; off += 200 {
		d := data(t, do(t, keyedClient, "GET", fmt.Sprintf("/api/v3/cards?limit=200&offset=%d&sort=name&order=asc", off), env.keys["elite"], nil))
		for _, it := range d["items"].([]any) {
			m := it.(map[string]any)
			out = append(out, catalogCard{m["card_id"].(string), m["name"].(string), m["set"].(map[string]any)["id"].(string), m["number"].(string), m["language"].(string)})
		}
		if off+200 >= int(d["total"].(float64)) {
			return out
		}
	}
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func upload(t *testing.T, key, path, contentType string, body []byte) e2etest.Reply {
	t.Helper()
	return do(t, keyedClient, "POST", path, key, body, "Content-Type", contentType)
}

func TestImports_PreviewConfirm(t *testing.T) {
	setupFeatureKeys(t)
	key := env.keys["importer"]
	cards := catalogOf(t)
	names := map[string]int{}
	for _, c := range cards {
		names[strings.ToLower(c.name)]++
	}
	// 200 rows: 60 by card id, 60 by set and number, 40 by a unique name, 10
	// ambiguous names, 10 unmatched, 10 invalid, 10 blank.
	var rows []string
	kind := map[int]string{}
	add := func(k string, fields ...string) {
		for i := range fields {
			fields[i] = csvField(fields[i])
		}
		rows = append(rows, strings.Join(fields, ","))
		kind[len(rows)] = k
	}
	grades := []string{"", "slab 10", "NM", "BGS 9.5", "raw:lightly_played", "cgc:9"}
	var byID, bySet, byName []catalogCard
	for _, c := range cards {
		switch {
		case c.lang == "en" && len(bySet) < 60 && c.id != "en:base1-4" && len(byID) >= 60:
			bySet = append(bySet, c)
		case len(byID) < 60:
			byID = append(byID, c)
		}
	}
	for _, c := range cards {
		if names[strings.ToLower(c.name)] == 1 && len(byName) < 40 && c.lang == "en" {
			byName = append(byName, c)
		}
	}
	if len(bySet) < 60 || len(byName) < 40 {
		t.Fatalf("catalog too small: %d set rows, %d unique names", len(bySet), len(byName))
	}
	//               card_id, name, set, number, language, grade, quantity, price paid
	add("id", "en:base1-4", "Charizard", "", "", "", "slab 10", "2", "$1,200.00")
	for i, c := range byID[:59] {
		add("id", c.id, "", "", "", "", grades[i%len(grades)], fmt.Sprint(1+i%3), fmt.Sprintf("%d.50", i))
	}
	for i, c := range bySet {
		number := c.number
		if i%2 == 0 {
			number = "00" + number + "/999"
		}
		add("set", "", "", c.set, number, "en", grades[i%len(grades)], "1", "")
	}
	for _, c := range byName {
		add("name", "", c.name, "", "", "", "", "", "3")
	}
	for i := 0; i < 10; i++ {
		n := "Pikachu"
		if i%2 == 1 {
			n = "Charizard ex"
		}
		add("ambiguous", "", n, "", "", "", "", "1", "")
	}
	for i := 0; i < 5; i++ {
		add("unmatched", "", "Zzyzx Nonexistent Card", "", "", "", "", "1", "")
		add("unmatched", "", "", "en:nope", "1", "", "", "1", "")
	}
	bad := [][2]string{{"quantity", "abc"}, {"grade", "slab 11"}, {"price_paid", "free"}, {"language", "klingon"}, {"quantity", "-2"}}
	for i := 0; i < 10; i++ {
		f := []string{byID[i].id, "", "", "", "", "", "1", ""}
		col := map[string]int{"language": 4, "grade": 5, "quantity": 6, "price_paid": 7}[bad[i%5][0]]
		f[col] = bad[i%5][1]
		add("invalid:"+bad[i%5][0], f...)
	}
	for i := 0; i < 10; i++ {
		add("blank", "", "", "", "", "", "", "", "")
	}
	if len(rows) != 200 {
		t.Fatalf("%d rows", len(rows))
	}
	csvText := "Card ID,Name,Set,Number,Language,Grade,Qty,Price Paid\n" + strings.Join(rows, "\n") + "\n"

	r := upload(t, key, "/api/v3/me/imports/preview", "text/csv", []byte(csvText))
	if r.Status != 200 || r.JSON["contract"] != "import-preview.v1" {
		t.Fatalf("preview: %d %s", r.Status, truncate(r.Body))
	}
	p := data(t, r)
	sum := p["summary"].(map[string]any)
	want := map[string]float64{"rows": 200, "matched": 160, "ambiguous": 10, "unmatched": 10, "invalid": 10, "blank": 10}
	for k, v := range want {
		if sum[k].(float64) != v {
			t.Errorf("summary %s = %v, want %v (summary %v)", k, sum[k], v, sum)
		}
	}
	prow := p["rows"].([]any)
	for i, x := range prow {
		row := x.(map[string]any)
		k := kind[i+1]
		if int(row["row"].(float64)) != i+1 || int(row["line"].(float64)) != i+2 {
			t.Fatalf("row %d numbered %v, line %v", i+1, row["row"], row["line"])
		}
		switch {
		case k == "id" || k == "set" || k == "name":
			if row["status"] != "matched" {
				t.Errorf("row %d (%s) %v: %v", i+1, k, row["status"], row)
			}
		case k == "ambiguous":
			if c, _ := row["candidates"].([]any); row["status"] != "ambiguous" || len(c) < 2 || len(c) > 5 {
				t.Errorf("row %d ambiguous: %v", i+1, row)
			}
		case k == "unmatched":
			if row["status"] != "unmatched" || row["reason"] == "" {
				t.Errorf("row %d unmatched: %v", i+1, row)
			}
		case strings.HasPrefix(k, "invalid:"):
			errs, _ := row["errors"].([]any)
			if row["status"] != "invalid" || len(errs) == 0 || errs[0].(map[string]any)["column"] != strings.TrimPrefix(k, "invalid:") {
				t.Errorf("row %d %s: %v", i+1, k, row)
			}
		case k == "blank":
			if row["status"] != "blank" {
				t.Errorf("row %d blank: %v", i+1, row)
			}
		}
	}
	// Matching is right: ids, set + number, names.
	for i, c := range byID[:59] {
		if got := prow[i+1].(map[string]any)["card"].(map[string]any)["card_id"]; got != c.id {
			t.Errorf("id row %d matched %v, want %s", i+2, got, c.id)
		}
	}
	for i, c := range bySet {
		if got := prow[60+i].(map[string]any)["card"].(map[string]any)["card_id"]; got != c.id {
			t.Errorf("set row %d matched %v, want %s", 61+i, got, c.id)
		}
	}
	// The value of row 1 is the slab:10 fmv of /prices, times 2.
	first := prow[0].(map[string]any)
	own := pricesOf(t, do(t, keyedClient, "GET", "/prices?ids=en:base1-4&grade=slab:10", env.keys["elite"], nil))["own"].(map[string]any)
	if first["grade"] != "slab:10" || first["fmv_usd"] != own["price_usd"] || math.Abs(first["value_usd"].(float64)-2*own["price_usd"].(float64)) > 0.005 || first["price_paid_usd"].(float64) != 1200 {
		t.Errorf("row 1 %v, /prices own slab:10 %v", first, own["price_usd"])
	}
	previewID := p["preview_id"].(string)

	// Confirm, picking a candidate for the first ambiguous row.
	ambRow := 161
	cand := prow[ambRow-1].(map[string]any)["candidates"].([]any)[0].(map[string]any)["card_id"].(string)
	confirmBody, _ := json.Marshal(map[string]any{"preview_id": previewID, "choices": map[string]string{fmt.Sprint(ambRow): cand}})
	if r := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", env.keys["elite"], confirmBody); r.Status != 404 {
		t.Errorf("another key confirmed the preview: %d %s", r.Status, truncate(r.Body))
	}
	badChoice, _ := json.Marshal(map[string]any{"preview_id": previewID, "choices": map[string]string{"1": "en:base1-2"}})
	if d := detailOf(t, do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, badChoice)); !strings.Contains(d["msg"].(string), "not ambiguous") {
		t.Errorf("choice for a matched row: %v", d)
	}
	c1 := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, confirmBody)
	if c1.Status != 200 || c1.JSON["contract"] != "import-confirm.v1" {
		t.Fatalf("confirm: %d %s", c1.Status, truncate(c1.Body))
	}
	d1 := data(t, c1)
	if d1["status"] != "confirmed" || d1["already_confirmed"] != false || d1["stored_rows"].(float64) != 161 || len(d1["skipped"].([]any)) != 29 {
		t.Errorf("confirm: %s", truncate(c1.Body))
	}
	c2 := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, confirmBody)
	d2 := data(t, c2)
	if c2.Status != 200 || d2["status"] != "already_confirmed" || d2["already_confirmed"] != true || d2["stored_rows"] != d1["stored_rows"] {
		t.Errorf("second confirm: %d %s", c2.Status, truncate(c2.Body))
	}
	coll1, coll2 := d1["collection"].(map[string]any), d2["collection"].(map[string]any)
	if fmt.Sprint(coll1) != fmt.Sprint(coll2) || coll1["imports"].(float64) != 1 || coll1["quantity"] != d1["stored_quantity"] {
		t.Errorf("collection changed on the second confirm: %v then %v", coll1, coll2)
	}
	// The state file holds the collection once.
	var stored struct {
		Holdings []struct {
			CardID   string `json:"card_id"`
			Grade    string `json:"grade"`
			Quantity int    `json:"quantity"`
		} `json:"holdings"`
		Imports []struct {
			ImportID string `json:"import_id"`
		} `json:"imports"`
	}
	err := stateAt(t, env.state).View(context.Background(), func(tx state.Tx) error {
		b, err := tx.Get(state.Collections, env.keyIDs["importer"])
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &stored)
	})
	if err != nil {
		t.Fatal(err)
	}
	qty := 0
	for _, h := range stored.Holdings {
		qty += h.Quantity
		if h.CardID == "en:base1-4" && h.Grade == "slab:10" && h.Quantity != 2 {
			t.Errorf("en:base1-4 slab:10 stored %d times", h.Quantity)
		}
	}
	if len(stored.Imports) != 1 || stored.Imports[0].ImportID != previewID || float64(qty) != d1["stored_quantity"].(float64) {
		t.Errorf("state file: %d imports, quantity %d (confirm said %v)", len(stored.Imports), qty, d1["stored_quantity"])
	}
	if r := do(t, keyedClient, "POST", "/api/v3/me/imports/confirm", key, []byte(`{"preview_id": "imp_unknown"}`)); r.Status != 404 {
		t.Errorf("unknown preview: %d", r.Status)
	}
	if r := do(t, freshClient(), "POST", "/api/v3/me/imports/preview", "", []byte(csvText), "Content-Type", "text/csv"); r.Status != 401 {
		t.Errorf("preview without a key: %d", r.Status)
	}
}

func TestImports_BadFiles(t *testing.T) {
	setupFeatureKeys(t)
	key := env.keys["importer"]
	path := "/api/v3/me/imports/preview"
	header := "name,set,number,quantity\n"
	good := "Charizard,en:base1,4,1\n"
	cases := []struct {
		name, body, ctype string
		msg               []string
		loc               string
	}{
		{"unterminated quote", header + good + good + good + "\"Blastoise,en:base1,2,1\n", "text/csv", []string{"row 4", "line 5"}, "row"},
		{"bare quote", header + good + "Char\"izard,en:base1,4,1\n", "text/csv", []string{"row 2", "line 3", "column"}, "row"},
		{"field count", header + good + good + "Charizard,en:base1,4\n", "text/csv", []string{"row 3", "line 4", "columns"}, "row"},
		{"no card column", "quantity,price_paid\n1,2\n", "text/csv", []string{"names no card column"}, "header"},
		{"header only", header, "text/csv", []string{"no rows"}, ""},
		{"not UTF-8", header + "Pok\xe9mon,en:base1,4,1\n", "text/csv", []string{"line 2", "UTF-8"}, "line"},
		{"bad JSON", `[{"name": "Charizard", "set": "en:base1"}, {"name": ]`, "application/json", []string{"JSON syntax error", "line 1"}, "line"},
		{"JSON row not an object", `[{"name": "Charizard"}, 7]`, "application/json", []string{"row 2"}, "row"},
		{"JSON nested value", `{"rows": [{"name": "Charizard", "grade": {"x": 1}}]}`, "application/json", []string{"row 1", "grade"}, "row"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := upload(t, key, path, tc.ctype, []byte(tc.body))
			d := detailOf(t, r)
			for _, m := range tc.msg {
				if !strings.Contains(d["msg"].(string), m) {
					t.Errorf("message %q does not say %q", d["msg"], m)
				}
			}
			if loc := d["loc"].([]any); tc.loc != "" && (len(loc) < 2 || loc[1] != tc.loc) {
				t.Errorf("loc %v, want body, %s, ...", loc, tc.loc)
			}
		})
	}
	// strict: every invalid row is a 422 naming its row and column.
	r := upload(t, key, path+"?strict=true", "text/csv", []byte(header+good+"Charizard,en:base1,4,many\nCharizard,en:base1,4,0\n"))
	if r.Status != 422 || len(r.JSON["detail"].([]any)) != 2 {
		t.Fatalf("strict: %d %s", r.Status, r.Body)
	}
	for i, x := range r.JSON["detail"].([]any) {
		e := x.(map[string]any)
		if loc := fmt.Sprint(e["loc"]); loc != fmt.Sprintf("[body row %d quantity]", i+2) || !strings.Contains(e["msg"].(string), fmt.Sprintf("row %d (line %d), column quantity", i+2, i+3)) {
			t.Errorf("strict entry %d: %v", i, e)
		}
	}
	// JSON rows work like CSV rows (aliases, numbers).
	r = upload(t, key, path, "application/json", []byte(`[{"card_id": "en:base1-4", "qty": 2, "price_paid": 100.5, "grade": "slab 10"}, {"name": "Charizard", "set": "Base", "number": "4/102"}]`))
	if r.Status != 200 || data(t, r)["format"] != "json" || data(t, r)["summary"].(map[string]any)["matched"].(float64) != 2 {
		t.Errorf("JSON upload: %d %s", r.Status, truncate(r.Body))
	}
	// Limits: 5,001 rows, or more than 1 MiB, are refused with 413.
	var big strings.Builder
	big.WriteString(header)
	for i := 0; i < 5001; i++ {
		big.WriteString(good)
	}
	r = upload(t, key, path, "text/csv", []byte(big.String()))
	if e, _ := r.JSON["error"].(map[string]any); r.Status != 413 || !strings.Contains(fmt.Sprint(e["message"]), "5000 rows") {
		t.Errorf("5,001 rows: %d %s", r.Status, truncate(r.Body))
	}
	huge := header + strings.Repeat("Charizard,en:base1,4,1"+strings.Repeat(" ", 1000)+"\n", 1100)
	r = upload(t, key, path, "text/csv", []byte(huge))
	if e, _ := r.JSON["error"].(map[string]any); r.Status != 413 || !strings.Contains(fmt.Sprint(e["message"]), "1 MiB") {
		t.Errorf("%d bytes: %d %s", len(huge), r.Status, truncate(r.Body))
	}
}
