// Package webhook delivers messages (alerts, test events) to the endpoints
// accounts register, signed per Standard Webhooks (standardwebhooks.com).
//
//   - endpoint.go: Service, Options, endpoints per account (Create, List,
//     Get, Update, Delete, SetEnabled, RollSecret, Secret), Limits.
//   - sign.go: secrets ("whsec_" + base64) and Sign: webhook-signature is
//     "v1," + base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>",
//     one per secret, space-separated; during a roll's SecretOverlap (24 h)
//     the old secret signs beside the new one.
//   - guard.go: the SSRF guard. A URL is refused at creation when its host
//     is, or resolves to, a loopback, private, link-local, CGNAT,
//     multicast, unspecified, reserved, documentation, IPv4-mapped or
//     -translating (NAT64, 6to4, Teredo) address, or a cloud metadata
//     service; and again at every dial: the transport looks the name up
//     itself and its dialer's Control checks the address it connects to,
//     so a name that rebinds to 127.0.0.1 after creation is refused too.
//     Guard.AllowPrivate (--webhooks-allow-private) allows all but the
//     metadata services. No proxy, no redirects.
//   - queue.go: Enqueue queues a message for an account's endpoints inside
//     the caller's transaction (alert.Options.OnEvent), SendTest.
//   - deliver.go: Deliver (one pass) and Run (a loop): each endpoint's
//     messages go in the order queued, one at a time (a lease per endpoint
//     in state.Leases, so that in a fleet one replica delivers to it), with
//     retries after Options.Backoff (DefaultBackoff: about 3 days), given
//     up after the last; an endpoint failing for Options.DisableAfter (5
//     days) is disabled with a Notice; every attempt goes to the delivery
//     log (status, latency, the first bytes of the answer).
//   - view.go: the REST payloads of the endpoints' routes (EndpointList,
//     EndpointCreated with the secret shown once, EndpointDeleted,
//     SecretRolled, TestQueued, DeliveryLog, NoticeList).
//   - export.go: an account's data export and deletion.
//
// Everything lives in the state store (see state/buckets.go: the Webhook*
// buckets), so a restart or another replica carries on with the queue.
//
// It imports the standard library (net/http as the client), apperr (error
// codes) and state; never a server framework.
//
// # Caveats
//
// Delivery is at least once: a process that dies after an endpoint answered
// 2xx and before it recorded so sends the message again, with the same
// webhook-id (receivers deduplicate by it, as the spec asks). Signing
// secrets are stored as they are (HMAC needs them): whoever reads the state
// store can sign. Deliver scans every endpoint and cursor once per pass:
// fine for thousands of endpoints; a due index is the next step beyond.
// Latency in the log is measured on the wall clock; every other time on
// Options.Now.
package webhook
