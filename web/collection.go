package web

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/snapshots"
)

// The collection pages: the account's collection (package collection, the
// same one its keys read with GET /api/v3/me/collection and its chat
// changes), valued as of the live snapshot; an upload (CSV or JSON, a
// multipart form) previewed row by row, ambiguous rows resolved with radio
// buttons, and confirmed; a CSV export. Each page is charged like the REST
// route it mirrors (a view or an export one unit, a preview one per started
// 100 rows, a confirm one).

// uploadLimit bounds an upload request: the file and the form around it.
const uploadLimit = collection.MaxBytes + 64<<10

func (h *Handler) registerCollectionRoutes() {
	h.mux.HandleFunc("GET "+Base+"/collection", h.requireSession(h.handleCollection))
	h.mux.HandleFunc("GET "+Base+"/collection/export.csv", h.requireSession(h.handleCollectionExport))
	h.mux.HandleFunc("POST "+Base+"/collection/upload", h.readUpload(h.requireSession(h.handleCollectionUpload)))
	h.mux.HandleFunc("GET "+Base+"/collection/imports/{id}", h.requireSession(h.handleImportPreview))
	h.mux.HandleFunc("POST "+Base+"/collection/imports/{id}/confirm", h.requireSession(h.handleImportConfirm))
	h.mux.HandleFunc("POST "+Base+"/collection/remove", h.requireSession(h.handleCollectionRemove))
}

// collectionPageSize is the holdings one page shows.
const collectionPageSize = 100

type sortOption struct {
	Value, Label string
	Selected     bool
}

var collectionSorts = []sortOption{{Value: "value", Label: "Value"}, {Value: "gain", Label: "Gain"}, {Value: "change_30d", Label: "30-day change"},
	{Value: "name", Label: "Name"}, {Value: "quantity", Label: "Copies"}, {Value: "added", Label: "Recently added"}}

type holdingView struct {
	collection.HoldingRow
	Href                           string // the card page
	Value, FMV, Paid, Gain, Change string
	GainClass, ChangeClass         string
	Confidence                     string
	ChangePct                      string
	Printing                       string // "" for a card without variants
	RemoveGrade, RemovePrinting    string
	// Grade is the holding's grade by name (PSA 10), shadowing the code of
	// HoldingRow.Grade that links and forms carry.
	Grade string
}

type collectionData struct {
	View        *collection.View
	Holdings    []holdingView
	Sorts       []sortOption
	Sort        string
	Value       string
	Paid        string
	Gain        string
	GainClass   string
	Change      string
	ChangeClass string
	Chart       LineChart
	HasChart    bool
	Window      string
	Longer      string // which tiers see more history ("" for all of it)
	Prev, Next  string // page links ("" for none)
	From, To    int
	Games       []string
	Game        string
	MaxMiB      string
	Empty       bool
	// Recorded are the values recorded at each snapshot, per source;
	// Completion the set completion (history.go).
	Recorded   []recordedChart
	Completion []completionRow
}

var collectionNotices = map[string]string{
	"imported": "Import confirmed: its rows are in your collection.",
	"removed":  "Removed from your collection.",
}

func (h *Handler) handleCollection(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Collections == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Collections are not available on this server.")
		return
	}
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	h.showCollection(w, r, si, m, http.StatusOK, nil)
}

