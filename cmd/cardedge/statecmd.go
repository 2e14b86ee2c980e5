package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cardedge/cardedge/state"
	statebolt "github.com/cardedge/cardedge/state/bolt"
	stateredis "github.com/cardedge/cardedge/state/redis"
)

// runState runs the state store's commands:
//
//	cardedge state migrate --from FILE --to redis://host:port/db
//	cardedge state check --state FILE | --redis URL
func runState(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const want = "state: want migrate or check"
	if len(args) == 0 {
		return errors.New(want)
	}
	fs := flag.NewFlagSet("state "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	switch args[0] {
	case "migrate":
		from := fs.String("from", "", "the state file to move (stop its servers first)")
		to := fs.String("to", "", "redis://host:port/db: the fleet's store, empty")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *from == "" || *to == "" || fs.NArg() > 0 {
			return errors.New("state migrate: want --from FILE --to redis://host:port/db")
		}
		if _, err := os.Stat(*from); err != nil {
			return fmt.Errorf("state migrate: %w", err)
		}
		src, err := statebolt.Open(*from, statebolt.Options{})
		if err != nil {
			return err
		}
		if err := src.Check(ctx); err != nil {
			return fmt.Errorf("state migrate: the state file does not check: %w", err)
		}
		dst, err := stateredis.Open(*to, stateredis.Options{})
		if err != nil {
			return err
		}
		defer dst.Close()
		n, err := state.Migrate(ctx, src, dst)
		if err != nil {
			return err
		}
		if err := dst.Check(ctx); err != nil {
			return fmt.Errorf("state migrate: the copy does not check: %w", err)
		}
		fmt.Fprintf(stdout, "moved %d records and counters from %s into %s (prefix %s); serve with --redis %s and without --state\n",
			n, *from, *to, dst.Prefix(), *to)
		return nil
	case "check":
		var store storeFlags
		store.register(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if err := store.check("state check"); err != nil {
			return err
		}
		st, err := store.open()
		if err != nil {
			return err
		}
		defer st.Close()
		if err := st.Check(ctx); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "ok: the state store checks")
		return nil
	}
	return fmt.Errorf("%s, not %q", want, args[0])
}
