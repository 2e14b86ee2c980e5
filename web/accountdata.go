package web

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/cardedge/cardedge/apperr"
)

// An account's data (issue #33): "Export my data" downloads everything the
// account owns as JSON (package account's Export with Options.AccountData:
// no password, key or signing secret); "Delete account" deletes the account
// and everything it owns after the password is entered again (with the
// page's CSRF token), then ends the session.

func (h *Handler) registerAccountDataRoutes() {
	h.mux.HandleFunc("GET "+Base+"/account/export.json", h.requireSession(h.handleAccountExport))
	h.mux.HandleFunc("POST "+Base+"/account/delete", h.requireSession(h.handleAccountDelete))
}

func (h *Handler) handleAccountExport(w http.ResponseWriter, r *http.Request, si signedIn) {
	x, err := h.acc.Export(r.Context(), si.account.ID, h.opts.AccountData)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="cardedge-`+si.account.ID+`.json"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.Write(append(b, '\n'))
}

func (h *Handler) handleAccountDelete(w http.ResponseWriter, r *http.Request, si signedIn) {
	if r.PostFormValue("confirm") != "delete" {
		h.accountPage(w, r, si, http.StatusUnprocessableEntity, "", "Type delete in the box to confirm: nothing was deleted.")
		return
	}
	err := h.acc.DeleteSignedIn(r.Context(), si.id, r.PostFormValue("password"), h.opts.AccountData, h.client(r))
	if err != nil {
		status, msg := h.formError(err)
		if apperr.ErrorCode(err) == apperr.EUNAUTHORIZED {
			status = http.StatusUnprocessableEntity
		}
		h.accountPage(w, r, si, status, "", msg)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1, http.SameSiteLaxMode)
	http.Redirect(w, r, Base+"/signin?done=deleted", http.StatusSeeOther)
}
