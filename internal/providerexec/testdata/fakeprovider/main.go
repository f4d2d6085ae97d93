// Command fakeprovider is the provider executable of the providerexec
// tests. FAKEPROV_MODE selects its behaviour; FAKEPROV_DIR is where it
// records what it saw.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/garrison-ci/garrison/provider"
)

func main() { os.Exit(fakeMain(os.Getenv("FAKEPROV_MODE"))) }

// fakeDir is where the fake writes what it observed.
func fakeDir() string { return os.Getenv("FAKEPROV_DIR") }

// fakeMain runs one fake-provider behaviour and returns the exit code.
func fakeMain(mode string) int {
	switch mode {
	case "env":
		return fakeEnv()
	case "exit":
		return fakeExit()
	case "hang":
		writePID("pid", os.Getpid())
		writePID("childpid", spawnSleeper(os.Stdout)) // holds our stdout too
		time.Sleep(time.Hour)
	case "sleeper":
		time.Sleep(time.Hour)
	case "signal":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Hour)
	case "bigout":
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range 100 << 20 / len(chunk) {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	case "fork":
		writePID("childpid", spawnSleeper(os.Stdout))
		fmt.Print(instanceJSON("i-fork", "fork"))
	case "concurrency":
		return fakeConcurrency()
	default:
		fmt.Fprintf(os.Stderr, "unknown fake mode %q\n", mode)
		return 1
	}
	return 0
}

// fakeEnv records its environment and stdin, then answers like a healthy
// provider.
func fakeEnv() int {
	cmd := os.Getenv(provider.EnvCommand)
	env := os.Environ()
	slices.Sort(env)
	stdin, _ := io.ReadAll(os.Stdin)
	_ = os.WriteFile(filepath.Join(fakeDir(), "env-"+cmd), []byte(strings.Join(env, "\n")), 0o600)
	_ = os.WriteFile(filepath.Join(fakeDir(), "stdin-"+cmd), stdin, 0o600)
	switch provider.Command(cmd) {
	case provider.CreateInstance:
		var bi provider.BootstrapInstance
		if err := json.Unmarshal(stdin, &bi); err != nil {
			fmt.Fprintln(os.Stderr, "bad stdin:", err)
			return 1
		}
		fmt.Print(instanceJSON("i-"+bi.Name, bi.Name))
	case provider.GetInstance:
		id := os.Getenv(provider.EnvInstanceID)
		fmt.Print(instanceJSON(id, "name-"+id))
	case provider.ListInstances:
		fmt.Print(`[` + instanceJSON("i-1", "one") + `]`)
	case provider.GetVersion:
		fmt.Println("v9.8.7")
	case provider.GetSupportedInterfaceVersions:
		fmt.Print(`["v0.1.0","v0.1.1"]`)
	case provider.GetConfigJSONSchema, provider.GetExtraSpecsJSONSchema:
		fmt.Print(`{"type":"object"}`)
	}
	return 0
}

// fakeExit prints FAKEPROV_STDOUT_B64 (decoded) and FAKEPROV_STDERR and
// exits with FAKEPROV_EXIT.
func fakeExit() int {
	out, _ := base64.StdEncoding.DecodeString(os.Getenv("FAKEPROV_STDOUT_B64"))
	_, _ = os.Stdout.Write(out)
	fmt.Fprint(os.Stderr, os.Getenv("FAKEPROV_STDERR"))
	code, _ := strconv.Atoi(os.Getenv("FAKEPROV_EXIT"))
	return code
}

// fakeConcurrency tracks the number of simultaneous fakes under a file
// lock and records the maximum.
func fakeConcurrency() int {
	if err := bumpCounter(+1); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	time.Sleep(5 * time.Millisecond)
	if err := bumpCounter(-1); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Print(instanceJSON("i-c", "c"))
	return 0
}

// bumpCounter adds delta to the "cur" counter and raises "max" if needed,
// under an exclusive flock.
func bumpCounter(delta int) error {
	lock, err := os.OpenFile(filepath.Join(fakeDir(), "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	cur := readInt("cur") + delta
	if err := os.WriteFile(filepath.Join(fakeDir(), "cur"), []byte(strconv.Itoa(cur)), 0o600); err != nil {
		return err
	}
	if cur > readInt("max") {
		return os.WriteFile(filepath.Join(fakeDir(), "max"), []byte(strconv.Itoa(cur)), 0o600)
	}
	return nil
}

// readInt reads an integer file in fakeDir (0 if absent).
func readInt(name string) int {
	b, _ := os.ReadFile(filepath.Join(fakeDir(), name))
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// spawnSleeper starts a sleeping copy of this binary (same process group)
// with the given stdout and returns its pid.
func spawnSleeper(stdout *os.File) int {
	c := exec.Command(os.Args[0])
	c.Env = []string{"FAKEPROV_MODE=sleeper"}
	c.Stdout = stdout
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return c.Process.Pid
}

// writePID writes pid to a file in fakeDir.
func writePID(name string, pid int) {
	_ = os.WriteFile(filepath.Join(fakeDir(), name), []byte(strconv.Itoa(pid)), 0o600)
}

// instanceJSON is a valid ProviderInstance document.
func instanceJSON(id, name string) string {
	return fmt.Sprintf(`{"provider_id":%q,"name":%q,"status":"running","os_type":"linux"}`, id, name)
}
