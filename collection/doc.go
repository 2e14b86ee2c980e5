// Package collection is collection imports: a collector's spreadsheet (CSV
// or JSON rows, any of the column names collectors use) read, checked and
// resolved row by row to cards, valued, kept as a preview for PreviewTTL,
// and confirmed, once, into the key's collection.
//
//   - upload.go: ParseUpload (format, delimiter, header, rows; 422s name the
//     row and column; ETOOLARGE over MaxBytes or MaxRows) and Cost.
//   - rows.go: the checks of a row (grade and condition through
//     snapshots.ReadGradeCondition, quantity, price paid, language).
//   - preview.go: Service.Preview resolves every row with resolve.Columns,
//     values it with pricing.FMV, and keeps what Confirm needs.
//   - confirm.go: Service.Confirm merges the matched rows (and the
//     ambiguous rows a choice picks) into the collection by card and grade;
//     a second confirm answers already_confirmed.
//
// It imports the standard library, snapshots, edge/resolve, pricing and
// state (the previews and collections tables); never a transport, never
// bbolt (the state store's package owns the file). The edge's handlers
// (edge/imports.go) decode the request and call a Service.
//
// # Caveats
//
// The clock is Options.Now (expiry, confirmation times); the state store's
// own clock expires the preview records, so give both the same clock in
// tests. Confirm runs in one state transaction, which may run more than once
// (state.Store.Update): it recomputes everything it returns on each run.
package collection
