package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
)

func (h *Handler) registerKeyRoutes() {
	h.mux.HandleFunc("GET "+Base+"/keys", h.requireSession(h.handleKeys))
	h.mux.HandleFunc("POST "+Base+"/keys", h.requireSession(h.handleKeyCreate))
	h.mux.HandleFunc("GET "+Base+"/keys/{id}/roll", h.requireSession(h.handleKeyRollForm))
	h.mux.HandleFunc("POST "+Base+"/keys/{id}/roll", h.requireSession(h.handleKeyRoll))
	h.mux.HandleFunc("GET "+Base+"/keys/{id}/revoke", h.requireSession(h.handleKeyRevokeForm))
	h.mux.HandleFunc("POST "+Base+"/keys/{id}/revoke", h.requireSession(h.handleKeyRevoke))
}

// IdleHint is how long a key may go unused before the keys page suggests
// revoking it.
const IdleHint = 90 * 24 * time.Hour

// keyRow is one key as the keys page shows it.
type keyRow struct {
	access.Key
	Status      string // Active, Expires soon, Expired, Revoked, Rolled, Suspended
	StatusClass string // ok, warn, off
	Usable      bool
	LastUsed    string
	TodayUsed   int64
	TodayLimit  int64
	History     string
	ExpiresText string
	Hints       []string
}

// newKeyFlash is what the page after a create or a roll shows once.
type newKeyFlash struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Secret string `json:"secret"`
	Rolled string `json:"rolled,omitempty"` // the old key's id
	Grace  string `json:"grace,omitempty"`
}

type lifetimeOption struct {
	Days     int
	Label    string
	Selected bool
}

type keysData struct {
	Keys      []keyRow
	New       *newKeyFlash
	Lifetimes []lifetimeOption
	Name      string
}

func lifetimeLabel(days int) string {
	switch days {
	case 0:
		return "Never"
	case 365:
		return "1 year"
	}
	return strconv.Itoa(days) + " days"
}

// lifetimes returns the lifetimes a new key may have, the default selected.
func (h *Handler) lifetimes(selected int) []lifetimeOption {
	max := h.acc.KeyMaxDays()
	var out []lifetimeOption
	for _, d := range account.Lifetimes {
		if max > 0 && (d == 0 || d > max) {
			continue
		}
		out = append(out, lifetimeOption{Days: d, Label: lifetimeLabel(d), Selected: d == selected})
	}
	if len(out) == 0 || (max > 0 && out[len(out)-1].Days != max) {
		out = append(out, lifetimeOption{Days: max, Label: lifetimeLabel(max), Selected: max == selected})
	}
	return out
}

// keyRows returns the account's keys with their activity of today.
func (h *Handler) keyRows(r *http.Request, si signedIn) ([]keyRow, error) {
	keys, err := h.acc.Keys(r.Context(), si.account.ID)
	if err != nil {
		return nil, err
	}
	acts, err := h.usage.Activity(r.Context(), keys, 1)
	if err != nil {
		return nil, err
	}
	now := h.now()
	rows := make([]keyRow, len(keys))
	for i, k := range keys {
		a := acts[i]
		row := keyRow{Key: k, TodayUsed: a.Today.Used, TodayLimit: a.Today.Limit, Usable: k.Usable(now)}
		row.History = "unlimited"
		if d := access.LimitsOf(k.Tier).HistoryDays; d > 0 {
			row.History = strconv.Itoa(d) + " days"
		}
		switch {
		case a.LastUsed.IsZero():
			row.LastUsed = "never"
		case now.Sub(a.LastUsed) < 24*time.Hour && a.LastUsed.UTC().YearDay() == now.UTC().YearDay():
			row.LastUsed = "today"
		default:
			row.LastUsed = a.LastUsed.UTC().Format("2006-01-02")
		}
		row.ExpiresText = "never"
		if !k.Expires.IsZero() {
			row.ExpiresText = k.Expires.UTC().Format("2006-01-02")
		}
		switch {
		case !k.Active():
			row.Status, row.StatusClass = "Revoked", "off"
		case k.Suspended:
			row.Status, row.StatusClass = "Suspended", "off"
		case k.Expired(now):
			row.Status, row.StatusClass = "Expired", "off"
		case k.RolledTo != "":
			row.Status, row.StatusClass = "Rolled: works until "+k.Expires.UTC().Format("15:04 UTC, Jan 2"), "warn"
		case !k.Expires.IsZero() && k.Expires.Sub(now) < 7*24*time.Hour:
			row.Status, row.StatusClass = "Expires soon", "warn"
		default:
			row.Status, row.StatusClass = "Active", "ok"
		}
		if row.Usable && k.RolledTo == "" {
			if k.Expires.IsZero() {
				row.Hints = append(row.Hints, "This key never expires. Roll it now and then, or make keys that expire.")
			}
			idleSince := k.Created
			if !a.LastUsed.IsZero() {
				idleSince = a.LastUsed
			}
			if now.Sub(idleSince) >= IdleHint {
				row.Hints = append(row.Hints, "Not used for 90 days or more. Revoke it if nothing needs it.")
			}
		}
		rows[i] = row
	}
	return rows, nil
}

