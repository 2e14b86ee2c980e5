package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cardedge/cardedge/access"
)

func (h *Handler) registerUsageRoutes() {
	h.mux.HandleFunc("GET "+Base+"/usage", h.requireSession(h.handleUsage))
}

type usageKey struct {
	ID, Name string
	Selected bool
}

// usageToday is one key's quota of today.
type usageToday struct {
	Name             string
	Hint             string
	Used, Limit      int64
	Remaining        int64
	Usable           bool
	RemainingPercent int
}

type refusalRow struct {
	Status, Meaning string
	Count           int64
}

type usageDay struct {
	Date           string
	Calls, Refused int64
}

type usageData struct {
	Keys      []usageKey // the selector: "" is every key
	AllKeys   bool
	KeyName   string
	Days      int
	DayOpts   []int
	Chart     BarChart
	Calls     int64
	Refused   int64
	Refusals  []refusalRow
	Today     []usageToday
	ResetsAt  string // 00:00 UTC, in how long
	Table     []usageDay
	HasKeys   bool
	KeyUnused bool
}

var refusalMeanings = [access.NumRefusals]string{
	"Unauthorized: the key was revoked, expired or suspended when it was used",
	"Forbidden: the tier does not include the route (batch calls on Free, SQL)",
	"Invalid: the call's parameters or body were wrong",
	"Too many requests: the rate limit or the daily quota",
}

// handleUsage shows calls per day for the last 30 or 90 days, of one key or
// of every key of the account, refused calls by reason, and today's quota.
func (h *Handler) handleUsage(w http.ResponseWriter, r *http.Request, si signedIn) {
	q := r.URL.Query()
	days := 30
	if q.Get("days") == "90" {
		days = 90
	}
	keys, err := h.acc.Keys(r.Context(), si.account.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := usageData{Days: days, DayOpts: []int{30, 90}, HasKeys: len(keys) > 0, AllKeys: true}
	selected := q.Get("key")
	d.Keys = append(d.Keys, usageKey{ID: "", Name: "All keys", Selected: selected == ""})
	var chosen []access.Key
	for _, k := range keys {
		d.Keys = append(d.Keys, usageKey{ID: k.ID, Name: k.Name + " (" + k.ID + ")", Selected: k.ID == selected})
		if selected == "" || k.ID == selected {
			chosen = append(chosen, k)
		}
		if k.ID == selected {
			d.AllKeys, d.KeyName = false, k.Name
		}
	}
	if selected != "" && d.AllKeys { // not a key of this account: as if it did not exist
		h.handleNotFound(w, r)
		return
	}
	acts, err := h.usage.Activity(r.Context(), chosen, days)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	labels := make([]string, days)
	calls := make([]int64, days)
	refused := make([]int64, days)
	var byReason [access.NumRefusals]int64
	now := h.now()
	for i, a := range acts {
		for j, day := range a.Days {
			labels[j] = day.Date()
			calls[j] += day.Calls
			refused[j] += day.RefusedTotal()
			for r, n := range day.Refused {
				byReason[r] += n
			}
		}
		t := usageToday{Name: chosen[i].Name, Hint: chosen[i].Hint, Used: a.Today.Used, Limit: a.Today.Limit,
			Remaining: a.Today.Remaining, Usable: chosen[i].Usable(now)}
		if t.Limit > 0 {
			t.RemainingPercent = int(100 * t.Remaining / t.Limit)
		}
		if t.Usable || t.Used > 0 {
			d.Today = append(d.Today, t)
		}
	}
	if len(acts) == 0 { // no key: an empty chart of the period
		today := now.UTC().Truncate(24 * time.Hour)
		for j := range labels {
			labels[j] = today.AddDate(0, 0, j-days+1).Format("2006-01-02")
		}
	}
	for j := range labels {
		d.Calls += calls[j]
		d.Refused += refused[j]
		if calls[j] > 0 || refused[j] > 0 {
			d.Table = append(d.Table, usageDay{Date: labels[j], Calls: calls[j], Refused: refused[j]})
		}
	}
	for r, n := range byReason {
		d.Refusals = append(d.Refusals, refusalRow{Status: access.Refusal(r).String(), Meaning: refusalMeanings[r], Count: n})
	}
	title := "Calls per day, all keys"
	if !d.AllKeys {
		title = "Calls per day, key " + d.KeyName
	}
	d.Chart = newBarChart("calls", title+", last "+strconv.Itoa(days)+" days", "call", labels, []Series{
		{Name: "calls", Class: "bar-calls", Values: calls},
		{Name: "refused", Class: "bar-refused", Values: refused},
	})
	midnight := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	left := midnight.Sub(now).Round(time.Minute)
	d.ResetsAt = "00:00 UTC, in " + strconv.Itoa(int(left.Hours())) + " h " + strconv.Itoa(int(left.Minutes())%60) + " min"
	h.render(w, r, http.StatusOK, "usage", si.page("Usage", "usage", d))
}
