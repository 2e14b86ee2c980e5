package gold_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots/gold"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		sql string
		ok  bool
	}{
		{"SELECT 1", true},
		{"  select\t1\r\n", true},
		{"SELECT 1;;;", true},
		{"SELECT 1; -- done", true},
		{"SELECT 1; /* done */", true},
		{"SELECT 1 /* ; SELECT 2 */", true},
		{"SELECT 1 -- ; SELECT 2", true},
		{"SELECT '--', '/*', \"x;\", `y;`, [z;]", true},
		{"SELECT 1 /", true}, // a trailing slash is an operator (SQLite reports the syntax error)
		{"SELECT 1 /*", true},
		{"WITH a AS (SELECT 1), b(x, y) AS (SELECT 1, 2) SELECT * FROM a, b", true},
		{"WITH a AS (SELECT (1)) SELECT (SELECT 2)", true},
		{"with recursive a(x) as (select 1 union all select x + 1 from a where x < 3) select * from a", true},
		{"SELECT * FROM pragma_table_info('cards')", true},
		{"SELECT * FROM PRAGMA_INDEX_LIST('sales')", true},
		{"SELECT 1; SELECT 2", false},
		{"SELECT 1 /**/; SELECT 2", false},
		{"SELECT 1 --\n; SELECT 2", false},
		{"SELECT 1 /* ; */ ; SELECT 2", false},
		{"SELECT 1 /* * / */ ; SELECT 2", false},
		{"SELECT ''';'; SELECT 2", false},
		{"SELECT \"\"\";\"; SELECT 2", false},
		{"SELECT [a;b]; SELECT 2", false},
		{"SELECT 1;\x00SELECT 2", false},
		{"SELECT 'abc", false},
		{"WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", false},
		{"WITH a AS (SELECT 1) , b AS (SELECT 2) UPDATE t SET x = 1", false},
		{"WITH a AS (SELECT 1) VALUES (1)", false},
		{"WITH", false},
		{"WITH a", false},
		{"WITH a AS", false},
		{"WITH a AS (", false},
		{"WITH a AS (SELECT 1)", false},
		{"WITH a AS (SELECT 1),", false},
		{"WITH a AS NOT (SELECT 1) SELECT 1", false},
		{"SELECT * FROM pragma_journal_mode", false},
		{"SELECT * FROM main.pragma_database_list", false},
		{"SELECT load_extension('x')", false},
		{"SELECT * FROM t WHERE x = @x", false},
		{"SELECT 1 #x", false},
		{"pragma table_info('sales')", false},
		{"", false},
		{";", false},
		{"-- only a comment", false},
	} {
		err := gold.Check(tc.sql)
		if got := err == nil; got != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.sql, err, tc.ok)
		}
		if err != nil && apperr.ErrorCode(err) != apperr.EINVALID {
			t.Errorf("Check(%q): code %s, want EINVALID", tc.sql, apperr.ErrorCode(err))
		}
	}
}

// sqliteStatements asks SQLite itself whether sql holds more than one
// statement: it prepares the first statement (on the read-only test
// database), then the rest of the text. It reports known=false when SQLite
// cannot prepare the first statement (a syntax error, say), and otherwise
// whether anything but whitespace, comments and semicolons followed it.
type sqliteStatements struct {
	mu  sync.Mutex
	tls *libc.TLS
	db  uintptr
}

