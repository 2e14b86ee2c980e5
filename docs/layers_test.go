package docs_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The layout's rules (docs/README.md "The code's layout"), checked on the
// module's packages as `go list` sees them (non-test imports):
//
//   - only the front door knows fasthttp: no package outside edge/ and cmd/
//     depends on it, even indirectly (but the load generator, bench/load,
//     a fasthttp client);
//   - nothing but the commands imports the front door: no package outside
//     edge/ and cmd/ imports a package of edge/;
//   - imports point down: between the top-level folders, the only arrows
//     that point back up are the two of snapshots/snapshotstest, the test
//     helper that builds a real snapshot with the builder and its index;
//   - each doc.go names what its package imports: every package of the
//     module a package imports is named in its doc.go.

// modulePath is the module's import path.
const modulePath = "github.com/cardedge/cardedge"

// pkg is what `go list -json` says of a package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// mustList lists the module's packages (generated clients aside).
func mustList(tb testing.TB) []pkg {
	tb.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			tb.Fatal(err)
		}
		if rel(p.ImportPath) == "clients" || strings.HasPrefix(rel(p.ImportPath), "clients/") {
			continue
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rel is an import path of the module relative to it ("" for others).
func rel(path string) string {
	if path == modulePath {
		return "."
	}
	r, ok := strings.CutPrefix(path, modulePath+"/")
	if !ok {
		return ""
	}
	return r
}

// top is the top-level folder of a module-relative path.
func top(r string) string {
	t, _, _ := strings.Cut(r, "/")
	return t
}

// frontDoor reports whether r may know fasthttp and the edge: the edge
// itself and the commands that compose it.
func frontDoor(r string) bool { return top(r) == "edge" || top(r) == "cmd" }

func TestLayers_FasthttpOnlyInEdge(t *testing.T) {
	for _, p := range mustList(t) {
		r := rel(p.ImportPath)
		if frontDoor(r) || top(r) == "bench" { // bench/load is a fasthttp client: the load generator
			continue
		}
		for _, d := range p.Deps {
			if strings.HasPrefix(d, "github.com/valyala/fasthttp") {
				t.Errorf("%s depends on %s: only edge/ (and the commands) may know fasthttp", r, d)
				break
			}
		}
	}
}

func TestLayers_NothingImportsEdge(t *testing.T) {
	for _, p := range mustList(t) {
		r := rel(p.ImportPath)
		if frontDoor(r) {
			continue
		}
		for _, imp := range p.Imports {
			if top(rel(imp)) == "edge" {
				t.Errorf("%s imports %s: only the commands (cmd/) import the front door", r, rel(imp))
			}
		}
	}
}

// allowedUp are the arrows between top-level folders that may point back
// up: snapshots/snapshotstest builds real snapshots (builder, index) for the
// tests of the packages below them.
var allowedUp = map[[2]string]bool{{"snapshots", "builder"}: true, {"snapshots", "index"}: true}

func TestLayers_ImportsPointDown(t *testing.T) {
	arrows := map[[2]string][]string{} // folder -> folder: the package imports making it
	for _, p := range mustList(t) {
		from := top(rel(p.ImportPath))
		for _, imp := range p.Imports {
			if r := rel(imp); r != "" && top(r) != from {
				k := [2]string{from, top(r)}
				arrows[k] = append(arrows[k], rel(p.ImportPath)+" -> "+r)
			}
		}
	}
	// Without the allowed arrows the folders must form no cycle: an arrow
	// of a cycle points up.
	graph := map[string][]string{}
	for k := range arrows {
		if !allowedUp[k] {
			graph[k[0]] = append(graph[k[0]], k[1])
		}
	}
	for _, cycle := range cycles(graph) {
		var why []string
		for i := range cycle {
			k := [2]string{cycle[i], cycle[(i+1)%len(cycle)]}
			why = append(why, arrows[k]...)
		}
		t.Errorf("the folders %s import each other in a circle, so one of these arrows points up: %s",
			strings.Join(cycle, " -> "), strings.Join(why, "; "))
	}
	up := 0
	for k := range arrows {
		if allowedUp[k] {
			up++
		}
	}
	t.Logf("%d arrows between top-level folders point up (allowed: snapshots/snapshotstest's)", up)
}

// cycles returns one cycle of each strongly connected component of g with
// more than one folder (Tarjan's algorithm), each from its smallest name.
func cycles(g map[string][]string) [][]string {
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for _, w := range g[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	var nodes []string
	for v := range g {
		nodes = append(nodes, v)
	}
	slices.Sort(nodes)
	for _, v := range nodes {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return out
}

// TestLayers_DocNamesImports: every package of the module a package imports
// is named in its doc.go (by its module-relative path, or its last element),
// so that the list a reader trusts cannot drift from the code.
func TestLayers_DocNamesImports(t *testing.T) {
	for _, p := range mustList(t) {
		r := rel(p.ImportPath)
		if len(p.GoFiles) == 0 { // tests only (deploy, docs)
			continue
		}
		text, ok := packageDoc(t, p)
		if !ok {
			t.Errorf("%s has no doc.go (or, in a package of one file, no package comment)", r)
			continue
		}
		var missing []string
		for _, imp := range p.Imports {
			ir := rel(imp)
			if ir == "" || named(text, ir) {
				continue
			}
			missing = append(missing, ir)
		}
		if len(missing) > 0 {
			t.Errorf("%s/doc.go does not name what the package imports: %s", r, strings.Join(missing, ", "))
		}
	}
}

// packageDoc returns the text of p's doc.go, or of its one file when it
// has one file with a package comment.
func packageDoc(tb testing.TB, p pkg) (string, bool) {
	if slices.Contains(p.GoFiles, "doc.go") {
		return mustRead(tb, filepath.Join(p.Dir, "doc.go")), true
	}
	if len(p.GoFiles) == 1 {
		text := mustRead(tb, filepath.Join(p.Dir, p.GoFiles[0]))
		if strings.HasPrefix(text, "// Package ") || strings.HasPrefix(text, "// Command ") || strings.Contains(text, "\n// Package ") {
			return text, true
		}
	}
	return "", false
}

// named reports whether doc names the package at module-relative path r:
// its path, or its last element as a word.
func named(doc, r string) bool {
	if strings.Contains(doc, r) {
		return true
	}
	last := r[strings.LastIndex(r, "/")+1:]
	return regexp.MustCompile(`(^|[^\w/])` + regexp.QuoteMeta(last) + `($|[^\w/])`).MatchString(doc)
}

func mustRead(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
