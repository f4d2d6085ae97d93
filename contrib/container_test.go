package contrib_test

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd, args string
}

// stage is one FROM and the instructions under it.
type stage struct {
	from string
	ins  []instruction
}

func (s stage) all(cmd string) []string {
	var out []string
	for _, in := range s.ins {
		if in.cmd == cmd {
			out = append(out, in.args)
		}
	}
	return out
}

func (s stage) last(cmd string) string {
	all := s.all(cmd)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1]
}

// readRecipe splits the repository's Dockerfile into stages.
func readRecipe(t *testing.T) []stage {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []stage
	var cur strings.Builder
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		if line == "" {
			return
		}
		cmd, args, _ := strings.Cut(line, " ")
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		switch {
		case in.cmd == "FROM":
			stages = append(stages, stage{from: in.args})
		case len(stages) > 0:
			stages[len(stages)-1].ins = append(stages[len(stages)-1].ins, in)
		}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(rest + " ")
			continue
		}
		cur.WriteString(line)
		flush()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stages) < 2 {
		t.Fatalf("want a build stage and a final stage, got %d stages", len(stages))
	}
	return stages
}

// jsonArgs decodes an exec-form ENTRYPOINT or CMD.
func jsonArgs(t *testing.T, what, s string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%s %q is not in exec form: %v", what, s, err)
	}
	return out
}

// TestContainerRecipe: a static binary built with CGO_ENABLED=0, on an empty base image,
// run as a non-root user, listening on all interfaces at the exposed port.
func TestContainerRecipe(t *testing.T) {
	stages := readRecipe(t)
	build, final := stages[0], stages[len(stages)-1]
	run := strings.Join(build.all("RUN"), "\n")
	if !strings.Contains(run, "CGO_ENABLED=0 go build") || !strings.Contains(run, "./cmd/garrison") {
		t.Errorf("the build stage does not build ./cmd/garrison with CGO_ENABLED=0:\n%s", run)
	}
	if final.from != "scratch" {
		t.Errorf("final stage FROM %q, want scratch (nothing but the static binary)", final.from)
	}
	user := final.last("USER")
	if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("USER %q: the image must run as a non-root user", user)
	}
	entry := jsonArgs(t, "ENTRYPOINT", final.last("ENTRYPOINT"))
	copied := false
	for _, c := range final.all("COPY") {
		f := strings.Fields(c)
		copied = copied || f[len(f)-1] == entry[0]
	}
	if !copied {
		t.Errorf("ENTRYPOINT %s is not copied into the final stage", entry[0])
	}
	cmd := jsonArgs(t, "CMD", final.last("CMD"))
	line := strings.Join(cmd, " ")
	m := regexp.MustCompile(`--listen 0\.0\.0\.0:(\d+)`).FindStringSubmatch(line)
	if len(cmd) == 0 || cmd[0] != "server" || m == nil {
		t.Fatalf("CMD %q does not run the server on all interfaces", line)
	}
	if !strings.Contains(" "+final.last("EXPOSE")+" ", " "+m[1]+" ") {
		t.Errorf("EXPOSE %q lacks the listen port %s", final.last("EXPOSE"), m[1])
	}
	if !strings.Contains(line, "--data-dir "+strings.Trim(final.last("VOLUME"), `[]"`)) {
		t.Errorf("the data directory of CMD %q is not the VOLUME %s", line, final.last("VOLUME"))
	}
}

// TestContainerBuildCommand runs the recipe's go build command here, with VERSION and
// REVISION set, and checks the binary is static and reports them.
func TestContainerBuildCommand(t *testing.T) {
	if os.Getenv("GARRISON_E2E_SLOW") != "1" {
		t.Skip("builds garrison (about a minute): set GARRISON_E2E_SLOW=1")
	}
	stages := readRecipe(t)
	var goBuild string
	for _, r := range stages[0].all("RUN") {
		if strings.Contains(r, "go build") {
			goBuild = r
		}
	}
	const version, revision = "v9.8.7", "89abcdef0123456789abcdef0123456789abcdef"
	bin := filepath.Join(t.TempDir(), "garrison")
	script := strings.NewReplacer("${VERSION}", version, "${REVISION}", revision, "/out/garrison", bin).Replace(goBuild)
	sh := exec.Command("sh", "-c", script)
	sh.Dir = ".."
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader: not static")
		}
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "garrison "+version+"+"+revision[:12]) || !strings.Contains(string(out), "commit "+revision) {
		t.Errorf("garrison version:\n%s\nwant %s and commit %s", out, version, revision)
	}
}