func newSQLiteStatements(tb testing.TB, path string) *sqliteStatements {
	tb.Helper()
	s := &sqliteStatements{tls: libc.NewTLS()}
	name, err := libc.CString(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer libc.Xfree(s.tls, name)
	pp := s.tls.Alloc(8)
	defer s.tls.Free(8)
	if rc := sqlite3.Xsqlite3_open_v2(s.tls, name, pp, sqlite3.SQLITE_OPEN_READONLY, 0); rc != sqlite3.SQLITE_OK {
		tb.Fatalf("sqlite3_open_v2: %d", rc)
	}
	s.db = peek(pp)
	tb.Cleanup(func() {
		sqlite3.Xsqlite3_close_v2(s.tls, s.db)
		s.tls.Close()
	})
	return s
}

func (s *sqliteStatements) more(sql string) (more, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := libc.CString(sql)
	if err != nil {
		return false, false
	}
	defer libc.Xfree(s.tls, z)
	pStmt := s.tls.Alloc(8)
	pTail := s.tls.Alloc(8)
	defer s.tls.Free(8)
	defer s.tls.Free(8)
	prepare := func(at uintptr) (stmt, tail uintptr, ok bool) {
		rc := sqlite3.Xsqlite3_prepare_v2(s.tls, s.db, at, -1, pStmt, pTail)
		stmt, tail = peek(pStmt), peek(pTail)
		if stmt != 0 {
			sqlite3.Xsqlite3_finalize(s.tls, stmt)
		}
		return stmt, tail, rc == sqlite3.SQLITE_OK
	}
	stmt, tail, ok := prepare(z)
	if !ok || stmt == 0 {
		return false, false
	}
	// z holds a copy of sql: the tail's offset in z is its offset in sql.
	for tail > z && tail < z+uintptr(len(sql)) {
		stmt, next, ok := prepare(tail)
		if !ok || stmt != 0 {
			return true, true // a second statement, valid or not
		}
		if next == tail {
			break
		}
		tail = next
	}
	return false, true
}

// peek reads a pointer that SQLite wrote into C memory (the libc allocator's,
// outside the Go heap).
func peek(p uintptr) uintptr { return *(*uintptr)(unsafe.Add(nil, p)) }

// guardSeeds are the seed corpus of FuzzGuard: they also run as a plain
// test.
var guardSeeds = []string{
	"SELECT 1",
	"select count(*), sum(price_cents) from sales where card_id = 'en:base1-4';",
	"SELECT ';' FROM cards -- ;\n",
	"SELECT 1; SELECT 2",
	"SELECT 1 /* ; */; DELETE FROM sales",
	"WITH x AS (SELECT 1) DELETE FROM sales",
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c",
	"with \"a;b\"(x) as materialized (select 'it''s') select [a;b].x from \"a;b\"",
	"SELECT load_extension('x')",
	"SELECT * FROM pragma_table_info('sales')",
	"PRAGMA query_only=0",
	"ATTACH ':memory:' AS x",
	"SELECT x'00', 1e5, .5, $a(;), ?1",
	"SELECT 1 /",
	"SELECT 1 /*",
	"SELECT 1 --",
	"SELECT \"unterminated",
	"SELECT [a",
	"SELECT `a``b`;",
	"\x00",
	"SELECT 1\v",
	"SELECT 'é'; SELECT '\xff'",
	"(SELECT 1)",
}

func FuzzGuard(f *testing.F) {
	for _, s := range guardSeeds {
		f.Add(s)
	}
	oracle := newSQLiteStatements(f, MustWrite(f))
	f.Fuzz(func(t *testing.T, sql string) {
		err := gold.Check(sql)
		if err != nil {
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.EINVALID || e.Message == "" {
				t.Fatalf("Check(%q) = %v (%T), want an EINVALID *apperr.Error", sql, err, err)
			}
			return
		}
		// Accepted: one SELECT or WITH statement.
		if len(sql) > gold.MaxSQLBytes {
			t.Fatalf("Check accepted %d bytes", len(sql))
		}
		if more, known := oracle.more(sql); known && more {
			t.Fatalf("Check(%q) accepted text in which SQLite finds a second statement", sql)
		}
		// Whatever the text ends in (a comment, an operator), a further
		// statement after it must be refused.
		if err := gold.Check(sql + " */\n;DELETE FROM sales"); err == nil {
			t.Fatalf("Check accepted %q followed by a DELETE", sql)
		}
		if strings.ContainsRune(sql, 0) {
			t.Fatalf("Check accepted a NUL byte in %q", sql)
		}
	})
}

// TestSQLiteStatements checks the oracle of FuzzGuard against known texts.
func TestSQLiteStatements(t *testing.T) {
	oracle := newSQLiteStatements(t, MustWrite(t))
	for _, tc := range []struct {
		sql         string
		more, known bool
	}{
		{"SELECT 1", false, true},
		{"SELECT 1;", false, true},
		{"SELECT 1; ; -- x\n /* y */", false, true},
		{"SELECT 1; SELECT 2", true, true},
		{"SELECT 1; nonsense", true, true},
		{"SELECT ';'; SELECT 2", true, true},
		{"SELECT count(*) FROM sales; DELETE FROM sales", true, true},
		{"SELEC 1", false, false},
	} {
		more, known := oracle.more(tc.sql)
		if more != tc.more || known != tc.known {
			t.Errorf("more(%q) = %v, %v, want %v, %v", tc.sql, more, known, tc.more, tc.known)
		}
	}
}
