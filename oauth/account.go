package oauth

import (
	"time"

	"github.com/cardedge/cardedge/state"
)

// An account's connected apps in its data export and deletion (package
// account calls these inside the account's transaction).

// ExportAccount returns account id's grants (its connected apps), newest
// first, without the hash of their refresh tokens.
func ExportAccount(tx state.Tx, accountID string) ([]Grant, error) {
	out := []Grant{}
	err := grants.Scan(tx, state.ScanOptions{Prefix: accountID + "/"}, func(_ string, g Grant) error {
		g.Refresh = ""
		out = append(out, g)
		return nil
	})
	sortGrants(out)
	return out, err
}

// DeleteAccount ends every grant of account id and deletes its refresh
// tokens, in tx (the account's deletion). Each ended grant leaves a
// tombstone for an access token's lifetime (DefaultAccessTTL and a minute:
// the grant id, without the account), so that every process refuses the
// apps' access tokens at its next check (MetaOAuthRev moves). With an
// Options.AccessTTL longer than the default, an app's last access token
// outlives its tombstone; the account it names is gone, so it reads and
// changes nothing of anyone else; keep the default.
func DeleteAccount(tx state.Tx, accountID string) error {
	var ids []string
	if err := grants.Scan(tx, state.ScanOptions{Prefix: accountID + "/"}, func(_ string, g Grant) error {
		ids = append(ids, g.ID)
		return nil
	}); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, id := range ids {
		if err := grants.Delete(tx, grantKey(accountID, id)); err != nil {
			return err
		}
		if err := revokeds.Put(tx, id, revokedRecord{Time: now, Why: "the account was deleted"}, DefaultAccessTTL+time.Minute); err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		if err := tx.Add(state.Meta, state.MetaOAuthRev, 1, 0); err != nil {
			return err
		}
	}
	// Refresh tokens are keyed by their hash: the account's are found by a
	// scan of them all (a few per connected app of every account).
	var refresh []string
	if err := refreshes.Scan(tx, state.ScanOptions{}, func(k string, r refreshRecord) error {
		if r.Account == accountID {
			refresh = append(refresh, k)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range refresh {
		if err := refreshes.Delete(tx, k); err != nil {
			return err
		}
	}
	return nil
}