// showCollection renders the collection page of si (its sort and offset
// from the query) with status; formErrs (a bad sort, a file that could not
// be read) are said above it, and make a 200 a 422.
func (h *Handler) showCollection(w http.ResponseWriter, r *http.Request, si signedIn, m *market, status int, formErrs []string) {
	q := r.URL.Query()
	var sorts []string
	for _, s := range collectionSorts {
		sorts = append(sorts, s.Value)
	}
	sort := pick("sort", q.Get("sort"), sorts, "value", &formErrs)
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(0, offset)
	since, _ := m.since(m.AsOf-collection.HistoryDays+1, true)
	v, err := h.opts.Collections.View(r.Context(), m.View, si.owner(), collection.ViewOptions{Sort: sort, Offset: offset, Limit: collectionPageSize,
		History: true, HistoryFrom: since})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := collectionData{View: v, Sort: sort, Window: m.windowText(), Longer: m.longerWindow(), Games: m.Reader.Manifest().Games, Game: m.game,
		MaxMiB: "1 MiB", Empty: v.Total == 0}
	for _, s := range collectionSorts {
		s.Selected = s.Value == sort
		d.Sorts = append(d.Sorts, s)
	}
	d.Value = money(cents(v.Summary.ValueUSD))
	d.Paid = money(cents(v.Summary.PaidUSD))
	d.Gain, d.GainClass = signedMoney(v.Summary.GainUSD)
	d.Change, d.ChangeClass = signedMoney(v.Summary.Change30dUSD)
	if v.Summary.Change30dPct != nil {
		d.Change += " (" + signedPct(*v.Summary.Change30dPct) + ")"
	}
	for _, hr := range v.Holdings {
		d.Holdings = append(d.Holdings, newHoldingView(hr))
	}
	if offset > 0 {
		d.Prev = collectionLink(sort, max(0, offset-collectionPageSize))
	}
	if offset+len(v.Holdings) < v.Total {
		d.Next = collectionLink(sort, offset+collectionPageSize)
	}
	d.From, d.To = offset+1, offset+len(v.Holdings)
	if len(v.History) > 0 {
		d.HasChart = true
		var pts []DayValue
		for i, p := range v.History {
			c := cents(p.ValueUSD)
			if i == 0 || c != pts[len(pts)-1].Cents {
				day, _ := snapshots.ParseDay(p.Date)
				pts = append(pts, DayValue{Day: day, Cents: c})
			}
		}
		first, _ := snapshots.ParseDay(v.History[0].Date)
		d.Chart = newLineChart("value", "The collection’s value, "+v.History[0].Date+" to "+v.AsOf, "The value of today’s holdings", first, m.AsOf, pts, false, true, "")
		d.Chart.Class = "line-value"
	}
	if d.Recorded, d.Completion, err = h.recordedHistory(r, m, si.owner(), since); err != nil {
		h.fail(w, r, err)
		return
	}
	p := si.page("Collection", "collection", d)
	p.Notice = collectionNotices[q.Get("done")]
	if len(formErrs) > 0 {
		p.Error = strings.Join(formErrs, " ")
		if status == http.StatusOK {
			status = http.StatusUnprocessableEntity
		}
	}
	h.render(w, r, status, "collection", p)
}

func collectionLink(sort string, offset int) string {
	v := url.Values{"sort": {sort}}
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	}
	return Base + "/collection?" + v.Encode()
}

func newHoldingView(hr collection.HoldingRow) holdingView {
	v := holdingView{HoldingRow: hr, Href: cardHref(hr.Game, hr.CardID, hr.Printing, hr.Grade), Confidence: hr.Confidence,
		Printing: hr.Printing, RemoveGrade: hr.Grade, Grade: hr.GradeName}
	if !hr.BasePrinting {
		v.RemovePrinting = hr.Printing
	}
	v.Value, v.FMV = "—", "—"
	if hr.ValueUSD != nil {
		v.Value, v.FMV = money(cents(*hr.ValueUSD)), money(cents(*hr.FMVUSD))
	}
	v.Paid = "—"
	if hr.PaidUSD != nil {
		v.Paid = money(cents(*hr.PaidUSD))
		if hr.PaidQuantity < hr.Quantity {
			v.Paid += " (" + strconv.Itoa(hr.PaidQuantity) + " of " + strconv.Itoa(hr.Quantity) + ")"
		}
	}
	v.Gain, v.GainClass = signedMoney(hr.GainUSD)
	v.Change, v.ChangeClass = signedMoney(hr.Change30dUSD)
	if hr.Change30dPct != nil {
		v.ChangePct = signedPct(*hr.Change30dPct)
	}
	return v
}

// cents is dollars as cents.
func cents(usd float64) int64 {
	if usd < 0 {
		return -int64(-usd*100 + 0.5)
	}
	return int64(usd*100 + 0.5)
}

// signedMoney writes a change with its sign and the class that colours it
// ("—" for none).
func signedMoney(usd *float64) (string, string) {
	if usd == nil {
		return "—", ""
	}
	c := cents(*usd)
	switch {
	case c > 0:
		return "+" + money(c), "up"
	case c < 0:
		return money(c), "down"
	}
	return money(0), ""
}

func signedPct(p float64) string {
	s := strconv.FormatFloat(p, 'f', 1, 64) + "%"
	if p > 0 {
		return "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

// readUpload reads an upload's multipart form before the session check
// (which reads its csrf field), within uploadLimit: a larger request is
// answered 413 with what to do.
func (h *Handler) readUpload(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, uploadLimit)
		if err := r.ParseMultipartForm(uploadLimit); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				h.renderError(w, r, http.StatusRequestEntityTooLarge, "The file is larger than 1 MiB. Split it into smaller files (at most 5,000 rows each) and upload them one by one.")
				return
			}
			h.renderError(w, r, http.StatusBadRequest, "The upload could not be read. Choose a CSV or JSON file and try again.")
			return
		}
		next(w, r)
	}
}

