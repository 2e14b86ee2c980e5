package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/cardedge/cardedge/chattoken"
)

// runSecrets rotates a server secret kept in the state store:
//
//	cardedge secrets rotate --state FILE|--redis URL chat-token [--grace 30m]
//
// A new key signs chat-user tokens from now on (running servers pick it up
// within a minute); the previous key keeps verifying the tokens it signed
// for the grace period (they live 15 minutes).
func runSecrets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "rotate" {
		return errors.New("secrets: want rotate --state FILE|--redis URL chat-token")
	}
	fs := flag.NewFlagSet("secrets rotate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var store storeFlags
	store.register(fs)
	grace := fs.Duration("grace", chattoken.DefaultGrace, "how long the previous key keeps verifying the tokens it signed")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := store.check("secrets rotate"); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "chat-token" {
		return errors.New("secrets rotate: want chat-token (the chat-user tokens' signing key; the sales-cursor key is not rotated)")
	}
	st, err := store.open()
	if err != nil {
		return err
	}
	defer st.Close()
	kid, err := chattoken.Rotate(ctx, st, time.Now(), *grace)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "chat-token: new signing key %s; the previous key verifies the tokens it signed for %s more\n", kid, *grace)
	return nil
}
