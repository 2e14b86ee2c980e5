package collection

import (
	"errors"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
)

func TestParseMoney(t *testing.T) {
	ok := map[string]int64{"12.5": 1250, "$1,200.00": 120000, "12 USD": 1200, "usd 3": 300, " 0 ": 0, "0.005": 1}
	for in, want := range ok {
		if got, err := parseMoney(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"free", "-1", "NaN", "1e12", "$", "1,2,3.4.5"} {
		if _, err := parseMoney(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestParseUpload(t *testing.T) {
	up, err := ParseUpload([]byte("\xef\xbb\xbfName;Set;No;Qty;Notes\nCharizard;Base;4/102;2;mint\n;;;;\n"), "text/csv; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	if up.Format != "csv" || len(up.Rows) != 2 || up.Rows[0].get("number") != "4/102" || up.Rows[0].Line != 2 || !up.Rows[1].blank() {
		t.Errorf("semicolon CSV: %+v", up)
	}
	if strings.Join(up.Ignored, ",") != "Notes" {
		t.Errorf("ignored %v", up.Ignored)
	}
	up, err = ParseUpload([]byte(` [{"ID": "en:base1-4", "Qty": 2.0, "grade": null}]`), "")
	if err != nil || up.Format != "json" || up.Rows[0].get("card_id") != "en:base1-4" || up.Rows[0].get("quantity") != "2.0" {
		t.Errorf("sniffed JSON: %+v %v", up, err)
	}
	// A duplicate column is refused.
	if _, err := ParseUpload([]byte("name,card name\nx,y\n"), "text/csv"); err == nil || !strings.Contains(err.Error(), "both mean name") {
		t.Errorf("duplicate column: %v", err)
	}
	// Limits are ETOOLARGE (413).
	big := "name\n" + strings.Repeat("x\n", MaxRows+1)
	if _, err := ParseUpload([]byte(big), "text/csv"); apperr.ErrorCode(err) != apperr.ETOOLARGE {
		t.Errorf("%d rows: %v", MaxRows+1, err)
	}
	if _, err := ParseUpload(make([]byte, MaxBytes+1), "text/csv"); apperr.ErrorCode(err) != apperr.ETOOLARGE {
		t.Errorf("1 MiB + 1: %v", err)
	}
}

func TestCheckRow(t *testing.T) {
	r := importRow{Row: 1, Values: map[string]string{"name": "x", "quantity": "3", "price_paid": "$2", "language": "Japanese", "grade": "bgs 10"}}
	c := checkRow(r)
	if len(c.issues) != 0 || c.quantity != 3 || c.paid != 200 || !c.hasPaid || c.language != "ja" || c.grade.String() != "bgs:10" {
		t.Errorf("good row: %+v", c)
	}
	r = importRow{Row: 2, Values: map[string]string{"set": "en:base1", "quantity": "0", "language": "fr"}}
	var cols []string
	for _, is := range checkRow(r).issues {
		cols = append(cols, is.Column)
	}
	if strings.Join(cols, ",") != "quantity,language,name" {
		t.Errorf("bad row issues in %v", cols)
	}
}

// FuzzParseUpload: any body gives an upload or a 422/413, never a panic,
// and every row of an upload has the fields the header named.
func FuzzParseUpload(f *testing.F) {
	for _, s := range []string{
		"name,set,number\nCharizard,Base,4\n", "card_id\nen:base1-4\n", "name\n\"a\"\"b\",\n", "name\n\"unterminated\n",
		"quantity\n1\n", "name\tset\nx\ty\n", `[{"name": "x"}]`, `{"rows": [{"name": 1.5e3}]}`, `{"rows": 7}`, `[`, "\xff\xfe",
		"name,name\n", "\n\n\n", "name\r\nx\r\n",
	} {
		f.Add([]byte(s), "text/csv")
		f.Add([]byte(s), "application/json")
		f.Add([]byte(s), "")
	}
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		up, err := ParseUpload(body, ctype)
		if err != nil {
			var verrs apperr.FieldErrors
			if !errors.As(err, &verrs) && apperr.ErrorCode(err) != apperr.ETOOLARGE {
				t.Fatalf("error %v is neither a 422 nor a 413", err)
			}
			return
		}
		if len(up.Rows) == 0 || len(up.Rows) > MaxRows {
			t.Fatalf("%d rows", len(up.Rows))
		}
		for i, r := range up.Rows {
			if r.Row != i+1 {
				t.Fatalf("row %d numbered %d", i+1, r.Row)
			}
			for k := range r.Values {
				if importField(k) != k {
					t.Fatalf("row field %q is not a field name", k)
				}
			}
		}
	})
}
