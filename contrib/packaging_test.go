// Package contrib_test checks the packaging files operators use: the systemd unit and the
// container recipe (the Dockerfile at the repository root).
package contrib_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unit is a systemd unit file: section → key → values (a key may repeat).
type unit map[string]map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, section := unit{}, ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a key=value line in a section: %q", path, n, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

func (u unit) get(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// TestSystemdUnit: the unit is GARM's (streams-metrics.md §4.5) for garrison, reload sends
// SIGHUP, and it has the hardening of LG-4 with the data directory writable.
func TestSystemdUnit(t *testing.T) {
	path := filepath.Join("systemd", "garrison.service")
	u := readUnit(t, path)
	want := map[[2]string]string{
		{"Service", "Type"}:            "simple",
		{"Service", "ExecReload"}:      "/bin/kill -HUP $MAINPID",
		{"Service", "Restart"}:         "always",
		{"Service", "RestartSec"}:      "5s",
		{"Service", "User"}:            "garrison",
		{"Service", "NoNewPrivileges"}: "yes",
		{"Service", "ProtectSystem"}:   "strict",
		{"Service", "PrivateTmp"}:      "yes",
		{"Install", "WantedBy"}:        "multi-user.target",
	}
	for k, v := range want {
		if got := u.get(k[0], k[1]); got != v {
			t.Errorf("[%s] %s = %q, want %q", k[0], k[1], got, v)
		}
	}
	argv := strings.Fields(u.get("Service", "ExecStart"))
	if len(argv) < 2 || filepath.Base(argv[0]) != "garrison" || argv[1] != "server" {
		t.Fatalf("ExecStart %q does not run garrison server", argv)
	}
	dataDir := ""
	for i, a := range argv {
		if a == "--data-dir" && i+1 < len(argv) {
			dataDir = argv[i+1]
		}
	}
	if dataDir == "" || !strings.Contains(" "+u.get("Service", "ReadWritePaths")+" ", " "+dataDir+" ") {
		t.Errorf("the data directory %q is not among ReadWritePaths %q", dataDir, u.get("Service", "ReadWritePaths"))
	}
	verifyUnit(t, path, argv[0])
}

// verifyUnit runs systemd-analyze verify on the unit, when it is installed, with ExecStart
// pointed at an executable that exists here.
func verifyUnit(t *testing.T, path, binary string) {
	t.Helper()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze not installed: unit syntax not verified")
		return
	}
	stand, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "garrison.service")
	if err := os.WriteFile(copyPath, []byte(strings.ReplaceAll(string(raw), binary, stand)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(analyze, "verify", copyPath).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
