package gold

import "context"

// QueryUnchecked runs sql on a guarded connection without Check: tests use it
// to show that what slips past the lexer still cannot write, attach or load.
func (db *DB) QueryUnchecked(ctx context.Context, sql string) (*Result, error) {
	return db.run(ctx, sql)
}
