// Package docs holds cardedge's documentation: the Markdown pages of this
// directory (docs/README.md is their index) beside the repository's README.md.
// It has no code; its tests keep the pages whole, and go test ./... runs them:
//
//   - Every link of README.md and of each Markdown file under docs/ resolves:
//     a relative link names a file or directory of the repository (a leading
//     / is the repository's root; a link may not leave it), a #fragment names
//     a heading of the target Markdown file by GitHub's rules (lower case;
//     punctuation but - and _ dropped; spaces become -; the second heading
//     with a slug gets -1, the third -2) or an <a id> / <a name> in it, and a
//     link into another file may carry only a line fragment (#L10, #L10-L20).
//     External http and https links are checked for form only (a scheme, a
//     host, a valid port): the tests use no network.
//   - Links are inline ([text](dest), images too), reference-style ([text]
//     [label] with its definition), autolinks (<https://...>) and bare
//     http(s) URLs; text inside code spans and fenced code blocks is not a
//     link.
//   - README.md has at most 200 lines, each page of docs/ is listed in
//     README.md and in docs/README.md, and each page opens with its title and
//     then a paragraph saying what a reader comes there for.
//
// Imports: the standard library only.
//
// Caveats: the Markdown reading is the part of CommonMark these pages use, not
// all of it. Setext headings (a line of = or - under text) count; emphasis
// with _ in a heading is not stripped before its slug is made (GitHub would
// drop the _), and HTML blocks are read as text.
package docs
