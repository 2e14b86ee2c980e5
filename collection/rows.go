package collection

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

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
	printing string // as written: read against the row's card
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
	c.printing = r.get("printing")
	if q := r.get("quantity"); q != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(q, ".0"))
		if err != nil || n < 1 || n > MaxQuantity {
			c.issues = append(c.issues, rowIssue{Column: "quantity", Message: fmt.Sprintf("quantity %q: want a whole number from 1 to %d", q, MaxQuantity)})
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
