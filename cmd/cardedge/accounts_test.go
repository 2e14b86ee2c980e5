package main_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/apperr"
	main "github.com/cardedge/cardedge/cmd/cardedge"
)

func TestAccountsCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.bolt")
	ctx := context.Background()

	out, err := runMain(t, "accounts", "list", "--state", path)
	if err != nil || !strings.HasPrefix(out, "ID ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("list without a state file: %v %q", err, out)
	}
	out, err = runMain(t, "accounts", "create", "--state", path, "--email", "Ops@Example.com", "--tier", "pro")
	if err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	m := regexp.MustCompile(`created account (a_[a-z2-7]{16}) \(ops@example.com, tier pro\)\n.*\n([a-z2-9-]{23})\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("create printed %q", out)
	}
	id, password := m[1], m[2]

	st := stateAt(t, path)
	svc, err := account.New(account.Options{State: st})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SignIn(ctx, "ops@example.com", password, account.Client{}); err != nil {
		t.Fatalf("signing in with the printed password: %v", err)
	}
	secret, _, err := svc.CreateKey(ctx, id, "ops", 30, account.Client{})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.Open(access.Options{State: st, SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer acc.Close()
	tierOf := func() (access.Tier, error) {
		if err := acc.Sync(); err != nil {
			t.Fatal(err)
		}
		c, err := acc.Authenticate([]byte("Bearer "+secret), "192.0.2.1")
		return c.Tier, err
	}
	if tier, err := tierOf(); err != nil || tier != access.Pro {
		t.Fatalf("key tier %v, %v", tier, err)
	}

	t.Run("SetTier", func(t *testing.T) {
		if out, err := runMain(t, "accounts", "set-tier", "--state", path, "ops@example.com", "elite"); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if tier, err := tierOf(); err != nil || tier != access.Elite {
			t.Fatalf("key tier after set-tier: %v, %v", tier, err)
		}
	})
	t.Run("Disable", func(t *testing.T) {
		if out, err := runMain(t, "accounts", "disable", "--state", path, id); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if _, err := tierOf(); apperr.ErrorCode(err) != apperr.EUNAUTHORIZED {
			t.Fatalf("key of a disabled account: %v", err)
		}
		if _, _, err := svc.SignIn(ctx, "ops@example.com", password, account.Client{}); apperr.ErrorCode(err) != apperr.EFORBIDDEN {
			t.Fatalf("sign-in of a disabled account: %v", err)
		}
		out, _ := runMain(t, "accounts", "list", "--state", path)
		if !strings.Contains(out, id+" elite  disabled") {
			t.Fatalf("list: %q", out)
		}
		if out, err := runMain(t, "accounts", "enable", "--state", path, id); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if tier, err := tierOf(); err != nil || tier != access.Elite {
			t.Fatalf("key after enable: %v, %v", tier, err)
		}
	})
	t.Run("ResetPassword", func(t *testing.T) {
		main.Stdin = strings.NewReader("the operator's new passphrase\n")
		defer func() { main.Stdin = nil }()
		if out, err := runMain(t, "accounts", "reset-password", "--state", path, "--password-stdin", id); err != nil || strings.Contains(out, "passphrase") {
			t.Fatalf("%v %q", err, out)
		}
		if _, _, err := svc.SignIn(ctx, "ops@example.com", "the operator's new passphrase", account.Client{}); err != nil {
			t.Fatalf("the reset password: %v", err)
		}
		events, _ := svc.Audit(ctx, id, 0)
		if events[1].What != account.EventPasswordReset || events[1].Addr != "" {
			t.Fatalf("audit: %+v", events[:2])
		}
	})
	t.Run("Err", func(t *testing.T) {
		for _, args := range [][]string{
			{"accounts"},
			{"accounts", "frobnicate", "--state", path},
			{"accounts", "list"},
			{"accounts", "create", "--state", path, "--email", "ops@example.com"},                 // taken
			{"accounts", "create", "--state", path, "--email", "x@example.com", "--tier", "gold"}, // bad tier
			{"accounts", "set-tier", "--state", path, "nobody@example.com", "pro"},
			{"accounts", "set-tier", "--state", path, id},
			{"accounts", "disable", "--state", path, "a_zzzzzzzzzzzzzzzz"},
		} {
			if out, err := runMain(t, args...); err == nil {
				t.Errorf("%v: no error (%q)", args, out)
			}
		}
	})
}
