// Package deploy holds the files a self-hosted fleet runs with (README,
// "Self-hosting"): the HAProxy configuration and the systemd units of the
// edge replicas and of the nightly build. The tests check them with the
// tools that read them.
package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
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
