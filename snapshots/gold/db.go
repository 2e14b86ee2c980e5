package gold

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Defaults of Options.
const (
	DefaultMaxRows     = 1000
	DefaultMaxBytes    = 4 << 20
	DefaultTimeout     = time.Second
	DefaultMaxConns    = 2
	DefaultWaitTimeout = 2 * time.Second
)

// Options tune a DB. The zero value of each field means its default.
type Options struct {
	// MaxRows caps the rows of a result (default 1,000). One more row is
	// read to tell whether the result was truncated.
	MaxRows int
	// MaxBytes caps the approximate JSON size of a result's rows (default
	// 4 MiB); a larger result is refused, not cut.
	MaxBytes int
	// Timeout is the time limit of one query (default 1 s), measured from the
	// moment it has a connection.
	Timeout time.Duration
	// MaxConns is the number of connections, hence of queries running at
	// once (default 2, one per core of the edge's 2-core budget).
	MaxConns int
	// WaitTimeout bounds the wait for a free connection (default 2 s); a
	// query that waits longer is refused with EQUOTA.
	WaitTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = DefaultWaitTimeout
	}
	return o
}

// DB is an open gold.sqlite, read-only. It is safe for concurrent use.
type DB struct {
	path   string
	db     *sql.DB
	opt    Options
	schema []Table
}

