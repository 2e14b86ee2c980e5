package docs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's root, seen from this package's directory.
const root = ".."

// TestLinks: every link of README.md and docs/*.md resolves (see doc.go).
func TestLinks(t *testing.T) {
	files := MustPages(t, root)
	for _, err := range checkLinks(root, files) {
		t.Error(err)
	}
}

// TestREADME_Short: the README is a door, not the manual (issue 29).
func TestREADME_Short(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, limit := strings.Count(string(b), "\n"), 200; got > limit {
		t.Errorf("README.md has %d lines, more than %d: move the detail into a page of docs/", got, limit)
	}
}

// TestPages_Listed: every page of docs/ is reachable from README.md's "where
// to read on" and from the index, docs/README.md.
func TestPages_Listed(t *testing.T) {
	pages := MustPages(t, root)
	for _, index := range []string{"README.md", "docs/README.md"} {
		p := mustParse(t, index)
		linked := map[string]bool{}
		for _, l := range p.links {
			target, _, _ := strings.Cut(l.dest, "#")
			linked[path.Clean(path.Join(path.Dir(index), target))] = true
		}
		for _, page := range pages {
			if page != index && strings.HasPrefix(page, "docs/") && !linked[page] {
				t.Errorf("%s does not link to %s", index, page)
			}
		}
	}
}

// TestPages_Open: each page of docs/ opens with its title and then a
// paragraph, the one or two sentences on what a reader comes there for.
func TestPages_Open(t *testing.T) {
	for _, page := range MustPages(t, root) {
		if !strings.HasPrefix(page, "docs/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || lines[1] != "" || !isParagraphLine(lines[2]) {
			t.Errorf("%s: want a title (# ...), a blank line and a paragraph on what a reader comes here for", page)
		}
	}
}

func isParagraphLine(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, p := range []string{"#", "|", "```", "~~~", "- ", "* ", "+ ", ">", "<"} {
		if strings.HasPrefix(s, p) {
			return false
		}
	}
	return true
}

// TestSlugs: heading text to its anchor, as GitHub makes it.
func TestSlugs(t *testing.T) {
	for _, tc := range []struct {
		headings []string
		want     []string
	}{
		{[]string{"Quick start"}, []string{"quick-start"}},
		{[]string{"Guarded SQL (internal): `POST /api/v3/sql`"}, []string{"guarded-sql-internal-post-apiv3sql"}},
		{[]string{"Current prices: `GET /prices` and `POST /prices` (`prices.v1`)"}, []string{"current-prices-get-prices-and-post-prices-pricesv1"}},
		{[]string{"A fleet: snapshots from S3, state in Redis"}, []string{"a-fleet-snapshots-from-s3-state-in-redis"}},
		{[]string{"The code's layout"}, []string{"the-codes-layout"}},
		{[]string{"Search with [the syntax](search-syntax.md) **now**"}, []string{"search-with-the-syntax-now"}},
		{[]string{"snake_case and a - dash"}, []string{"snake_case-and-a---dash"}},
		{[]string{"Prix: carte Pokémon ★ δ"}, []string{"prix-carte-pokémon--δ"}},
		{[]string{"Tests", "Figures", "Tests", "Tests", "Tests-1"}, []string{"tests", "figures", "tests-1", "tests-2", "tests-1-1"}},
	} {
		s := newSlugger()
		var got []string
		for _, h := range tc.headings {
			got = append(got, s.slug(h))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("slugs of %q = %q, want %q", tc.headings, got, tc.want)
		}
	}
}

// TestParse: what counts as a link and a heading, and what does not.
func TestParse(t *testing.T) {
	const text = "# Title\n" +
		"\n" +
		"A [link](a.md) and ![an image](img/x.png \"title\") and [ref][r] and [coll][].\n" +
		"`[not](a-link)` nor ``x [no](no) x`` nor this: `multi\n" +
		"line [no](no)` span. <https://example.com/x> and https://example.org/y.\n" +
		"[in parens](dir/(x).md) [angle](<a b.md>)\n" +
		"\n" +
		"```sh\n" +
		"# not a heading [no](no)\n" +
		"```\n" +
		"\n" +
		"Setext\n" +
		"------\n" +
		"\n" +
		"## Title\n" +
		"<a id=\"here\"></a>\n" +
		"\n" +
		"[r]: refs.md#x\n" +
		"[coll]: https://example.net\n"
	p := parsePage("docs/x.md", text)
	var got []string
	for _, l := range p.links {
		got = append(got, fmt.Sprintf("%d %s", l.line, l.dest))
	}
	want := []string{"3 a.md", "3 img/x.png", "3 refs.md#x", "3 https://example.net", "5 https://example.com/x", "5 https://example.org/y", "6 dir/(x).md", "6 a b.md"}
	if !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
	var anchors []string
	for a := range p.anchors {
		anchors = append(anchors, a)
	}
	slices.Sort(anchors)
	if want := []string{"here", "setext", "title", "title-1"}; !slices.Equal(anchors, want) {
		t.Errorf("anchors = %q, want %q", anchors, want)
	}
}

