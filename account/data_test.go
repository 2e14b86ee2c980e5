package account_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/state"
)

// dump returns every live record and counter of st, "bucket key = value",
// sorted.
func dump(tb testing.TB, st state.Store) []string {
	tb.Helper()
	var out []string
	err := st.View(ctx, func(tx state.Tx) error {
		for _, b := range state.Buckets {
			var err error
			switch b.Kind() {
			case state.KindRecords:
				err = tx.Scan(b, state.ScanOptions{}, func(k string, v []byte) error {
					out = append(out, string(b)+" "+k+" = "+string(v))
					return nil
				})
			case state.KindCounters:
				err = tx.ScanCounts(b, state.ScanOptions{}, func(k string, n int64) error {
					if n != 0 {
						out = append(out, string(b)+" "+k+" = "+strings.Repeat("+", min(int(n), 3)))
					}
					return nil
				})
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// partRecord is a Part over the Cohorts bucket: one record under each id an
// account owns, as another package would keep.
func partRecord() account.Part {
	return account.Part{Name: "thing",
		Export: func(tx state.Tx, o account.Owned) (any, error) {
			var got []string
			for _, id := range o.IDs() {
				tx.Scan(state.Cohorts, state.ScanOptions{Prefix: id + "/"}, func(k string, _ []byte) error { got = append(got, k); return nil })
			}
			return got, nil
		},
		Delete: func(tx state.Tx, o account.Owned) error {
			for _, id := range o.IDs() {
				if err := tx.Delete(state.Cohorts, id+"/thing"); err != nil {
					return err
				}
			}
			return nil
		}}
}

// mustData gives account a a key (used: usage counters), a session, a
// record of the part under the account and under its key, and returns the
// key's id.
func (e *env) mustData(tb testing.TB, a account.Account) string {
	tb.Helper()
	_, k, err := e.svc.CreateKey(ctx, a.ID, "k", 30, account.Client{Addr: "192.0.2.1"})
	if err != nil {
		tb.Fatal(err)
	}
	e.MustSignIn(tb, a.Email, "192.0.2.7")
	err = e.st.Update(ctx, func(tx state.Tx) error {
		for _, id := range []string{a.ID, k.ID} {
			if err := tx.Put(state.Cohorts, id+"/thing", []byte(`{"of":"`+id+`"}`), 0); err != nil {
				return err
			}
			if err := tx.Add(state.Usage, id+"/2026-11-05", 7, 0); err != nil {
				return err
			}
		}
		return tx.Put(state.LastUsed, k.ID, []byte(`"2026-11-05T10:00:00Z"`), 0)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return k.ID
}

func TestService_Export(t *testing.T) {
	e := MustService(t, account.Options{})
	a := e.MustAccount(t, "ada@example.com")
	keyID := e.mustData(t, a)
	other := e.MustAccount(t, "bob@example.com")
	e.mustData(t, other)

	x, err := e.svc.Export(ctx, a.ID, []account.Part{partRecord()})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(x)
	s := string(b)
	if x.Format != account.ExportFormat || x.Account.Email != "ada@example.com" || len(x.Keys) != 1 || x.Keys[0].ID != keyID ||
		x.Keys[0].LastUsed == nil || len(x.Sessions) != 1 || x.Sessions[0].Addr != "192.0.2.7" || len(x.Audit) < 3 || len(x.Usage) != 2 {
		t.Errorf("export: %s", s)
	}
	if got, want := x.Data["thing"], []string{a.ID + "/thing", keyID + "/thing"}; !slices.Equal(got.([]string), want) {
		t.Errorf("the part's export %v, want %v", got, want)
	}
	// No secret: no password hash, no key hash or hint, no session id or
	// CSRF token; nothing of the other account.
	for _, bad := range []string{"argon2id", "hash", "hint", "csrf", "bob@example.com", other.ID} {
		if strings.Contains(strings.ToLower(s), bad) {
			t.Errorf("the export holds %q: %s", bad, s)
		}
	}
	if _, err := e.svc.Export(ctx, "a_nobody", nil); code(err) != "not_found" {
		t.Errorf("an unknown account: %v", err)
	}
}

func TestService_Delete(t *testing.T) {
	e := MustService(t, account.Options{})
	a := e.MustAccount(t, "ada@example.com")
	keyID := e.mustData(t, a)
	other := e.MustAccount(t, "bob@example.com")
	e.mustData(t, other)
	before := dump(t, e.st)
	var others []string
	for _, line := range before {
		if !strings.Contains(line, a.ID) && !strings.Contains(line, keyID) && !strings.Contains(line, "ada@example.com") {
			others = append(others, line)
		}
	}

	if err := e.svc.Delete(ctx, a.ID, []account.Part{partRecord()}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second) // the usage counters zeroed expire a millisecond later
	after := dump(t, e.st)
	for _, line := range after {
		if strings.Contains(line, a.ID) || strings.Contains(line, keyID) || strings.Contains(line, "ada@example.com") {
			t.Errorf("left after the deletion: %s", line)
		}
	}
	// Every record of the other account is as it was; only the key
	// table's revision moved.
	var rest []string
	for _, line := range after {
		if !strings.HasPrefix(line, "meta ") {
			rest = append(rest, line)
		}
	}
	var want []string
	for _, line := range others {
		if !strings.HasPrefix(line, "meta ") {
			want = append(want, line)
		}
	}
	if !slices.Equal(rest, want) {
		t.Errorf("the other account's records changed:\nbefore %q\nafter  %q", want, rest)
	}
	if _, err := e.svc.Get(ctx, a.ID); code(err) != "not_found" {
		t.Errorf("the deleted account: %v", err)
	}
	// The email is free again.
	if _, err := e.svc.Create(ctx, "ada@example.com", goodPassword, access.Free, account.Client{}); err != nil {
		t.Errorf("sign up again with the email: %v", err)
	}
}

func TestService_DeleteSignedIn(t *testing.T) {
	e := MustService(t, account.Options{})
	a := e.MustAccount(t, "ada@example.com")
	sid := e.MustSignIn(t, a.Email, "192.0.2.7")
	if err := e.svc.DeleteSignedIn(ctx, sid, "not the password", nil, account.Client{Addr: "192.0.2.7"}); code(err) != "unauthorized" {
		t.Fatalf("a wrong password: %v", err)
	}
	if _, err := e.svc.Get(ctx, a.ID); err != nil {
		t.Fatalf("the account after a refused deletion: %v", err)
	}
	if err := e.svc.DeleteSignedIn(ctx, sid, goodPassword, nil, account.Client{Addr: "192.0.2.7"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.Session(ctx, sid); code(err) != "unauthorized" {
		t.Errorf("the session after the deletion: %v", err)
	}
}
