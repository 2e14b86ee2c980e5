// Command cardedge serves the cardedge API and manages its keys.
//
//	cardedge serve --snapshots DIR --state FILE [--addr 127.0.0.1:8080] [--cache-mb N] [--redis URL] [--llm-url URL [--llm-model M]]
//	               [--signup open|closed] [--public-url URL] [--key-max-days N] [--image-url-template URL] [--drain D] [--swap-share F]
//	               [--alerts-share F] [--alerts-lease D] [--webhooks-poll D] [--webhooks-allow-private]
//	cardedge serve --snapshots s3://BUCKET/PREFIX --cache-dir DIR [--poll 10s] [--keep N] [--pin ID] ...
//	cardedge serve ... [--oauth-cimd-allow-private] [--oauth-cimd-ca FILE]   (tests only, on loopback only: appstest.go)
//	cardedge accounts create|list|set-tier|disable|enable|reset-password|export|delete --state FILE ...
//	cardedge keys create --state FILE --tier free|pro|elite [--name N] [--sql] [--unmetered]
//	cardedge keys list --state FILE
//	cardedge keys revoke --state FILE ID
//	cardedge secrets rotate --state FILE|--redis URL chat-token [--grace 30m]   (a new key signs the web chat's tokens)
//	cardedge demo --state FILE [--addr ADDR]   (make run: one demo key, printed with a curl line)
//
// Main (with ParseFlags-style per-command flag sets) runs one command; Serve
// wires the program: the state store (state/bolt), the chat-user tokens
// (chattoken: verified by the access layer, minted by the dashboard), the
// access layer, the
// agent's model (agent/openai when --llm-url is set, agent.go), the edge,
// the MCP server (mcp.go), the dashboard (web, over account) and, in fleet
// mode, the snapshot puller (snapshots/s3, fleet.go); alerts and webhooks
// (alerts.go: alert, webhook, a sweep runner whose pacer keeps the work of
// a new snapshot, run at start-up and after each swap, to --alerts-share
// of a CPU, pricing's sources) and the parts of an account's data export
// and deletion (accountdata.go). Only this command
// reads flags, environment ($CARDEDGE_LLM_API_KEY; the AWS_* variables
// through snapshots/s3's NewClient) and files.
//
// It imports edge, live, pokemontcg (/v2's catalog of each snapshot), access, mcp, web, account, oauth, chattoken,
// collection, alert, webhook, sweep, pricing, state, state/bolt, state/redis, agent,
// agent/openai, snapshots, snapshots/s3 and the standard library.
//
// # Caveats
//
// The end-to-end tests run Main in-process (main_test.go has the shared
// environment; one file per feature beside it).
package main