// TestCheck_Broken: the checker reports each kind of broken link, naming the
// file, the line and what is wrong, and accepts the good ones.
func TestCheck_Broken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("code/main.go", "package main\n")
	write("docs/b.md", "# B\n\n## Same\n\n## Same\n")
	write("docs/a.md", "# A\n\nok: [b](b.md) [b](b.md#same-1) [top](#a) [dir](../code) [file](../code/main.go#L1-L2)\n"+
		"[root](/code/main.go) [web](https://example.com/a?b=c#d) <http://127.0.0.1:8080/x> [mail](mailto:a@example.com)\n")
	for _, tc := range []struct {
		link, want string
	}{
		{"[x](missing.md)", "docs/c.md:5: link \"missing.md\": docs/missing.md does not exist"},
		{"[x](b.md#nope)", "docs/c.md:5: link \"b.md#nope\": no heading or anchor \"nope\" in docs/b.md"},
		{"[x](b.md#same-2)", "no heading or anchor \"same-2\" in docs/b.md"},
		{"[x](#Same)", "no heading or anchor \"Same\" in docs/c.md"},
		{"[x](../code/main.go#main)", "#main: a fragment in a file that is not Markdown must be a line (#L10, #L10-L20)"},
		{"[x](../../outside.md)", "leaves the repository"},
		{"[x]()", "empty link"},
		{"[x](https://)", "not a well-formed http(s) URL: no host"},
		{"[x](http://host:port/)", "not a well-formed http(s) URL"},
		{"[x](ftp://example.com/f)", "scheme \"ftp\" is not http, https or mailto"},
		{"[x][nodef]", "docs/c.md:5: reference [nodef] has no definition"},
		{"see http://a b", ""}, // a bare URL ends at the space: well-formed
	} {
		write("docs/c.md", "# C\n\nline three\n\n"+tc.link+"\n")
		errs := checkLinks(dir, []string{"docs/a.md", "docs/b.md", "docs/c.md"})
		var msgs []string
		for _, err := range errs {
			msgs = append(msgs, err.Error())
		}
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: errors %q, want none", tc.link, msgs)
		case tc.want != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tc.want)):
			t.Errorf("%s: errors %q, want one containing %q", tc.link, msgs, tc.want)
		}
	}
}

// MustPages returns README.md and every Markdown file under docs/, relative
// to root with slashes.
func MustPages(tb testing.TB, root string) []string {
	tb.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func mustParse(tb testing.TB, file string) page {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		tb.Fatal(err)
	}
	return parsePage(file, string(b))
}

// checkLinks checks every link of files (relative to root, with slashes) and
// returns an error per broken link, "file:line: link "dest": why".
func checkLinks(root string, files []string) []error {
	pages := map[string]page{} // by path: the Markdown files read so far
	read := func(file string) (page, error) {
		if p, ok := pages[file]; ok {
			return p, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			return page{}, err
		}
		p := parsePage(file, string(b))
		pages[file] = p
		return p, nil
	}
	var errs []error
	for _, file := range files {
		p, err := read(file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range p.links {
			if err := checkLink(root, p, l.dest, read); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: link %q: %w", file, l.line, l.dest, err))
			}
		}
		for _, ref := range p.undefined {
			errs = append(errs, fmt.Errorf("%s:%d: reference [%s] has no definition", file, ref.line, ref.dest))
		}
	}
	return errs
}

