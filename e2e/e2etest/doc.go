// Package e2etest holds the helpers the whole-program tests share: those of
// package e2e (the built cardedge binary, Chromium, npm, redis-server, an S3
// server) and those of cmd/cardedge (Main and Serve in-process):
//
//   - API, a client of the REST API that checks every response against the
//     OpenAPI document the server serves (its bodies under JSON Schema
//     2020-12 by the Schemas the tests hand it, openapi/openapitest's; status,
//     content type and headers through kin-openapi), with per-client
//     loopback source addresses (Client) so that the Playground's
//     per-address limits do not couple tests;
//   - Env and Main, a whole-program TestMain's snapshot (the real builder's
//     tiny one, snapshots/snapshotstest), state file (state/bolt, checked by
//     state/statetest) and keys (access: CreateKeys, CreateKey);
//   - Binary and Serve, the cardedge binary built once per test binary and
//     run as a child process on a free loopback port (stopped with SIGINT,
//     as an operator would, when the test ends);
//   - snapshot roots copied for a test of its own (CopyRoot,
//     CloneSnapshot).
//
// It is named like httptest: a helper of tests, imported by no program. It
// imports the standard library, kin-openapi, access, snapshots,
// snapshots/snapshotstest, state, state/bolt and state/statetest; not
// edge/ (only the commands import the front door).
package e2etest
