// Package collection is collections: a collector's cards, held by card,
// printing and grade, valued as of a snapshot. A collection belongs to an
// Owner: an account (every key of the account, its dashboard pages and its
// chat see one collection) or a key without an account, which keeps its
// own.
//
//   - collection.go: Service, Owner, the limits.
//   - store.go: the stored record (state.Collections under the owner's id),
//     and Adopt, which folds the collections that keys of accounts kept as
//     their own (before collections belonged to accounts) into their
//     accounts'.
//   - holdings.go: Add and Remove, by card, printing and grade (Change);
//     what the chat's list operations call.
//   - view.go: View (collection.v1): holdings valued with the estimate of
//     their printing and grade (null at confidence none), gain over the
//     price paid, the 30-day change, and the value over time of today's
//     holdings.
//   - export.go: Export, the collection as CSV that an import reads back.
//   - upload.go: ParseUpload (format, delimiter, header, rows; 422s name the
//     row and column; ETOOLARGE over MaxBytes or MaxRows) and Cost.
//   - rows.go: the checks of a row (grade and condition through
//     snapshots.ReadGradeCondition, quantity, price paid, language).
//   - preview.go: Service.Preview resolves every row with resolve.Columns,
//     reads its printing against the card, values it, and keeps what
//     Confirm needs.
//   - history.go: Service.Record values every collection at a snapshot
//     (per source, split by confidence) once per snapshot across a fleet
//     (package sweep) into state.CollectionHistory; History reads an
//     owner's points back; Completion is set completion (printings held
//     against the set's, the cost of the rest at today's fmv); History
//     and Completion (the types) are their REST payloads
//     (collection-history.v1, collection-completion.v1); ExportHistory and DeleteHistory serve the account's data export and
//     deletion.
//   - confirm.go: Service.Confirm merges the matched rows (and the
//     ambiguous rows a choice picks) into the collection by card, printing
//     and grade; a second confirm answers already_confirmed.
//
// It imports the standard library, apperr, snapshots, snapshots/jsontext,
// estimate, resolve, live,
// pricing, sweep and state (the previews, collections and history tables); never a
// transport, never bbolt (the state store's package owns the file). The
// edge's handlers (edge/imports.go, edge/collection.go), the dashboard
// (package web) and MCP call a Service, naming the Owner.
//
// # Caveats
//
// The clock is Options.Now (expiry, confirmation times); the state store's
// own clock expires the preview records, so give both the same clock in
// tests. Confirm, Add and Remove run in one state transaction each, which
// may run more than once (state.Store.Update): they recompute everything
// they return on each run. A holding's printing "" is the card's base
// printing (snapshots.BasePrinting); a named printing is stored as the
// catalog spells the variant.
package collection
