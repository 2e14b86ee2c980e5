package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
)

// version is set by the Makefile (-ldflags -X main.version).
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Main(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "cardedge:", err)
		}
		os.Exit(1)
	}
}

const usage = `usage:
  cardedge serve --snapshots DIR --state FILE [--addr 127.0.0.1:8080] [--cache-mb N] [--redis URL] [--log-level info]
                 [--llm-url URL [--llm-model M]]   (agent chat model; its key from $CARDEDGE_LLM_API_KEY)
                 [--signup open|closed] [--public-url URL] [--key-max-days N]   (the dashboard at /dashboard)
                 [--drain 0s] [--swap-share 0.25]
                 [--alerts-share 0.1] [--alerts-lease 1m] [--webhooks-poll 1s] [--webhooks-allow-private]   (alerts: docs/alerts.md)
  cardedge serve --snapshots s3://BUCKET/PREFIX --cache-dir DIR [--poll 10s] [--keep 3] [--pin ID] ...
                 (a fleet replica: snapshots mirrored from the bucket; AWS_* environment and config files)
  cardedge keys create --state FILE --tier free|pro|elite [--name N] [--sql] [--unmetered]
  cardedge keys list --state FILE
  cardedge keys revoke --state FILE ID
  cardedge accounts create --state FILE --email EMAIL [--tier free|pro|elite] [--password-stdin]
  cardedge accounts list --state FILE
  cardedge accounts set-tier --state FILE ACCOUNT free|pro|elite
  cardedge accounts disable|enable --state FILE ACCOUNT
  cardedge accounts reset-password --state FILE ACCOUNT [--password-stdin]
  cardedge accounts export --state FILE ACCOUNT [--out FILE]   (everything the account owns, as JSON; no secrets)
  cardedge accounts delete --state FILE ACCOUNT --yes           (the account and everything it owns, for good)
                 (ACCOUNT is an account id, a_..., or an email)
  cardedge serve --snapshots DIR|s3://... --redis URL ...   (a fleet: the state store in Redis)
  cardedge keys|accounts ... --redis URL                     (in place of --state FILE)
  cardedge state migrate --from FILE --to redis://host:port/db   (move a node's state into Redis, exactly)
  cardedge state check --state FILE | --redis URL
  cardedge secrets rotate --state FILE|--redis URL [--grace D] chat-token|oauth-token
                 (a new key signs chat-user tokens or connected apps' access tokens; the old one verifies for the grace)
  cardedge demo --state FILE [--addr ADDR]`