func (h *Handler) handleCollectionUpload(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Collections == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Collections are not available on this server.")
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		h.uploadFailed(w, r, si, nil, apperr.Errorf(apperr.EINVALID, "choose a CSV or JSON file to upload"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(f, collection.MaxBytes+1))
	f.Close()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctype := hdr.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ctype); mt != "text/csv" && mt != "application/json" {
		// Browsers say little about .csv files (application/vnd.ms-excel,
		// text/plain or nothing): the name decides, else the content.
		switch strings.ToLower(path.Ext(hdr.Filename)) {
		case ".json":
			ctype = "application/json"
		case ".csv", ".tsv", ".txt":
			ctype = "text/csv"
		default:
			ctype = ""
		}
	}
	units, err := collection.Cost(body, ctype)
	if err != nil {
		h.uploadFailed(w, r, si, nil, err)
		return
	}
	m, ok := h.openMarket(w, r, si, units)
	if !ok {
		return
	}
	defer m.done()
	game := r.PostFormValue("game")
	if game == "" || !m.Reader.Manifest().HasGame(game) {
		game = m.game
	}
	p, err := h.opts.Collections.Preview(context.WithoutCancel(r.Context()), m.View, collection.PreviewRequest{Owner: si.owner(), Game: game, Body: body, ContentType: ctype})
	if err != nil {
		h.uploadFailed(w, r, si, m, err)
		return
	}
	http.Redirect(w, r, Base+"/collection/imports/"+url.PathEscape(p.PreviewID), http.StatusSeeOther)
}

// uploadFailed answers an upload that could not be read with the
// collection page and, above its form, each problem the collection package
// found (row, line and column); m is the page's market, nil when none was
// opened yet (none is charged then). Other errors are fail's.
func (h *Handler) uploadFailed(w http.ResponseWriter, r *http.Request, si signedIn, m *market, err error) {
	status, msg := 0, ""
	var verrs apperr.FieldErrors
	switch {
	case errors.As(err, &verrs):
		var msgs []string
		for i, e := range verrs {
			if i == 10 {
				msgs = append(msgs, "And "+strconv.Itoa(len(verrs)-10)+" more.")
				break
			}
			msgs = append(msgs, sentence(e.Msg))
		}
		status, msg = http.StatusUnprocessableEntity, "The file could not be read: "+strings.Join(msgs, " ")
	case apperr.ErrorCode(err) == apperr.EINVALID:
		status, msg = http.StatusUnprocessableEntity, sentence(apperr.ErrorMessage(err))
	case apperr.ErrorCode(err) == apperr.ETOOLARGE:
		status, msg = http.StatusRequestEntityTooLarge, sentence(apperr.ErrorMessage(err))
	default:
		h.fail(w, r, err)
		return
	}
	if m == nil {
		var ok bool
		if m, ok = h.openMarket(w, r, si, 0); !ok {
			return
		}
		defer m.done()
	}
	h.showCollection(w, r, si, m, status, []string{msg})
}

type previewRowView struct {
	Row        int
	Line       string
	Input      string // the row as uploaded, "name: Charizard · set: Base ..."
	Card       string
	Href       string
	Detail     string
	Printing   string
	Grade      string
	Quantity   int
	Paid       string
	Value      string
	Note       string
	Reason     string
	Errors     []string
	Candidates []candidateView
}

type candidateView struct {
	ID, Label, Detail, Price string
	InputID                  string
}

type previewData struct {
	P         *collection.Preview
	Matched   []previewRowView
	Ambiguous []previewRowView
	Unmatched []previewRowView
	Invalid   []previewRowView
	Value     string
	Paid      string
	Action    string
	Expires   string
	Ignored   string
}

func (h *Handler) handleImportPreview(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Collections == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Collections are not available on this server.")
		return
	}
	m, ok := h.openMarket(w, r, si, 0) // the upload paid for the preview
	if !ok {
		return
	}
	defer m.done()
	p, err := h.opts.Collections.ShowPreview(r.Context(), m.View, si.owner(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "import", si.page("Import preview", "collection", newPreviewData(p)))
}

