package gold

import (
	"strings"

	"github.com/cardedge/cardedge/apperr"
)

// MaxSQLBytes is the default cap on the length of the SQL text.
const MaxSQLBytes = 16 << 10

// deniedFunctions are names refused anywhere in a query, quoted or not, as a
// function, table or column: they load code, touch files or raw pages, or
// take pointers. The connection refuses most of them on its own as well
// (extension loading is off, the file is read-only); the guard says so
// clearly and before any of them reaches SQLite.
var deniedFunctions = map[string]bool{
	"load_extension": true,
	"fts3_tokenizer": true,
	"readfile":       true,
	"writefile":      true,
	"edit":           true,
	"fsdir":          true,
	"sqlite_dbpage":  true,
	"sqlite_dbdata":  true,
	"sqlite_dbptr":   true,
}

// deniedTables are the entries of deniedFunctions that are table-valued
// functions or virtual tables, reachable through a 'string' table name.
var deniedTables = map[string]bool{
	"fsdir":         true,
	"sqlite_dbpage": true,
	"sqlite_dbdata": true,
	"sqlite_dbptr":  true,
}

const allowedPragmaList = "pragma_table_info, pragma_table_xinfo, pragma_table_list, pragma_index_list, pragma_index_info, pragma_index_xinfo, pragma_foreign_key_list"

// allowedPragmaFunctions are the table-valued pragma functions a query may
// use: read-only schema introspection. Every other pragma_* name is refused
// (pragma_database_list, for one, would reveal server paths).
var allowedPragmaFunctions = map[string]bool{
	"pragma_table_info":       true,
	"pragma_table_xinfo":      true,
	"pragma_table_list":       true,
	"pragma_index_list":       true,
	"pragma_index_info":       true,
	"pragma_index_xinfo":      true,
	"pragma_foreign_key_list": true,
}

// statementVerbs are the first keywords of SQLite statements other than
// SELECT and WITH, for a precise refusal message.
var statementVerbs = map[string]bool{
	"insert": true, "update": true, "delete": true, "replace": true, "upsert": true,
	"create": true, "drop": true, "alter": true, "attach": true, "detach": true,
	"pragma": true, "vacuum": true, "reindex": true, "analyze": true, "begin": true,
	"commit": true, "end": true, "rollback": true, "savepoint": true, "release": true,
	"explain": true, "values": true,
}