func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, si signedIn, status int, d keysData, notice, errMsg string) {
	rows, err := h.keyRows(r, si)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Keys = rows
	if d.Lifetimes == nil {
		d.Lifetimes = h.lifetimes(90)
	}
	p := si.page("API keys", "keys", d)
	p.Notice, p.Error = notice, errMsg
	h.render(w, r, status, "keys", p)
}

// notices are the confirmations a redirect asks for (?done=...): fixed
// texts, never text from the URL.
var notices = map[string]string{
	"welcome":  "Welcome! Create a key to call the API.",
	"revoked":  "Key revoked. Calls with it are refused within a second.",
	"password": "Password changed. Your other sessions are signed out.",
}

func (h *Handler) handleKeys(w http.ResponseWriter, r *http.Request, si signedIn) {
	var d keysData
	if msg, err := h.acc.TakeFlash(r.Context(), si.id); err == nil && msg != nil {
		var f newKeyFlash
		if json.Unmarshal(msg, &f) == nil && f.Secret != "" {
			d.New = &f
		}
	}
	h.keysPage(w, r, si, http.StatusOK, d, notices[r.URL.Query().Get("done")], "")
}

func (h *Handler) handleKeyCreate(w http.ResponseWriter, r *http.Request, si signedIn) {
	days, err := strconv.Atoi(r.PostFormValue("expires"))
	name := r.PostFormValue("name")
	if err != nil {
		days = -1
	}
	secret, k, err := h.acc.CreateKey(r.Context(), si.account.ID, name, days, h.client(r))
	if err != nil {
		status, msg := h.formError(err)
		h.keysPage(w, r, si, status, keysData{Name: name, Lifetimes: h.lifetimes(days)}, "", msg)
		return
	}
	h.showOnce(w, r, si, newKeyFlash{ID: k.ID, Name: k.Name, Secret: secret})
}

// showOnce keeps a new secret in the session's flash and redirects to the
// keys page, which shows it once: a reload shows it no more, and the secret
// never sits in a URL or in the browser's history.
func (h *Handler) showOnce(w http.ResponseWriter, r *http.Request, si signedIn, f newKeyFlash) {
	b, _ := json.Marshal(f)
	if err := h.acc.SetFlash(r.Context(), si.id, b); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/keys#new-key", http.StatusSeeOther)
}

// keyOf returns the key of the path's {id}, if the account owns it (404
// otherwise, as for a key that does not exist).
func (h *Handler) keyOf(w http.ResponseWriter, r *http.Request, si signedIn) (access.Key, bool) {
	k, err := h.acc.Key(r.Context(), si.account.ID, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return access.Key{}, false
	}
	return k, true
}

type graceOption struct {
	Value    string
	Label    string
	Selected bool
}

type rollData struct {
	Key    access.Key
	Graces []graceOption
}

func graceOptions(selected string) []graceOption {
	out := []graceOption{{"0", "No time: the old key stops working now", false}, {"1h", "1 hour", false}, {"24h", "24 hours", false}}
	for i := range out {
		out[i].Selected = out[i].Value == selected
	}
	return out
}

func (h *Handler) handleKeyRollForm(w http.ResponseWriter, r *http.Request, si signedIn) {
	k, ok := h.keyOf(w, r, si)
	if !ok {
		return
	}
	h.render(w, r, http.StatusOK, "roll", si.page("Roll key “"+k.Name+"”", "keys", rollData{Key: k, Graces: graceOptions("1h")}))
}

func (h *Handler) handleKeyRoll(w http.ResponseWriter, r *http.Request, si signedIn) {
	g := r.PostFormValue("grace")
	grace, err := time.ParseDuration(g)
	if g == "0" {
		grace, err = 0, nil
	}
	if err != nil {
		grace = -1
	}
	secret, nk, err := h.acc.RollKey(r.Context(), si.account.ID, r.PathValue("id"), grace, h.client(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	label := "none"
	if grace > 0 {
		label = graceText(grace)
	}
	h.showOnce(w, r, si, newKeyFlash{ID: nk.ID, Name: nk.Name, Secret: secret, Rolled: r.PathValue("id"), Grace: label})
}

func (h *Handler) handleKeyRevokeForm(w http.ResponseWriter, r *http.Request, si signedIn) {
	k, ok := h.keyOf(w, r, si)
	if !ok {
		return
	}
	h.render(w, r, http.StatusOK, "revoke", si.page("Revoke key “"+k.Name+"”?", "keys", k))
}

func (h *Handler) handleKeyRevoke(w http.ResponseWriter, r *http.Request, si signedIn) {
	if _, err := h.acc.RevokeKey(r.Context(), si.account.ID, r.PathValue("id"), h.client(r)); err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Base+"/keys?done=revoked", http.StatusSeeOther)
}

// graceText says a grace period as the roll page offers it.
func graceText(d time.Duration) string {
	if d%time.Hour == 0 {
		if d == time.Hour {
			return "1 hour"
		}
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	}
	return d.String()
}
