package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/cardedge/cardedge/oauth"

	"github.com/cardedge/cardedge/chattoken"
)

// runSecrets rotates a server secret kept in the state store:
//
//	cardedge secrets rotate --state FILE|--redis URL [--grace D] chat-token|oauth-token
//
// A new key signs chat-user tokens (chat-token) or connected apps' access
// tokens (oauth-token) from now on (running servers pick it up within a
// minute); the previous key keeps verifying the tokens it signed for the
// grace period (chat-user tokens live 15 minutes, default grace 30 minutes;
// access tokens an hour, default grace 2 hours).
func runSecrets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "rotate" {
		return errors.New("secrets: want rotate --state FILE|--redis URL [--grace D] chat-token|oauth-token")
	}
	fs := flag.NewFlagSet("secrets rotate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var store storeFlags
	store.register(fs)
	grace := fs.Duration("grace", 0, "how long the previous key keeps verifying the tokens it signed (default: 30m for chat-token, 2h for oauth-token)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := store.check("secrets rotate"); err != nil {
		return err
	}
	if fs.NArg() != 1 || (fs.Arg(0) != "chat-token" && fs.Arg(0) != "oauth-token") {
		return errors.New("secrets rotate: want chat-token (the chat-user tokens' signing key) or oauth-token (the connected apps' access tokens' signing key); the sales-cursor key is not rotated")
	}
	st, err := store.open()
	if err != nil {
		return err
	}
	defer st.Close()
	rotate, g := chattoken.Rotate, chattoken.DefaultGrace
	if fs.Arg(0) == "oauth-token" {
		rotate, g = oauth.Rotate, 2*oauth.DefaultAccessTTL
	}
	if *grace > 0 {
		g = *grace
	}
	kid, err := rotate(ctx, st, time.Now(), g)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: new signing key %s; the previous key verifies the tokens it signed for %s more\n", fs.Arg(0), kid, g)
	return nil
}
