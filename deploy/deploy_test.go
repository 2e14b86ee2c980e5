// Package deploy holds the files a self-hosted fleet runs with (README,
// "Self-hosting"): the HAProxy configuration and the systemd units of the
// edge replicas and of the nightly build. The tests check them with the
// tools that read them.
package deploy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHAProxyConfig checks deploy/haproxy.cfg with haproxy -c, with its
// default addresses and with the ones the fleet test passes.
func TestHAProxyConfig(t *testing.T) {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skip("haproxy not installed (apt-get install -y haproxy; .ci/run does): skipping the check of deploy/haproxy.cfg")
	}
	for _, env := range [][]string{nil, {"CARDEDGE_LB_ADDR=127.0.0.1:18080", "CARDEDGE_EDGE1=127.0.0.1:18081", "CARDEDGE_EDGE2=127.0.0.1:18082", "CARDEDGE_EDGE3=127.0.0.1:18083"}} {
		cmd := exec.Command(bin, "-c", "-f", "haproxy.cfg")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Configuration file is valid") || strings.Contains(string(out), "[WARNING]") {
			t.Fatalf("haproxy -c -f deploy/haproxy.cfg (%v): %v\n%s", env, err, out)
		}
	}
}

// TestSystemdUnits checks the units with systemd-analyze verify (their
// binaries replaced by stand-ins in a temporary directory): any message
// (an unknown key, a bad value) fails.
func TestSystemdUnits(t *testing.T) {
	bin, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed: skipping the check of the systemd units")
	}
	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	os.Mkdir(binDir, 0o755)
	for _, b := range []string{"cardedge", "cardbuild"} {
		if err := os.WriteFile(filepath.Join(binDir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	units, _ := filepath.Glob("*.service")
	timers, _ := filepath.Glob("*.timer")
	var verify []string
	for _, u := range append(units, timers...) {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.ReplaceAll(string(b), "/usr/local/bin/", binDir+"/"))
		if err := os.WriteFile(filepath.Join(dir, u), b, 0o644); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, u)
		if strings.HasSuffix(u, "@.service") {
			name = filepath.Join(dir, strings.TrimSuffix(u, "@.service")+"@8081.service")
		}
		verify = append(verify, name)
	}
	if len(verify) < 3 {
		t.Fatalf("units found: %v", verify)
	}
	cmd := exec.Command(bin, append([]string{"verify"}, verify...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestCardbuildExecStart: the cardbuild command lines of the units, with
// their variables expanded as systemd expands them (from
// sources.env.example for the sources' build, from sample settings for the
// synthetic one), parse against cardbuild's real flags: the command is run
// with --dry-run, which checks every flag and the sources' options and
// builds nothing.
func TestCardbuildExecStart(t *testing.T) {
	example, err := readEnvFile("sources.env.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"CARDBUILD_CONTACT", "CARDBUILD_CARDMARKET", "CARDBUILD_TCGPLAYER", "CARDBUILD_RATES", "CARDBUILD_HISTORY"} {
		if example[k] == "" {
			t.Errorf("sources.env.example does not set %s", k)
		}
	}
	fleet := map[string]string{}
	for k, v := range example {
		fleet[k] = v
	}
	fleet["CARDBUILD_PUBLISH"] = "s3://bucket/snapshots"
	fleet["CARDBUILD_HISTORY"] = "s3://bucket/history"
	fleet["CARDBUILD_FLAGS"] = "--history-days 365 --synthetic-fill"
	bin := cardbuildBinary(t)
	for _, tt := range []struct {
		unit, name string
		env        map[string]string
		want       []string
	}{
		{"cardbuild-sources.service", "one node", example, []string{
			"dry run: a build into /var/lib/cardbuild/snapshots (keep 3), catalog /usr/local/share/cardedge/catalog",
			"source cardmarket: https://downloads.s3.cardmarket.com/productCatalog/priceGuide, guides=6+18",
			"source tcgplayer: https://tcgcsv.com, categories=3+85+68",
			"history: /var/lib/cardbuild/history", "rates: https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip",
			"contact: ops@example.com"}},
		{"cardbuild-sources.service", "fleet", fleet, []string{"history: s3://bucket/history (365 days)", "then published to s3://bucket/snapshots"}},
		{"cardbuild-nightly.service", "synthetic", map[string]string{"CARDEDGE_SNAPSHOTS": "s3://bucket/snapshots", "CARDBUILD_FLAGS": "--seed 7"},
			[]string{"the synthetic market (preset default, seed 7)", "then published to s3://bucket/snapshots"}},
	} {
		t.Run(tt.unit+"/"+tt.name, func(t *testing.T) {
			words, err := execStart(tt.unit)
			if err != nil {
				t.Fatal(err)
			}
			args, err := expandSystemd(words, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if args[0] != "/usr/local/bin/cardbuild" || args[1] != "build" {
				t.Fatalf("ExecStart runs %v, want /usr/local/bin/cardbuild build", args[:2])
			}
			out, err := exec.Command(bin, append(args[1:], "--dry-run")...).CombinedOutput()
			if err != nil {
				t.Fatalf("cardbuild %s --dry-run: %v\n%s", strings.Join(args[1:], " "), err, out)
			}
			if tt.env["CARDBUILD_PUBLISH"] == "" && tt.env["CARDEDGE_SNAPSHOTS"] == "" && strings.Contains(string(out), "published to") {
				t.Errorf("one node publishes:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the plan lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// A typo in an option of the sources fails the check.
	bad := map[string]string{}
	for k, v := range example {
		bad[k] = v
	}
	bad["CARDBUILD_TCGPLAYER"] = "https://tcgcsv.com,categorys=3"
	words, _ := execStart("cardbuild-sources.service")
	args, _ := expandSystemd(words, bad)
	if out, err := exec.Command(bin, append(args[1:], "--dry-run")...).CombinedOutput(); err == nil {
		t.Errorf("a bad source option passed:\n%s", out)
	}
}

// cardbuildBinary returns cardbuild: $CARDEDGE_BIN/cardbuild (make passes
// bin/), else built into a temporary directory.
func cardbuildBinary(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("CARDEDGE_BIN"); d != "" {
		return filepath.Join(d, "cardbuild")
	}
	bin := filepath.Join(t.TempDir(), "cardbuild")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cardbuild")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/cardbuild: %v\n%s", err, out)
	}
	return bin
}

// readEnvFile reads a systemd EnvironmentFile: KEY=VALUE lines, comments
// and blank lines, values optionally in double quotes.
func readEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("%s:%d: not KEY=VALUE: %q", path, i+1, line)
		}
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		env[k] = v
	}
	return env, nil
}

// execStart returns the words of a unit's ExecStart (continuation lines
// joined; no quoting is used in these units).
func execStart(unit string) ([]string, error) {
	b, err := os.ReadFile(unit)
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	var line string
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			if line != "" {
				return nil, fmt.Errorf("%s: two ExecStart lines", unit)
			}
			line = v
		}
	}
	if line == "" {
		return nil, fmt.Errorf("%s: no ExecStart", unit)
	}
	if strings.ContainsAny(line, `"'`) {
		return nil, fmt.Errorf("%s: quotes in ExecStart: this test does not read them", unit)
	}
	return strings.Fields(line), nil
}

var systemdVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandSystemd expands the variables of ExecStart's words as systemd
// does (systemd.service(5), "Command lines"): a word that is $NAME becomes
// the value split at white space (no word when it is empty); ${NAME}, a
// word or part of one, becomes the value as it is, in one word. An unset
// variable is an error here (systemd would expand it to nothing).
func expandSystemd(words []string, env map[string]string) ([]string, error) {
	var out []string
	for _, w := range words {
		if name, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(name, "{") {
			v, set := env[name]
			if !set {
				return nil, fmt.Errorf("$%s is not set", name)
			}
			out = append(out, strings.Fields(v)...)
			continue
		}
		var missing string
		w = systemdVar.ReplaceAllStringFunc(w, func(m string) string {
			name := m[2 : len(m)-1]
			v, set := env[name]
			if !set {
				missing = name
			}
			return v
		})
		if missing != "" {
			return nil, fmt.Errorf("${%s} is not set", missing)
		}
		out = append(out, w)
	}
	return out, nil
}
