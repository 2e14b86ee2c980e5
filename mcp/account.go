package mcp

import (
	"strings"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/state"
)

// An account's cohorts in its data export and deletion (package account
// calls these inside the account's transaction): the cohorts pinned with
// its keys (under their ids) and with its chat-user tokens and connected
// apps (under the account's id).

// ExportCohorts returns the cohorts kept under owners' ids (an account's
// and its keys'), in key order.
func ExportCohorts(tx state.Tx, owners []string) ([]Cohort, error) {
	out := []Cohort{}
	for _, o := range owners {
		if o == "" || strings.Contains(o, "/") {
			return nil, apperr.Errorf(apperr.EINTERNAL, "mcp: no owner")
		}
		if err := cohortTable.Scan(tx, state.ScanOptions{Prefix: o + "/"}, func(_ string, r cohortRecord) error {
			out = append(out, r.Cohort)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DeleteCohorts deletes the cohorts kept under owners' ids, in tx. A
// process that read one lately may answer it from its memory until the
// cohort's expiry (a cohort is a list of card ids).
func DeleteCohorts(tx state.Tx, owners []string) error {
	for _, o := range owners {
		if o == "" || strings.Contains(o, "/") {
			return apperr.Errorf(apperr.EINTERNAL, "mcp: no owner")
		}
		var keys []string
		if err := tx.Scan(state.Cohorts, state.ScanOptions{Prefix: o + "/"}, func(k string, _ []byte) error {
			keys = append(keys, k)
			return nil
		}); err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.Delete(state.Cohorts, k); err != nil {
				return err
			}
		}
	}
	return nil
}