// Main runs one cardedge command until ctx ends.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "keys":
		return runKeys(ctx, args[1:], stdout, stderr)
	case "accounts":
		return runAccounts(ctx, args[1:], stdout, stderr)
	case "state":
		return runState(ctx, args[1:], stdout, stderr)
	case "secrets":
		return runSecrets(ctx, args[1:], stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// openState opens the state file (created when missing, upgraded in place
// from an older format) and checks all of it: bbolt's consistency check and a
// decode of every record. A locked, corrupted or unknown file is an error:
// serve never starts on it, and never resets it.
func openState(ctx context.Context, path string) (*statebolt.Store, error) {
	st, err := statebolt.Open(path, statebolt.Options{})
	if err != nil {
		return nil, err
	}
	if err := st.Check(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// secrets holds the server's secrets in the state store (state.Secrets).
var secrets = state.NewTable[[]byte](state.Secrets)

// cursorSecret returns the key that signs sales cursors, kept in the state
// store so that cursors survive restarts and snapshot swaps and are the same
// for every process of the store. The first start creates it, from the file
// legacy when it exists (where earlier versions kept it: cursors they issued
// stay valid; the file is no longer read afterwards) or at random.
func cursorSecret(ctx context.Context, st state.Store, legacy string) ([]byte, error) {
	var secret []byte
	err := st.Update(ctx, func(tx state.Tx) error {
		b, err := secrets.Get(tx, "cursor")
		if err == nil && len(b) >= 32 {
			secret = b
			return nil
		}
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		if b, err := os.ReadFile(legacy); legacy != "" && err == nil && len(b) >= 32 {
			secret = b
		} else {
			secret = make([]byte, 32)
			if _, err := rand.Read(secret); err != nil {
				return err
			}
		}
		return secrets.Put(tx, "cursor", secret, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("cursor secret: %w", err)
	}
	return secret, nil
}

func runKeys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("keys: want create, list or revoke")
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var store storeFlags
	store.register(fs)
	tier := fs.String("tier", "free", "free, pro or elite")
	name := fs.String("name", "", "a name for the key (default key-<the 8 characters of its id>)")
	sql := fs.Bool("sql", false, "allow POST /api/v3/sql")
	unmetered := fs.Bool("unmetered", false, "skip quotas and rate limits (load tests)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := store.check("keys"); err != nil {
		return err
	}
	const listHeader = "%-12s %-7s %-5s %-9s %-20s %-20s %s\n"
	if args[0] == "list" {
		if store.empty() { // no file, no keys: do not create one
			fmt.Fprintf(stdout, listHeader, "ID", "TIER", "SQL", "UNMETERED", "CREATED", "REVOKED", "NAME")
			return nil
		}
	}
	switch args[0] {
	case "create", "list", "revoke":
	default:
		return fmt.Errorf("keys: unknown command %q", args[0])
	}
	st, err := store.open()
	if err != nil {
		return err
	}
	defer st.Close()
	keys := access.Keys{State: st}
	switch args[0] {
	case "create":
		t, err := access.ParseTier(*tier)
		if err != nil || t == access.Playground {
			return fmt.Errorf("keys create: --tier must be free, pro or elite")
		}
		secret, k, err := keys.Create(ctx, access.KeySpec{Tier: t, Name: *name, SQL: *sql, Unmetered: *unmetered})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created key %s (tier %s, name %q, sql %v, unmetered %v); the secret is shown once:\n", k.ID, k.Tier, k.Name, k.SQL, k.Unmetered)
		fmt.Fprintln(stdout, secret)
		return nil
	case "list":
		list, err := keys.List(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, listHeader, "ID", "TIER", "SQL", "UNMETERED", "CREATED", "REVOKED", "NAME")
		for _, k := range list {
			revoked := "-"
			if !k.Revoked.IsZero() {
				revoked = k.Revoked.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(stdout, listHeader, k.ID, k.Tier, fmt.Sprint(k.SQL), fmt.Sprint(k.Unmetered), k.Created.UTC().Format(time.RFC3339), revoked, k.Name)
		}
		return nil
	}
	if fs.NArg() != 1 {
		return errors.New("keys revoke: want one key id")
	}
	k, err := keys.Revoke(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked key %s; a running server refuses it within a second\n", k.ID)
	return nil
}

// runDemo creates one Pro demo key the first time (its secret is kept in
// <state>.demo-key so make run can print it again) and prints a curl line.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", "", "state file (required)")
	addr := fs.String("addr", "127.0.0.1:8080", "address the server will listen on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *state == "" {
		return errors.New("demo: --state is required")
	}
	path := *state + ".demo-key"
	secret := ""
	if b, err := os.ReadFile(path); err == nil {
		secret = strings.TrimSpace(string(b))
	}
	if secret == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		st, err := statebolt.Open(*state, statebolt.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		s, _, err := access.Keys{State: st}.Create(ctx, access.KeySpec{Tier: access.Pro, Name: "demo (make run)"})
		if err != nil {
			return err
		}
		secret = s
		if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\nDemo key (pro tier): %s\nTry:\n  curl -s -H 'Authorization: Bearer %s' 'http://%s/api/v3/cards?limit=3'\n  curl -s 'http://%s/api/v3/cards/en:base1-4?include=market_summary'\nDashboard (sign up, keys, usage): %s\nAPI reference: http://%s/api/v3/docs (the OpenAPI document: /api/v3/openapi.json)\n\n", secret, secret, *addr, *addr, dashboardURL("", *addr), *addr)
	return nil
}
