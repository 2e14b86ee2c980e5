package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/collection"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/oauth"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/webhook"
)

// accountParts are the data an account owns beyond its account, keys,
// sessions, usage and audit log (package account's own): what its export
// reads and its deletion deletes, in the same transaction. wh reads the
// webhook endpoints (the export shows their delivery state).
func accountParts(wh *webhook.Service) []account.Part {
	return []account.Part{
		{Name: "collection",
			Export: func(tx state.Tx, o account.Owned) (any, error) { return collection.ExportAccount(tx, o.IDs()) },
			Delete: func(tx state.Tx, o account.Owned) error { return collection.DeleteAccount(tx, o.IDs()) }},
		{Name: "alerts",
			Export: func(tx state.Tx, o account.Owned) (any, error) { return alert.ExportAccount(tx, o.Account) },
			Delete: func(tx state.Tx, o account.Owned) error { return alert.DeleteAccount(tx, o.Account) }},
		{Name: "webhooks",
			Export: func(tx state.Tx, o account.Owned) (any, error) { return wh.ExportAccount(tx, o.Account) },
			Delete: func(tx state.Tx, o account.Owned) error { return webhook.DeleteAccount(tx, o.Account) }},
		{Name: "connected_apps",
			Export: func(tx state.Tx, o account.Owned) (any, error) { return oauth.ExportAccount(tx, o.Account) },
			Delete: func(tx state.Tx, o account.Owned) error { return oauth.DeleteAccount(tx, o.Account) }},
		{Name: "cohorts",
			Export: func(tx state.Tx, o account.Owned) (any, error) { return cardmcp.ExportCohorts(tx, o.IDs()) },
			Delete: func(tx state.Tx, o account.Owned) error { return cardmcp.DeleteCohorts(tx, o.IDs()) }},
	}
}

// runAccountExport writes account a's data export as JSON to out ("" or
// "-": stdout).
func runAccountExport(ctx context.Context, st state.Store, svc *account.Service, a account.Account, out string, stdout io.Writer) error {
	wh, err := webhook.New(webhook.Options{State: st})
	if err != nil {
		return err
	}
	x, err := svc.Export(ctx, a.ID, accountParts(wh))
	if err != nil {
		return fmt.Errorf("accounts export: %w", err)
	}
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if out == "" || out == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		return fmt.Errorf("accounts export: %w", err)
	}
	fmt.Fprintf(stdout, "exported account %s (%s) to %s (%d bytes)\n", a.ID, a.Email, out, len(b))
	return nil
}

// runAccountDelete deletes account a and everything it owns; yes must be
// given (--yes): there is no undo.
func runAccountDelete(ctx context.Context, st state.Store, svc *account.Service, a account.Account, yes bool, stdout io.Writer) error {
	if !yes {
		return errors.New("accounts delete: this deletes the account and everything it owns for good: give --yes (run accounts export first to keep a copy)")
	}
	wh, err := webhook.New(webhook.Options{State: st})
	if err != nil {
		return err
	}
	if err := svc.Delete(ctx, a.ID, accountParts(wh)); err != nil {
		return fmt.Errorf("accounts delete: %w", err)
	}
	fmt.Fprintf(stdout, "deleted account %s (%s) and everything it owned: its keys are refused within a second\n", a.ID, a.Email)
	return nil
}