func newPreviewData(p *collection.Preview) previewData {
	d := previewData{P: p, Value: money(cents(p.Summary.ValueUSD)), Paid: money(cents(p.Summary.PaidUSD)),
		Action: Base + "/collection/imports/" + url.PathEscape(p.PreviewID) + "/confirm", Expires: p.ExpiresAt,
		Ignored: strings.Join(p.Ignored, ", ")}
	for _, row := range p.Rows {
		v := previewRowView{Row: row.Row, Input: inputText(row.Input), Grade: row.GradeName, Quantity: row.Quantity, Reason: row.Reason,
			Printing: row.Printing, Value: "—", Paid: "—", Note: row.ValueNote}
		if row.Line != nil {
			v.Line = strconv.Itoa(*row.Line)
		}
		if row.PricePaidUSD != nil {
			v.Paid = money(cents(*row.PricePaidUSD)) + " each"
		}
		if row.ValueUSD != nil {
			v.Value = money(cents(*row.ValueUSD))
		}
		if row.Card != nil {
			v.Card, v.Href = row.Card.Name, cardHref(p.Game, row.Card.CardID, row.Printing, row.Grade)
			v.Detail = cardDetail(row.Card.SetName, row.Card.Number, row.Card.Language, row.Card.CardID)
		}
		for _, e := range row.Errors {
			v.Errors = append(v.Errors, e.Column+": "+e.Message)
		}
		for i, c := range row.Candidates {
			cv := candidateView{ID: c.CardID, Label: c.Name, Detail: cardDetail(c.SetName, c.Number, c.Language, c.CardID), Price: "no price",
				InputID: "choice-" + strconv.Itoa(row.Row) + "-" + strconv.Itoa(i)}
			if c.PriceUSD != nil {
				cv.Price = money(cents(*c.PriceUSD)) + " raw near mint"
			}
			v.Candidates = append(v.Candidates, cv)
		}
		switch row.Status {
		case "matched":
			d.Matched = append(d.Matched, v)
		case "ambiguous":
			d.Ambiguous = append(d.Ambiguous, v)
		case "unmatched":
			d.Unmatched = append(d.Unmatched, v)
		case "invalid":
			d.Invalid = append(d.Invalid, v)
		}
	}
	return d
}

// inputText writes a row as uploaded, its fields in a fixed order.
func inputText(in map[string]string) string {
	var parts []string
	for _, f := range []string{"card_id", "name", "set", "number", "language", "printing", "grade", "condition", "quantity", "price_paid"} {
		if v := in[f]; v != "" {
			parts = append(parts, strings.ReplaceAll(f, "_", " ")+": "+v)
		}
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " · ")
}

// cardDetail is "Base · #4 · EN · en:base1-4".
func cardDetail(setName, number, lang, id string) string {
	var parts []string
	for _, s := range []string{setName, "#" + strings.TrimPrefix(number, "#"), strings.ToUpper(lang), id} {
		if s != "" && s != "#" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

func (h *Handler) handleImportConfirm(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Collections == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Collections are not available on this server.")
		return
	}
	req := collection.ConfirmRequest{PreviewID: r.PathValue("id"), Choices: map[string]string{}}
	for k, v := range r.PostForm {
		if row, ok := strings.CutPrefix(k, "choice-"); ok && len(v) > 0 {
			req.Choices[row] = v[0]
		}
	}
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	if _, err := h.opts.Collections.Confirm(context.WithoutCancel(r.Context()), m.View, si.owner(), req); err != nil {
		// A choice that is not a candidate (a form not of this page): the
		// preview again, with what was wrong.
		var verrs apperr.FieldErrors
		msg := ""
		if errors.As(err, &verrs) {
			msg = sentence(verrs[0].Msg)
		} else if apperr.ErrorCode(err) == apperr.EINVALID {
			msg = sentence(apperr.ErrorMessage(err))
		}
		p, perr := h.opts.Collections.ShowPreview(r.Context(), m.View, si.owner(), req.PreviewID)
		if msg == "" || perr != nil {
			h.fail(w, r, err)
			return
		}
		page := si.page("Import preview", "collection", newPreviewData(p))
		page.Error = msg
		h.render(w, r, http.StatusUnprocessableEntity, "import", page)
		return
	}
	http.Redirect(w, r, Base+"/collection?done=imported", http.StatusSeeOther)
}

func (h *Handler) handleCollectionRemove(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Collections == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Collections are not available on this server.")
		return
	}
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	ch := collection.Change{Game: r.PostFormValue("game"), CardID: r.PostFormValue("card_id"), Printing: r.PostFormValue("printing"), Grade: r.PostFormValue("grade")}
	if _, err := h.opts.Collections.Remove(context.WithoutCancel(r.Context()), m.View, si.owner(), ch); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/collection?done=removed", http.StatusSeeOther)
}

func (h *Handler) handleCollectionExport(w http.ResponseWriter, r *http.Request, si signedIn) {
	if h.opts.Collections == nil {
		h.renderError(w, r, http.StatusServiceUnavailable, "Collections are not available on this server.")
		return
	}
	m, ok := h.openMarket(w, r, si, 1)
	if !ok {
		return
	}
	defer m.done()
	b, err := h.opts.Collections.Export(r.Context(), m.View, si.owner())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="cardedge-collection-`+m.AsOf.String()+`.csv"`)
	w.Write(b)
}

// cardHref is the card page of a card, in a printing and grade when given.
func cardHref(game, id, printing, grade string) string {
	v := url.Values{}
	if game != "" {
		v.Set("game", game)
	}
	if printing != "" {
		v.Set("printing", printing)
	}
	if grade != "" {
		v.Set("grade", grade)
	}
	u := Base + "/cards/" + url.PathEscape(id)
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}
