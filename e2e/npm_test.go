package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/e2e/e2etest"
)

// Helpers of the tests that run npm tools (the MCP TypeScript SDK, the MCP
// Inspector, openapi-typescript with openapi-fetch and tsc): each tool set
// is a package.json with its package-lock.json (every version pinned),
// installed once by tools/npm/install into ~/.cache/cardedge/npm and reused
// by later runs until its lock file changes.

// npmTools installs the tool set in dir (relative to the repository root)
// and returns its directory (node_modules inside). It skips the test when
// Node.js 20.19+ or npm is missing.
func npmTools(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("skipped: node is not installed (Node.js 20.19+ and npm are needed for %s; .ci/run installs them)", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(e2etest.RepoRoot(), "tools", "npm", "install"), dir)
	cmd.Dir = e2etest.RepoRoot()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	started := time.Now()
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			t.Skipf("skipped: %s", strings.TrimSpace(stderr.String()))
		}
		t.Fatalf("tools/npm/install %s: %v\n%s", dir, err, stderr.String())
	}
	t.Logf("npm tools %s ready in %s", dir, time.Since(started).Round(time.Millisecond))
	return strings.TrimSpace(stdout.String())
}

// npmWorkdir installs the tool set of src (npmTools: src is relative to the
// repository root; it skips the test without Node.js) and returns a fresh
// directory holding the files of src and a node_modules link to the
// installed tools.
func npmWorkdir(t *testing.T, src string, files ...string) string {
	t.Helper()
	tools := npmTools(t, src)
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(e2etest.RepoRoot(), src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runNode runs a command of the installed tools (node_modules/.bin/NAME, or
// node itself) in dir and returns its stdout; a failure fails the test with
// both outputs.
func runNode(t *testing.T, dir string, timeout time.Duration, name string, args ...string) []byte {
	t.Helper()
	stdout, _ := runNodeOutputs(t, dir, timeout, name, args...)
	return stdout
}

// runNodeOutputs is runNode, and returns stderr too.
func runNodeOutputs(t *testing.T, dir string, timeout time.Duration, name string, args ...string) ([]byte, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	bin := name
	if name != "node" {
		bin = filepath.Join(dir, "node_modules", ".bin", name)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	started := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, truncate(stdout.Bytes()), stderr.String())
	}
	t.Logf("%s %s: %s", name, firstArg(args), time.Since(started).Round(time.Millisecond))
	return stdout.Bytes(), stderr.Bytes()
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
