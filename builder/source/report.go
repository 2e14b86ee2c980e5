package source

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// Statuses of a report entry: what became of one row (or one part of a
// row, such as Cardmarket's -holo fields).
const (
	StatusByID         = "matched_id"
	StatusByNumberName = "matched_number_name"
	StatusByTitle      = "matched_title"
	StatusAmbiguous    = "ambiguous"
	StatusUnmatched    = "unmatched"
	StatusRejected     = "rejected"
	// StatusDropped: the row matched, but a part of it has no printing of
	// the card to go to (the reason says which and why).
	StatusDropped = "dropped"
)

// Entry is one line of a report: a row (or part of one) and what became of
// it.
type Entry struct {
	Row      int // the row's position in its day (1-based; 0 for a day-level entry)
	Status   string
	Product  string // the source's product id, or a listing's title
	Printing string // the source's printing word or field group
	CardID   string
	Finish   string // the card's variant ("" for a card without variants)
	Reason   string // a short fixed phrase, counted in Report.Reasons
	Detail   string // the specifics
}

// Report is what a source made of one day: rows read, how they matched,
// what it refused and why.
type Report struct {
	Source string
	Day    snapshots.Day
	Input  string
	// Read counts the rows read (refused rows included).
	Read int
	// Rows by what became of them (a row counts once, by its best part).
	ByID, ByNumberName, ByTitle, Ambiguous, Unmatched, Rejected int
	// Observations counts the numbers the matched rows gave.
	Observations int
	// Reasons counts the entries of each reason (rejected, unmatched,
	// ambiguous and dropped parts).
	Reasons map[string]int
	Entries []Entry
}

// NewReport returns the report of source's day d with its rows read and
// its refused rows (Day.Rejected) recorded: a source's Map adds what became
// of each of d.Rows, numbered 1 to len(d.Rows); the refused rows come after
// them.
func NewReport(source string, d *Day) *Report {
	r := &Report{Source: source, Day: d.Date, Input: d.Input, Reasons: map[string]int{}, Read: len(d.Rows) + len(d.Rejected)}
	for i, e := range d.Rejected {
		e.Row = len(d.Rows) + i + 1
		if e.Status == "" {
			e.Status = StatusRejected
		}
		r.Add(e, true)
	}
	return r
}

// Add records an entry; counted marks the entry that decides its row's
// count (the first entry of a row).
func (r *Report) Add(e Entry, counted bool) {
	r.Entries = append(r.Entries, e)
	if e.Reason != "" {
		r.Reasons[e.Reason]++
	}
	if !counted {
		return
	}
	switch e.Status {
	case StatusByID:
		r.ByID++
	case StatusByNumberName:
		r.ByNumberName++
	case StatusByTitle:
		r.ByTitle++
	case StatusAmbiguous:
		r.Ambiguous++
	case StatusUnmatched:
		r.Unmatched++
	case StatusRejected:
		r.Rejected++
	}
}

// Matched is the rows matched by any rule.
func (r *Report) Matched() int { return r.ByID + r.ByNumberName + r.ByTitle }

// FileName is the report's file name: <source>-<day>.csv.
func (r *Report) FileName() string { return r.Source + "-" + r.Day.String() + ".csv" }

// reportHeader are the CSV columns of a report.
var reportHeader = []string{"source", "day", "row", "status", "product", "printing", "card_id", "finish", "reason", "detail"}

// WriteCSV writes the report's entries as CSV with a header: one line per
// entry, in the order they were added.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(reportHeader); err != nil {
		return err
	}
	day := r.Day.String()
	for _, e := range r.Entries {
		if err := cw.Write([]string{r.Source, day, strconv.Itoa(e.Row), e.Status, e.Product, e.Printing, e.CardID, e.Finish, e.Reason, e.Detail}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteFile writes the report into dir as FileName (temp file and rename)
// and returns its path.
func (r *Report) WriteFile(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	path := filepath.Join(dir, r.FileName())
	f, err := os.CreateTemp(dir, ".report-*")
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	err = r.WriteCSV(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("report %s: %w", path, err)
	}
	return path, nil
}

// Summary is the report's counts in one line per figure, as cardbuild
// prints them.
func (r *Report) Summary() string {
	var b strings.Builder
	pct := func(n int) string {
		if r.Read == 0 {
			return "-"
		}
		return strconv.FormatFloat(100*float64(n)/float64(r.Read), 'f', 1, 64) + " %"
	}
	fmt.Fprintf(&b, "%s %s (%s)\n", r.Source, r.Day, r.Input)
	fmt.Fprintf(&b, "  rows read              %d\n", r.Read)
	fmt.Fprintf(&b, "  matched by id          %d (%s)\n", r.ByID, pct(r.ByID))
	fmt.Fprintf(&b, "  matched by number/name %d (%s)\n", r.ByNumberName, pct(r.ByNumberName))
	fmt.Fprintf(&b, "  matched by title       %d (%s)\n", r.ByTitle, pct(r.ByTitle))
	fmt.Fprintf(&b, "  ambiguous              %d (%s)\n", r.Ambiguous, pct(r.Ambiguous))
	fmt.Fprintf(&b, "  unmatched              %d (%s)\n", r.Unmatched, pct(r.Unmatched))
	fmt.Fprintf(&b, "  rejected               %d (%s)\n", r.Rejected, pct(r.Rejected))
	if r.Observations >= 0 {
		fmt.Fprintf(&b, "  observations           %d\n", r.Observations)
	}
	reasons := make([]string, 0, len(r.Reasons))
	for k := range r.Reasons {
		reasons = append(reasons, k)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if r.Reasons[reasons[i]] != r.Reasons[reasons[j]] {
			return r.Reasons[reasons[i]] > r.Reasons[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	for _, k := range reasons {
		fmt.Fprintf(&b, "    %-38s %d\n", k, r.Reasons[k])
	}
	return b.String()
}

// ReadReportCSV reads a report written by WriteCSV back: its entries and
// counts (Read counts its rows; Input is not in the file, nor the
// observations: Observations is -1).
func ReadReportCSV(rd io.Reader) (*Report, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = len(reportHeader)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if strings.Join(head, ",") != strings.Join(reportHeader, ",") {
		return nil, fmt.Errorf("report: header %q, want %q", strings.Join(head, ","), strings.Join(reportHeader, ","))
	}
	r := &Report{Reasons: map[string]int{}, Observations: -1}
	seen := map[int]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if r.Source == "" {
			r.Source = rec[0]
			if r.Day, err = snapshots.ParseDay(rec[1]); err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
		}
		row, err := strconv.Atoi(rec[2])
		if err != nil || row < 0 {
			return nil, fmt.Errorf("report: row %q is not a row number", rec[2])
		}
		e := Entry{Row: row, Status: rec[3], Product: rec[4], Printing: rec[5], CardID: rec[6], Finish: rec[7], Reason: rec[8], Detail: rec[9]}
		// A row counts once, by its first entry that is not a dropped
		// part (the parts a source drops may come first).
		first := row > 0 && !seen[row] && e.Status != StatusDropped
		if first {
			seen[row] = true
			r.Read++
		}
		r.Add(e, first)
	}
	return r, nil
}