var (
	schemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	lineFragRE = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`)
)

// checkLink checks one destination of page p.
func checkLink(root string, p page, dest string, read func(string) (page, error)) error {
	if dest == "" {
		return errors.New("empty link")
	}
	if schemeRE.MatchString(dest) {
		return checkExternal(dest)
	}
	target, frag, _ := strings.Cut(dest, "#")
	target, _, _ = strings.Cut(target, "?")
	if target == "" { // #fragment: this page
		if !p.anchors[frag] {
			return fmt.Errorf("no heading or anchor %q in %s", frag, p.path)
		}
		return nil
	}
	unescaped, err := url.PathUnescape(target)
	if err != nil {
		return err
	}
	var rel string
	if strings.HasPrefix(unescaped, "/") {
		rel = path.Clean(strings.TrimLeft(unescaped, "/"))
	} else {
		rel = path.Join(path.Dir(p.path), unescaped)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return errors.New("leaves the repository")
	}
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("%s does not exist", rel)
	}
	switch {
	case frag == "":
		return nil
	case info.IsDir():
		return fmt.Errorf("#%s: a fragment in a link to a directory", frag)
	case strings.HasSuffix(rel, ".md"):
		tp, err := read(rel)
		if err != nil {
			return err
		}
		if !tp.anchors[frag] {
			return fmt.Errorf("no heading or anchor %q in %s", frag, rel)
		}
		return nil
	case lineFragRE.MatchString(frag):
		return nil
	}
	return fmt.Errorf("#%s: a fragment in a file that is not Markdown must be a line (#L10, #L10-L20)", frag)
}

// checkExternal checks the form of a link with a scheme (no network).
func checkExternal(dest string) error {
	u, err := url.Parse(dest)
	if err != nil {
		return fmt.Errorf("not a well-formed http(s) URL: %w", err)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" || u.Hostname() == "" {
			return errors.New("not a well-formed http(s) URL: no host")
		}
		return nil
	case "mailto":
		if u.Opaque == "" || !strings.Contains(u.Opaque, "@") {
			return errors.New("mailto: without an address")
		}
		return nil
	}
	return fmt.Errorf("scheme %q is not http, https or mailto", u.Scheme)
}

// page is one Markdown file as the checker reads it.
type page struct {
	path      string          // relative to the repository's root, with slashes
	links     []link          // every link destination, in order
	anchors   map[string]bool // the fragments its headings and <a id> make
	undefined []link          // reference links whose label has no definition
}

type link struct {
	line int    // 1-based
	dest string // as written (for undefined: the label)
}

var (
	fenceRE   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	atxRE     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRE  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	defRE     = regexp.MustCompile(`(?m)^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>]*>|\S+)`)
	refRE     = regexp.MustCompile(`\[([^\]]+)\]\[([^\]]*)\]`)
	autoRE    = regexp.MustCompile(`<((?:https?|mailto):[^>\s]*)>`)
	bareRE    = regexp.MustCompile(`https?://[^\s<>"'\x60\])]+`)
	htmlIDRE  = regexp.MustCompile(`<a\s[^>]*(?:id|name)\s*=\s*"([^"]+)"`)
	trailRE   = regexp.MustCompile(`[.,:;!?]+$`)
	htmlTagRE = regexp.MustCompile(`<[^>]*>`)
)