// Check reports whether sql is a query the SQL endpoint runs: the guard of
// DB.Query, exported so that callers can refuse early. It returns nil or an
// EINVALID *apperr.Error saying what is wrong. The rules:
//
//   - at most MaxSQLBytes bytes of text, no NUL byte, no control characters
//     other than tab, newline, carriage return and form feed;
//   - exactly one statement: statements are split the way SQLite's tokenizer
//     splits them (a ';' inside a string, a quoted identifier or a comment
//     does not count); trailing semicolons, whitespace and comments are fine;
//   - the statement is a SELECT, or WITH [RECURSIVE] ... followed by SELECT
//     (WITH ... INSERT/UPDATE/DELETE is refused); every other statement,
//     PRAGMA, ATTACH and EXPLAIN included, is refused;
//   - no bound parameters (?, :name, @name, $name): the endpoint binds none;
//   - none of deniedFunctions (load_extension, ...) and no pragma_* table
//     function other than the schema-introspection ones in
//     allowedPragmaFunctions.
//
// Check never panics, for any input (FuzzGuard).
func Check(sql string) error {
	if len(sql) > MaxSQLBytes {
		return invalidf("the SQL text is %d bytes; at most %d bytes (16 KiB) are allowed", len(sql), MaxSQLBytes)
	}
	// SQLite reads the text as a C string and stops at a NUL: refuse it
	// anywhere, strings and comments included, so that the guard and SQLite
	// never read different texts.
	if i := strings.IndexByte(sql, 0); i >= 0 {
		return invalidf("the SQL text contains a NUL byte (at byte %d)", i)
	}
	toks, err := lex(sql)
	if err != nil {
		return err
	}
	// Split into statements at ';'.
	var stmts [][]token
	start := 0
	for i, t := range toks {
		if t.kind == tokSemi {
			if i > start {
				stmts = append(stmts, toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		stmts = append(stmts, toks[start:])
	}
	switch len(stmts) {
	case 0:
		return invalidf("the SQL text holds no statement")
	case 1:
	default:
		return invalidf("only one statement is allowed; found %d (statements are separated by ';')", len(stmts))
	}
	st := stmts[0]
	for _, t := range st {
		switch t.kind {
		case tokParam:
			return invalidf("bound parameters such as %q are not supported; write the values into the query", t.text)
		case tokIdent, tokQuotedIdent, tokString:
			name := asciiLower(t.value)
			// SQLite also takes a 'string' as a table name (FROM 'x'), never
			// as a function name: strings are checked against the table-like
			// names only, so that data such as 'edit' stays searchable.
			if deniedFunctions[name] && (t.kind != tokString || deniedTables[name]) {
				return invalidf("%s is not allowed", name)
			}
			if strings.HasPrefix(name, "pragma_") && !allowedPragmaFunctions[name] {
				return invalidf("%s is not allowed; the only pragma functions allowed are the schema ones: %s", name, allowedPragmaList)
			}
		}
	}
	return checkVerb(st)
}

// checkVerb checks that the statement is SELECT or WITH ... SELECT.
func checkVerb(st []token) error {
	first := st[0]
	verb := ""
	if first.kind == tokIdent {
		verb = asciiLower(first.text)
	}
	switch verb {
	case "select":
		return nil
	case "with":
		main, ok := skipWith(st)
		if !ok {
			return invalidf("malformed WITH clause: expected WITH [RECURSIVE] name [(columns)] AS [[NOT] MATERIALIZED] (select) [, ...] SELECT ...")
		}
		if main.kind == tokIdent && asciiLower(main.text) == "select" {
			return nil
		}
		if main.kind == tokIdent && statementVerbs[asciiLower(main.text)] {
			return invalidf("only SELECT statements are allowed; this WITH clause is followed by %s", strings.ToUpper(main.text))
		}
		return invalidf("only SELECT statements are allowed; a WITH clause must be followed by SELECT")
	}
	if statementVerbs[verb] {
		return invalidf("only SELECT statements are allowed (read-only SQL); %s is refused", strings.ToUpper(verb))
	}
	return invalidf("only SELECT statements are allowed (read-only SQL); the query must start with SELECT or WITH")
}

// skipWith walks the common table expressions of a WITH statement and returns
// the token after them: the main statement's verb.
//
//	WITH [RECURSIVE] name [(col, ...)] AS [NOT] [MATERIALIZED] ( ... ) [, ...]
func skipWith(st []token) (token, bool) {
	i := 1
	if i < len(st) && st[i].kind == tokIdent && asciiLower(st[i].text) == "recursive" {
		i++
	}
	for {
		// name
		if i >= len(st) || (st[i].kind != tokIdent && st[i].kind != tokQuotedIdent && st[i].kind != tokString) {
			return token{}, false
		}
		i++
		// optional column list
		if i < len(st) && st[i].kind == tokLParen {
			j, ok := skipParens(st, i)
			if !ok {
				return token{}, false
			}
			i = j
		}
		if i >= len(st) || st[i].kind != tokIdent || asciiLower(st[i].text) != "as" {
			return token{}, false
		}
		i++
		if i < len(st) && st[i].kind == tokIdent && asciiLower(st[i].text) == "not" {
			i++
			if i >= len(st) || st[i].kind != tokIdent || asciiLower(st[i].text) != "materialized" {
				return token{}, false
			}
			i++
		} else if i < len(st) && st[i].kind == tokIdent && asciiLower(st[i].text) == "materialized" {
			i++
		}
		if i >= len(st) || st[i].kind != tokLParen {
			return token{}, false
		}
		j, ok := skipParens(st, i)
		if !ok {
			return token{}, false
		}
		i = j
		if i < len(st) && st[i].kind == tokComma {
			i++
			continue
		}
		if i >= len(st) {
			return token{}, false
		}
		return st[i], true
	}
}

// skipParens returns the index after the ')' that closes the '(' at st[i].
func skipParens(st []token, i int) (int, bool) {
	depth := 0
	for ; i < len(st); i++ {
		switch st[i].kind {
		case tokLParen:
			depth++
		case tokRParen:
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

func invalidf(format string, args ...any) error {
	return apperr.Errorf(apperr.EINVALID, format, args...)
}

type tokKind uint8

const (
	tokIdent       tokKind = iota // bare identifier or keyword
	tokQuotedIdent                // "x", `x`, [x]
	tokString                     // 'x' (and the quote part of x'..' blobs)
	tokNumber
	tokParam // ?, ?N, :x, @x, $x, #x
	tokSemi
	tokLParen
	tokRParen
	tokComma
	tokOther // operators and punctuation
)

type token struct {
	kind  tokKind
	text  string // as written
	value string // identifiers: the name with quotes removed and doubled quotes undone
}

// lex splits sql into tokens the way SQLite's tokenizer (tokenize.c) does,
// dropping whitespace and comments. It refuses what SQLite would refuse or
// read differently from us: unterminated strings and quoted identifiers,
// NUL bytes and control characters.
func lex(sql string) ([]token, error) {
	var toks []token
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == 0:
			return nil, invalidf("the SQL text contains a NUL byte")
		case c < 0x20 || c == 0x7f:
			return nil, invalidf("the SQL text contains the control character %#02x", c)
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j + 1
			}
		case c == '/' && i+2 < len(sql) && sql[i+1] == '*':
			// As in SQLite, "/*" at the very end is a slash and a star, and
			// an unterminated comment runs to the end of the text.
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				i = len(sql)
			} else {
				i += 2 + j + 2
			}
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j, ok := quotedEnd(sql, i, closer)
			if !ok {
				what := "string"
				if c != '\'' {
					what = "quoted identifier"
				}
				return nil, invalidf("unterminated %s starting at byte %d", what, i)
			}
			t := token{kind: tokQuotedIdent, text: sql[i:j]}
			if c == '\'' {
				t.kind = tokString
			}
			t.value = unquote(t.text, closer)
			toks = append(toks, t)
			i = j
		case c == ';':
			toks = append(toks, token{kind: tokSemi, text: ";"})
			i++
		case c == '(':
			toks = append(toks, token{kind: tokLParen, text: "("})
			i++
		case c == ')':
			toks = append(toks, token{kind: tokRParen, text: ")"})
			i++
		case c == ',':
			toks = append(toks, token{kind: tokComma, text: ","})
			i++
		case c == '?' || c == ':' || c == '@' || c == '$' || c == '#':
			j := i + 1
			for j < len(sql) && idChar(sql[j]) {
				j++
			}
			toks = append(toks, token{kind: tokParam, text: sql[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			// Numbers, including 1e5, 0x1F, 1_000 and 1.5; SQLite rejects a
			// number run into an identifier, so swallowing id chars is safe.
			j := i + 1
			for j < len(sql) && (idChar(sql[j]) || sql[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tokNumber, text: sql[i:j]})
			i = j
		case idStart(c):
			j := i + 1
			for j < len(sql) && idChar(sql[j]) {
				j++
			}
			toks = append(toks, token{kind: tokIdent, text: sql[i:j], value: sql[i:j]})
			i = j
		default:
			toks = append(toks, token{kind: tokOther, text: sql[i : i+1]})
			i++
		}
	}
	return toks, nil
}

// quotedEnd returns the index just past the quoted token opening at sql[i]
// and closed by closer. A doubled closer escapes itself, except in [...].
func quotedEnd(sql string, i int, closer byte) (int, bool) {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] != closer {
			continue
		}
		if closer != ']' && j+1 < len(sql) && sql[j+1] == closer {
			j++
			continue
		}
		return j + 1, true
	}
	return 0, false
}

func unquote(text string, closer byte) string {
	inner := text[1 : len(text)-1]
	if closer == ']' {
		return inner
	}
	q := string([]byte{closer})
	return strings.ReplaceAll(inner, q+q, q)
}

// idStart and idChar follow SQLite: letters, '_', and every byte >= 0x80
// start an identifier; digits and '$' may follow.
func idStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func idChar(c byte) bool { return idStart(c) || c >= '0' && c <= '9' || c == '$' }

// asciiLower lowercases ASCII letters only, as SQLite compares names.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
