package reconcile

import (
	"crypto/rand"
	"math/big"
	"strings"

	"github.com/garrison-ci/garrison"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomSuffix returns 12 random base62 characters, lowercased (as GARM names runners).
func randomSuffix() string {
	var b strings.Builder
	max := big.NewInt(int64(len(base62)))
	for range 12 {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("reconcile: crypto/rand failed: " + err.Error())
		}
		b.WriteByte(base62[n.Int64()])
	}
	return strings.ToLower(b.String())
}

// runnerName returns a new runner name for the pool: <runner_prefix>-<random>.
func runnerName(p garrison.Pool) string {
	prefix := p.RunnerPrefix
	if prefix == "" {
		prefix = garrison.DefaultRunnerPrefix
	}
	return prefix + "-" + randomSuffix()
}

// ownsRunnerName reports whether a forge runner name looks like one of the pool's.
func ownsRunnerName(p garrison.Pool, name string) bool {
	prefix := p.RunnerPrefix
	if prefix == "" {
		prefix = garrison.DefaultRunnerPrefix
	}
	return strings.HasPrefix(name, prefix+"-")
}
