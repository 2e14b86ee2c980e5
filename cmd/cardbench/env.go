package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cardedge/cardedge/bench/load"
)

// Machine describes where the figures were taken.
type Machine struct {
	Hostname     string  `json:"hostname"`
	Kernel       string  `json:"kernel"`
	CPUModel     string  `json:"cpu_model"`
	CPUs         int     `json:"cpus"`
	MemGiB       float64 `json:"mem_gib"`
	GoVersion    string  `json:"go_version"`
	Wrk          string  `json:"wrk,omitempty"`
	Nginx        string  `json:"nginx,omitempty"`
	LoadAvgStart string  `json:"loadavg_start"`
	LoadAvgEnd   string  `json:"loadavg_end"`
}

func machineInfo() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), LoadAvgStart: loadAvg()}
	m.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		n, _ := strconv.ParseFloat(strings.Fields(kb)[0], 64)
		m.MemGiB = float64(int(n/(1<<20)*10)) / 10
	}
	return m
}

// procField returns the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAvg returns the 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// commit returns HEAD and whether tracked files differ from it.
func commit(root string) (string, bool) {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown", false
	}
	st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), len(bytes.TrimSpace(st)) > 0
}

// findTool returns the path of a command (PATH, then /usr/sbin and /sbin,
// where Debian puts nginx).
func findTool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// ensureTool finds name or installs the first Debian package of pkgs that
// installs (as root, unless noInstall). The error says how to install it.
func ensureTool(ctx context.Context, name string, pkgs []string, noInstall bool, log func(string, ...any)) (string, error) {
	if p := findTool(name); p != "" {
		return p, nil
	}
	how := "apt-get install -y " + pkgs[0]
	if noInstall || os.Geteuid() != 0 {
		return "", fmt.Errorf("%s is missing: install it (as root: %s) and run again", name, how)
	}
	if findTool("apt-get") == "" {
		return "", fmt.Errorf("%s is missing and there is no apt-get: install %s by hand", name, name)
	}
	for attempt := 0; attempt < 2; attempt++ {
		if attempt == 1 {
			log("apt-get update (to install %s)", name)
			if out, err := aptGet(ctx, "update"); err != nil {
				return "", fmt.Errorf("%s is missing; apt-get update failed: %v\n%s", name, err, out)
			}
		}
		for _, pkg := range pkgs {
			log("installing %s: apt-get install -y %s", name, pkg)
			if _, err := aptGet(ctx, "install", "-y", "-q", pkg); err == nil {
				if p := findTool(name); p != "" {
					return p, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s is missing and `%s` failed: install it by hand and run again", name, how)
}

func aptGet(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	out, err := cmd.CombinedOutput()
	if len(out) > 2000 {
		out = out[len(out)-2000:]
	}
	return string(out), err
}

// toolVersion returns the first line a command prints (stdout or stderr).
func toolVersion(argv ...string) string {
	out, _ := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}

// procCPU is the CPU time a process has used so far, user and system mode.
type procCPU struct{ User, System time.Duration }

// Total is user plus system time.
func (c procCPU) Total() time.Duration { return c.User + c.System }

// cpuTime reads a process's CPU time from /proc/PID/stat.
func cpuTime(pid int) (procCPU, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procCPU{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procCPU{}, errors.New("bad /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return procCPU{}, errors.New("short /proc stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return procCPU{}, err
	}
	const clkTck = 100 // USER_HZ on Linux
	return procCPU{User: time.Duration(ut) * time.Second / clkTck, System: time.Duration(st) * time.Second / clkTck}, nil
}

// setServerCPU sets f's server CPU figures from the server's CPU time before
// and after the run.
func setServerCPU(f *load.Figures, before, after procCPU) {
	if f.Requests <= 0 || f.Seconds <= 0 {
		return
	}
	perReq := func(d time.Duration) float64 { return round2(float64(d/time.Microsecond) / float64(f.Requests)) }
	f.ServerCPUUsPerReq = perReq(after.Total() - before.Total())
	f.ServerUserUsPerReq = perReq(after.User - before.User)
	f.ServerCPUPct = round2(100 * (after.Total() - before.Total()).Seconds() / f.Seconds)
}
