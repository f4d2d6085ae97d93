package standin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"time"
)

// BinaryName is the stand-in executable's path inside the runner archive.
const BinaryName = "bin/garrison-standin-runner"

// Shell shims of the runner archive. Each finds its own directory, so they work wherever
// the archive is unpacked.
var shims = map[string]string{
	"config.sh": `#!/bin/bash
# config.sh of the garrison stand-in runner: registers with the forge simulator.
d=$(cd "$(dirname "$0")" && pwd)
exec "$d/` + BinaryName + `" config "$@" --dir "$d"
`,
	"run.sh": `#!/bin/bash
# run.sh of the garrison stand-in runner: takes one job from the forge simulator.
d=$(cd "$(dirname "$0")" && pwd)
exec "$d/` + BinaryName + `" run "$@" --dir "$d"
`,
	"bin/runsvc.sh": `#!/bin/bash
# runsvc.sh of the garrison stand-in runner; works from bin/ and from the runner root.
d=$(cd "$(dirname "$0")" && pwd)
[ -x "$d/run.sh" ] || d=$(dirname "$d")
exec "$d/run.sh" "$@"
`,
	"svc.sh": `#!/bin/bash
# svc.sh of the garrison stand-in runner: "start" runs run.sh in the background (no
# service manager involved); install, uninstall and status do nothing.
d=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
start)
	nohup "$d/run.sh" >"$d/runner.log" 2>&1 </dev/null &
	echo $! >"$d/runner.pid"
	;;
stop) [ ! -f "$d/runner.pid" ] || kill "$(cat "$d/runner.pid")" 2>/dev/null || true ;;
install | uninstall | status) ;;
*) echo "usage: svc.sh install|start|stop|status|uninstall" >&2; exit 2 ;;
esac
`,
	"env.sh": `#!/bin/bash
# env.sh of the garrison stand-in runner: makes sure .env exists.
d=$(cd "$(dirname "$0")" && pwd)
touch "$d/.env"
`,
	"bin/installdependencies.sh": `#!/bin/bash
# The garrison stand-in runner needs no dependencies.
exit 0
`,
}

// Tarball returns a gzipped tar of a GitHub-style runner around the stand-in binary at
// binaryPath: config.sh, run.sh, svc.sh, env.sh, bin/runsvc.sh,
// bin/installdependencies.sh and bin/garrison-standin-runner.
func Tarball(binaryPath string) ([]byte, error) {
	bin, err := os.ReadFile(binaryPath)
	if err != nil {
		return nil, fmt.Errorf("standin: reading runner binary: %w", err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	mtime := time.Now().Truncate(time.Second)
	if err := tw.WriteHeader(&tar.Header{Name: "bin/", Mode: 0o755, Typeflag: tar.TypeDir, ModTime: mtime}); err != nil {
		return nil, err
	}
	if err := addFile(tw, BinaryName, bin, mtime); err != nil {
		return nil, err
	}
	for _, name := range shimNames() {
		if err := addFile(tw, name, []byte(shims[name]), mtime); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// shimNames lists the shims in a stable order.
func shimNames() []string {
	return []string{"bin/installdependencies.sh", "bin/runsvc.sh", "config.sh", "env.sh", "run.sh", "svc.sh"}
}

// addFile writes one executable regular file.
func addFile(tw *tar.Writer, name string, body []byte, mtime time.Time) error {
	h := &tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg, ModTime: mtime}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := io.Copy(tw, bytes.NewReader(body))
	return err
}