// Result is the answer to one query (contract sql-query.v1).
type Result struct {
	Columns []Column `json:"columns"`
	// Rows holds JSON-ready values: int64, float64, string, []byte (blob,
	// base64 in JSON) or nil.
	Rows     [][]any `json:"rows"`
	RowCount int     `json:"row_count"`
	// Truncated is true when the query had more than MaxRows rows; Rows then
	// holds the first MaxRows.
	Truncated bool    `json:"truncated"`
	MaxRows   int     `json:"max_rows"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// Column is one column of a Result. Type is "integer", "real", "text",
// "blob", "null" (no non-null value and no declared type) or "any" (values
// of different kinds other than integer and real, which make "real").
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Open opens the gold database at path read-only with default Options.
func Open(path string) (*DB, error) { return OpenWith(path, Options{}) }

// OpenWith opens the gold database at path read-only. The connections are
// opened with mode=ro and immutable=1 (the snapshot never changes), PRAGMA
// query_only=1, SQLite's defensive mode and trusted_schema off; each query
// also runs with no attachable databases and with string and SQL length
// limits (see Query).
func OpenWith(path string, opt Options) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		// mode=ro never creates the file, but say so plainly.
		return nil, fmt.Errorf("gold: open %s: %w", path, err)
	}
	dsn, err := dsnFor(path, url.Values{
		"mode":       {"ro"},
		"immutable":  {"1"},
		"_defensive": {"1"},
		"_pragma":    {"query_only(1)", "trusted_schema(0)"},
	})
	if err != nil {
		return nil, err
	}
	conn, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("gold: open %s: %w", path, err)
	}
	opt = opt.withDefaults()
	db := &DB{path: path, db: sql.OpenDB(conn), opt: opt}
	db.db.SetMaxOpenConns(opt.MaxConns)
	db.db.SetMaxIdleConns(opt.MaxConns)
	if err := db.loadSchema(); err != nil {
		db.db.Close()
		return nil, fmt.Errorf("gold: open %s: %w", path, err)
	}
	// Fail now, not on the first query, if the interrupt cannot be wired.
	c, err := db.db.Conn(context.Background())
	if err != nil {
		db.db.Close()
		return nil, fmt.Errorf("gold: open %s: %w", path, err)
	}
	_, err = sqliteHandle(c)
	c.Close()
	if err != nil {
		db.db.Close()
		return nil, fmt.Errorf("gold: open %s: %w", path, err)
	}
	return db, nil
}

// dsnFor returns a file: URI for path with the query q.
func dsnFor(path string, q url.Values) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("gold: %s: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	// url.URL writes file:///abs; SQLite accepts an empty authority.
	return u.String(), nil
}

// Close closes the database.
func (db *DB) Close() error { return db.db.Close() }

// Schema returns the tables of the database with their columns, types and
// descriptions. The slice is shared: do not modify it.
func (db *DB) Schema() []Table { return db.schema }

func (db *DB) loadSchema() error {
	ctx := context.Background()
	rows, err := db.db.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, n := range names {
		t := Table{Name: n}
		def := findTableDef(n)
		if def != nil {
			t.Description = def.desc
		}
		rows, err := db.db.QueryContext(ctx, "SELECT name, type FROM pragma_table_xinfo(?) WHERE hidden IN (0, 2, 3) ORDER BY cid", n)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c TableColumn
			var decl string
			if err := rows.Scan(&c.Name, &decl); err != nil {
				rows.Close()
				return err
			}
			c.Type = affinityType(decl)
			if c.Type == "" {
				c.Type = "any"
			}
			if def != nil {
				for _, d := range def.cols {
					if d.name == c.Name {
						c.Description = d.desc
					}
				}
			}
			t.Columns = append(t.Columns, c)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		db.schema = append(db.schema, t)
	}
	return nil
}

// SQLite limit ids (sqlite3.h), set on the connection of every query.
const (
	limitLength    = 0  // SQLITE_LIMIT_LENGTH: longest string or blob
	limitSQLLength = 1  // SQLITE_LIMIT_SQL_LENGTH
	limitAttached  = 7  // SQLITE_LIMIT_ATTACHED
	limitLikeLen   = 8  // SQLITE_LIMIT_LIKE_PATTERN_LENGTH
	limitWorkers   = 11 // SQLITE_LIMIT_WORKER_THREADS
)

// Query runs one guarded, read-only query. The SQL must pass Check; it then
// runs on a connection that cannot write, attach or load extensions, within
// Options.Timeout (the statement is interrupted at the deadline), and its
// result is capped at Options.MaxRows rows (Truncated says so) and
// Options.MaxBytes bytes (refused beyond).
//
// Errors: EINVALID for refused SQL, SQL errors (syntax, unknown table or
// column, ...), the time limit and the size cap; EQUOTA when every connection
// stays busy for Options.WaitTimeout; the context's error when ctx ends;
// EINTERNAL (a plain error) for faults of the database itself.
func (db *DB) Query(ctx context.Context, query string) (*Result, error) {
	if err := Check(query); err != nil {
		return nil, err
	}
	return db.run(ctx, query)
}

func (db *DB) run(ctx context.Context, query string) (*Result, error) {
	wctx, cancel := context.WithTimeout(ctx, db.opt.WaitTimeout)
	conn, err := db.db.Conn(wctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, apperr.Errorf(apperr.EQUOTA, "the SQL runner is busy; retry in a moment")
		}
		return nil, fmt.Errorf("gold: %s: connection: %w", db.path, err)
	}
	defer conn.Close()

	// Limits are per connection; setting them costs next to nothing.
	for _, l := range [][2]int{
		{limitAttached, 0},
		{limitLength, db.opt.MaxBytes},
		{limitSQLLength, MaxSQLBytes},
		{limitLikeLen, 1000},
		{limitWorkers, 0},
	} {
		if _, err := sqlite.Limit(conn, l[0], l[1]); err != nil {
			return nil, fmt.Errorf("gold: %s: set limit: %w", db.path, err)
		}
	}
	handle, err := sqliteHandle(conn)
	if err != nil {
		return nil, fmt.Errorf("gold: %s: %w", db.path, err)
	}

	start := time.Now()
	qctx, cancel := context.WithTimeout(ctx, db.opt.Timeout)
	defer cancel()

	// The driver interrupts the statement when the context ends while it
	// runs the first step, but not while later rows are read (rows.Next).
	// This watcher interrupts at the deadline whatever the statement is
	// doing; it stops before the connection goes back to the pool.
	var mu sync.Mutex
	running := true
	stop := make(chan struct{})
	go func() {
		select {
		case <-qctx.Done():
			mu.Lock()
			if running {
				interrupt(handle)
			}
			mu.Unlock()
		case <-stop:
		}
	}()
	res, err := db.collect(qctx, conn, query)
	mu.Lock()
	running = false
	mu.Unlock()
	close(stop)

	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if qctx.Err() != nil {
			return nil, apperr.Errorf(apperr.EINVALID, "query exceeded the %s time limit", limitText(db.opt.Timeout))
		}
		return nil, err
	}
	res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

func limitText(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

func (db *DB) collect(ctx context.Context, conn *sql.Conn, query string) (*Result, error) {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, sqlError(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, sqlError(err)
	}
	res := &Result{Columns: make([]Column, len(cts)), Rows: [][]any{}, MaxRows: db.opt.MaxRows}
	// kinds[i] collects the kinds of the non-null values of column i.
	kinds := make([]uint8, len(cts))
	for i, ct := range cts {
		res.Columns[i] = Column{Name: ct.Name(), Type: affinityType(ct.DatabaseTypeName())}
	}
	size := 0
	for rows.Next() {
		if len(res.Rows) == db.opt.MaxRows {
			res.Truncated = true
			break
		}
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, sqlError(err)
		}
		for i, v := range vals {
			if iv, ok := v.(int64); ok && res.Columns[i].Type == "real" {
				// SQLite hands out whole REAL values of generated
				// columns (the *_usd amounts) as integers.
				v = float64(iv)
			}
			var k uint8
			var n int
			vals[i], k, n = jsonValue(v)
			kinds[i] |= k
			size += n + 1
		}
		size += 2
		if size > db.opt.MaxBytes {
			return nil, apperr.Errorf(apperr.EINVALID,
				"the result exceeds %d MiB after %d rows; select fewer or narrower columns, or fewer rows", db.opt.MaxBytes>>20, len(res.Rows))
		}
		res.Rows = append(res.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, sqlError(err)
	}
	if err := rows.Close(); err != nil {
		return nil, sqlError(err)
	}
	for i := range res.Columns {
		if res.Columns[i].Type == "" {
			res.Columns[i].Type = kindName(kinds[i])
		}
	}
	res.RowCount = len(res.Rows)
	return res, nil
}

// Value kinds, as bits, for deriving a column's type.
const (
	kindInt uint8 = 1 << iota
	kindReal
	kindText
	kindBlob
)

func kindName(k uint8) string {
	switch k {
	case 0:
		return "null"
	case kindInt:
		return "integer"
	case kindReal, kindInt | kindReal:
		return "real"
	case kindText:
		return "text"
	case kindBlob:
		return "blob"
	}
	return "any"
}

// jsonValue converts a scanned value to a JSON-ready one and returns its
// kind and approximate JSON size.
func jsonValue(v any) (any, uint8, int) {
	switch x := v.(type) {
	case nil:
		return nil, 0, 4
	case int64:
		return x, kindInt, 20
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			// JSON has no infinities; SQLite has no NaN (it stores NULL).
			return nil, kindReal, 4
		}
		return x, kindReal, 24
	case string:
		return x, kindText, jsonStringSize(x)
	case []byte:
		return x, kindBlob, (len(x)+2)/3*4 + 2
	case time.Time:
		// Only for columns declared DATE/DATETIME, which the gold tables
		// do not use.
		s := x.UTC().Format(time.RFC3339Nano)
		return s, kindText, len(s) + 2
	case bool:
		if x {
			return int64(1), kindInt, 1
		}
		return int64(0), kindInt, 1
	}
	s := fmt.Sprint(v)
	return s, kindText, len(s) + 2
}

func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20:
			n += 6
		case c == '"' || c == '\\':
			n += 2
		case c == '<' || c == '>' || c == '&':
			n += 6 // encoding/json escapes them as \u003c
		default:
			n++
		}
	}
	if !utf8.ValidString(s) {
		n += len(s) * 2 // invalid bytes become U+FFFD
	}
	return n
}

// sqlError turns a driver error into an EINVALID *apperr.Error when it is
// the query's fault, and wraps it as an internal error otherwise.
func sqlError(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("gold: query: %w", err)
	}
	msg := se.Error()
	// "SQL logic error: no such table: x (1)" -> "no such table: x"
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		msg = msg[:i]
	}
	if _, rest, ok := strings.Cut(msg, ": "); ok {
		msg = rest
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_ERROR, sqlite3.SQLITE_RANGE, sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_AUTH,
		sqlite3.SQLITE_CONSTRAINT:
		return apperr.Errorf(apperr.EINVALID, "SQL error: %s", msg)
	case sqlite3.SQLITE_TOOBIG:
		return apperr.Errorf(apperr.EINVALID, "SQL error: a string or blob exceeds the result size limit")
	case sqlite3.SQLITE_READONLY:
		return apperr.Errorf(apperr.EINVALID, "SQL error: the database is read-only: %s", msg)
	case sqlite3.SQLITE_INTERRUPT:
		return context.DeadlineExceeded // mapped by run to the time-limit message
	}
	return fmt.Errorf("gold: query: %w", err)
}

// sqliteHandle returns the sqlite3* of conn's driver connection, for
// sqlite3_interrupt. modernc.org/sqlite v1.60.1 keeps it in the unexported
// field db of its *conn; reflection reads it without unsafe. If a new driver
// version moves it, this fails (and so does OpenWith), rather than leaving
// queries without their time limit.
func sqliteHandle(conn *sql.Conn) (uintptr, error) {
	var h uintptr
	err := conn.Raw(func(dc any) error {
		v := reflect.ValueOf(dc)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return fmt.Errorf("driver connection %T is not a struct", dc)
		}
		f := v.FieldByName("db")
		if !f.IsValid() || f.Kind() != reflect.Uintptr {
			return fmt.Errorf("driver connection %T has no sqlite3 handle field", dc)
		}
		h = uintptr(f.Uint())
		if h == 0 {
			return fmt.Errorf("driver connection %T is closed", dc)
		}
		return nil
	})
	return h, err
}

// interrupt calls sqlite3_interrupt, which is safe from any goroutine. Like
// the driver, it uses a fresh TLS: the query's own is in use.
func interrupt(handle uintptr) {
	tls := libc.NewTLS()
	sqlite3.Xsqlite3_interrupt(tls, handle)
	tls.Close()
}
