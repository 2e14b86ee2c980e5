package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
)

// Stdin is where --password-stdin reads (tests replace it).
var Stdin io.Reader = os.Stdin

// runAccounts is `cardedge accounts`: the operator's commands over the
// dashboard's accounts in the state file. Running servers see tier changes
// and disabled accounts within a second (the key table's revision moves).
func runAccounts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const want = "accounts: want create, list, set-tier, disable, enable, reset-password, export or delete"
	if len(args) == 0 {
		return errors.New(want)
	}
	cmd := args[0]
	fs := flag.NewFlagSet("accounts "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var store storeFlags
	store.register(fs)
	email := fs.String("email", "", "the account's email (create)")
	tier := fs.String("tier", "free", "free, pro or elite (create)")
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input instead of generating one (create, reset-password)")
	out := fs.String("out", "", "the file the export is written to (export; default: standard output)")
	yes := fs.Bool("yes", false, "really delete: the account and everything it owns, for good (delete)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := store.check("accounts " + cmd); err != nil {
		return err
	}
	nargs := map[string]int{"create": 0, "list": 0, "set-tier": 2, "disable": 1, "enable": 1, "reset-password": 1, "export": 1, "delete": 1}
	n, ok := nargs[cmd]
	if !ok {
		return fmt.Errorf("%s, not %q", want, cmd)
	}
	if fs.NArg() != n {
		return fmt.Errorf("accounts %s: want %d argument(s) after the flags, got %d", cmd, n, fs.NArg())
	}
	const listHeader = "%-18s %-6s %-8s %-20s %s\n"
	if cmd == "list" {
		if store.empty() { // no file, no accounts: do not create one
			fmt.Fprintf(stdout, listHeader, "ID", "TIER", "STATE", "CREATED", "EMAIL")
			return nil
		}
	}
	st, err := store.open()
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := account.New(account.Options{State: st})
	if err != nil {
		return err
	}
	defer svc.Close()
	by := account.Client{} // the operator: no client address in the audit log

	password := func() (string, bool, error) {
		if !*fromStdin {
			p, err := generatePassword()
			return p, true, err
		}
		line, err := bufio.NewReader(Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", false, err
		}
		return strings.TrimRight(line, "\r\n"), false, nil
	}
	switch cmd {
	case "create":
		t, err := access.ParseTier(*tier)
		if err != nil || t == access.Playground {
			return errors.New("accounts create: --tier must be free, pro or elite")
		}
		if *email == "" {
			return errors.New("accounts create: --email is required")
		}
		p, generated, err := password()
		if err != nil {
			return err
		}
		a, err := svc.Create(ctx, *email, p, t, by)
		if err != nil {
			return fmt.Errorf("accounts create: %w", err)
		}
		fmt.Fprintf(stdout, "created account %s (%s, tier %s)\n", a.ID, a.Email, a.Tier)
		if generated {
			fmt.Fprintf(stdout, "its password, shown once (the owner changes it on the dashboard's Account page):\n%s\n", p)
		}
		return nil
	case "list":
		list, err := svc.List(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, listHeader, "ID", "TIER", "STATE", "CREATED", "EMAIL")
		for _, a := range list {
			state := "active"
			if a.Disabled {
				state = "disabled"
			}
			fmt.Fprintf(stdout, listHeader, a.ID, a.Tier, state, a.Created.UTC().Format(time.RFC3339), a.Email)
		}
		return nil
	}
	a, err := svc.Lookup(ctx, fs.Arg(0))
	if err != nil {
		return fmt.Errorf("accounts %s: %w", cmd, err)
	}
	switch cmd {
	case "export":
		return runAccountExport(ctx, st, svc, a, *out, stdout)
	case "delete":
		return runAccountDelete(ctx, st, svc, a, *yes, stdout)
	case "set-tier":
		t, err := access.ParseTier(fs.Arg(1))
		if err != nil || t == access.Playground {
			return errors.New("accounts set-tier: the tier must be free, pro or elite")
		}
		if _, err := svc.SetTier(ctx, a.ID, t, by); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "account %s (%s) and its keys are now %s; running servers apply it within a second\n", a.ID, a.Email, t)
	case "disable", "enable":
		if _, err := svc.SetDisabled(ctx, a.ID, cmd == "disable", by); err != nil {
			return err
		}
		if cmd == "disable" {
			fmt.Fprintf(stdout, "account %s (%s) is disabled: its sessions ended and its keys are refused within a second\n", a.ID, a.Email)
		} else {
			fmt.Fprintf(stdout, "account %s (%s) is enabled again, with its keys\n", a.ID, a.Email)
		}
	case "reset-password":
		p, generated, err := password()
		if err != nil {
			return err
		}
		if err := svc.ResetPassword(ctx, a.ID, p, by); err != nil {
			return fmt.Errorf("accounts reset-password: %w", err)
		}
		fmt.Fprintf(stdout, "password of %s (%s) reset; its sessions ended\n", a.ID, a.Email)
		if generated {
			fmt.Fprintf(stdout, "the new password, shown once:\n%s\n", p)
		}
	}
	return nil
}

// generatePassword returns 20 random lowercase letters and digits in groups
// of five (about 100 bits).
func generatePassword() (string, error) {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789" // 32 symbols, no look-alikes
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%5 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(alphabet[c%32])
	}
	return sb.String(), nil
}
