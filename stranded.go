package garrison

import (
	"hash/fnv"
	"time"
)

// StrandedThreshold is how long a runner must have been seen offline before it is
// recycled as stranded: base (stranded_runner_timeout) plus up to 20%, fixed per runner
// name, so that runners stranded together by one outage are not all recycled in one pass.
// Pools and scale sets share it.
func StrandedThreshold(name string, base time.Duration) time.Duration {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return base + time.Duration(float64(base)*0.2*float64(h.Sum32()%1000)/1000)
}
