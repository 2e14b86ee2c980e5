// Package alert is want lists and price alerts: rules an account keeps on a
// card (or every card of a set), in a printing and grade, with a condition
// on one source's price, evaluated against each new snapshot; the events
// they fire; and the Atom feed of those events.
//
//   - rule.go: Rule, Condition (at_or_below, at_or_above, a move of N %
//     over 1, 7 or 30 days, first_sale, first_listing), Input, ParseInput
//     and Check (FieldErrors naming every wrong field).
//   - service.go: Service, Options, Limits (per tier: access.Limits'
//     AlertRules and AlertSetRules), Create, Replace, Delete, Get, List,
//     Events.
//   - market.go: Market, what an evaluation reads of a snapshot (the live
//     view implements it; ReaderMarket does over a snapshots.Reader), and
//     Activity.
//   - view.go: a rule and an event as their owner reads them (View,
//     EventView) and the REST payloads: RuleList (alert-rules.v1),
//     RuleDeleted, EventPage (alert-events.v1), FeedLink (alert-feed.v1).
//   - eval.go: Evaluate, the crossing rule, Report.
//   - event.go: Event, EventID, Payload (the webhook's data).
//   - feed.go: feed tokens (FeedToken, RollFeed, FeedAccount) and Feed /
//     RenderFeed (Atom 1.0).
//   - export.go: an account's data export and deletion.
//   - alerttest: a Market set by hand, for tests and benchmarks.
//
// # The crossing rule
//
// A rule fires for a card when its condition holds at this snapshot and did
// not at the rule's last evaluation: its state (state.AlertStates) lists the
// cards whose condition held. A card whose condition cannot be told (no
// price at confidence above none, the source missing, the card gone) keeps
// its state: a price that disappears and comes back below the target does
// not fire twice. A new price rule fires at the first evaluation where its
// condition holds; a first_sale or first_listing rule records at creation
// (or its first evaluation) what is already there, and fires only for what
// comes after.
//
// # Evaluation
//
// Evaluate runs as a sweep (package sweep) over every rule, once per
// snapshot across a fleet: chunks of rules are evaluated outside any
// transaction (paced), then each chunk's changed states and new events
// commit in one transaction with the progress. Events are keyed by the
// snapshot's day and an id derived from the snapshot, rule and card, and
// inserted only if absent; Options.OnEvent (webhook.Service.Enqueue) is
// called in the same transaction for each event inserted, so an event is
// queued for delivery exactly once, whichever replica evaluates.
//
// It imports the standard library, apperr, snapshots, pricing, state and
// sweep;
// never a transport, never the webhook package (OnEvent joins them).
//
// # Caveats
//
// A rule changed or deleted between a chunk's read and its commit keeps
// its new state (its results are dropped). Report counts what this process
// computed. Errors are *apperr.Error (EINVALID, ENOTFOUND, EFORBIDDEN)
// or FieldErrors; store errors wrap the sentinels of package state.
package alert