// parsePage reads text: its links outside code, its headings' anchors.
func parsePage(file, text string) page {
	p := page{path: file, anchors: map[string]bool{}}
	lines := strings.Split(text, "\n")
	// Blank out fenced code blocks (keeping the line count), collect headings.
	slugs := newSlugger()
	var fence string
	for i, line := range lines {
		if fence != "" {
			if m := fenceRE.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line[strings.Index(line, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			fence = m[1]
			lines[i] = ""
			continue
		}
		if m := atxRE.FindStringSubmatch(line); m != nil {
			p.anchors[slugs.slug(m[2])] = true
			continue
		}
		if setextRE.MatchString(line) && i > 0 && isSetextText(lines[i-1]) {
			p.anchors[slugs.slug(strings.TrimSpace(lines[i-1]))] = true
		}
	}
	masked := maskCode(strings.Join(lines, "\n"))
	lineOf := func(off int) int { return strings.Count(masked[:off], "\n") + 1 }
	for _, m := range htmlIDRE.FindAllStringSubmatch(masked, -1) {
		p.anchors[m[1]] = true
	}
	// Reference definitions first: their lines are not text.
	defs := map[string]string{}
	for _, m := range defRE.FindAllStringSubmatchIndex(masked, -1) {
		label := normLabel(masked[m[2]:m[3]])
		if _, ok := defs[label]; !ok {
			defs[label] = strings.Trim(masked[m[4]:m[5]], "<>")
		}
	}
	masked = defRE.ReplaceAllStringFunc(masked, func(s string) string { return strings.Repeat(" ", len(s)) })
	type found struct {
		off  int
		dest string
	}
	var all []found
	for i := 0; ; {
		j := strings.Index(masked[i:], "](")
		if j < 0 {
			break
		}
		start := i + j + 2
		if dest, n := parseDest(masked[start:]); n > 0 {
			all = append(all, found{start, dest})
			i = start + n
		} else {
			i = start
		}
	}
	for _, m := range refRE.FindAllStringSubmatchIndex(masked, -1) {
		label := masked[m[4]:m[5]]
		if label == "" {
			label = masked[m[2]:m[3]]
		}
		if dest, ok := defs[normLabel(label)]; ok {
			all = append(all, found{m[0], dest})
		} else {
			p.undefined = append(p.undefined, link{lineOf(m[0]), label})
		}
	}
	for _, m := range autoRE.FindAllStringSubmatchIndex(masked, -1) {
		all = append(all, found{m[2], masked[m[2]:m[3]]})
	}
	for _, m := range bareRE.FindAllStringIndex(masked, -1) {
		if m[0] > 0 && (masked[m[0]-1] == '(' && m[0] > 1 && masked[m[0]-2] == ']' || masked[m[0]-1] == '<') {
			continue // the destination of an inline link or an autolink
		}
		all = append(all, found{m[0], trailRE.ReplaceAllString(masked[m[0]:m[1]], "")})
	}
	slices.SortStableFunc(all, func(a, b found) int { return a.off - b.off })
	for _, f := range all {
		p.links = append(p.links, link{lineOf(f.off), f.dest})
	}
	return p
}

// isSetextText reports whether line can be the text of a setext heading.
func isSetextText(line string) bool {
	s := strings.TrimSpace(line)
	return s != "" && !strings.ContainsAny(s[:1], "#|>-*+<") && !atxRE.MatchString(line) && !(s[0] >= '0' && s[0] <= '9' && strings.Contains(s, ". "))
}

// parseDest reads an inline link's destination at the start of s (after
// "]("): <...> or up to whitespace or the ) that closes it. It returns the
// destination and how many bytes it read, 0 when s holds none.
func parseDest(s string) (string, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '<' {
		end := strings.IndexAny(s[i:], ">\n")
		if end < 0 || s[i+end] != '>' {
			return "", 0
		}
		return s[i+1 : i+end], i + end + 1
	}
	depth, start := 0, i
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
		case c == '(':
			depth++
		case c == ')' && depth == 0:
			return s[start:i], i + 1
		case c == ')':
			depth--
		case c == ' ' || c == '\t' || c == '\n':
			// A title follows, or the text was no link.
			if rest := strings.TrimLeft(s[i:], " \t\n"); rest != "" && strings.ContainsRune("\"'()", rune(rest[0])) {
				return s[start:i], i + 1
			}
			return "", 0
		}
	}
	return "", 0
}

// maskCode replaces the content of code spans with spaces (keeping newlines,
// so that offsets keep their lines): text in code is not a link.
func maskCode(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		run := strings.Repeat("`", n)
		// The closing run: the same length, not inside a longer run, and
		// not across a blank line (the end of a paragraph).
		end := -1
		for j := i + n; j < len(b); {
			k := strings.Index(string(b[j:]), run)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(b) && b[k+m] == '`' {
				m++
			}
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 || strings.Contains(string(b[i:end]), "\n\n") {
			i += n
			continue
		}
		for j := i; j < end+n; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

func normLabel(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// slugger makes GitHub's heading anchors for one page, as github-slugger
// does: the slug of the heading's text as rendered (lower case; letters,
// digits, - and _ kept; spaces become -), and for a slug already taken the
// first of base-1, base-2, ... that is not.
type slugger map[string]int // slug -> how many times its base was taken again

func newSlugger() slugger { return slugger{} }

var (
	inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emphasisRE   = regexp.MustCompile(`\*+|~~`)
)

func (s slugger) slug(heading string) string {
	text := inlineLinkRE.ReplaceAllString(heading, "$1")
	text = strings.ReplaceAll(text, "`", "")
	text = htmlTagRE.ReplaceAllString(text, "")
	text = emphasisRE.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	base := b.String()
	slug := base
	for {
		if _, taken := s[slug]; !taken {
			break
		}
		s[base]++
		slug = fmt.Sprintf("%s-%d", base, s[base])
	}
	s[slug] = 0
	return slug
}
