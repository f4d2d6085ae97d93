package testbed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// scaleDownTimeout bounds the wait for the last instance to go: generous, since a delete
// the forge or the provider refused is retried after a backoff.
const scaleDownTimeout = 3 * time.Minute

// ScaleDown sets the min idle runners of the pools in PoolIDs (and of the scale sets in
// ScaleSetIDs) to 0 and disables them,
// asks garrison to delete the runners that are left (idle runners would otherwise wait
// out the reconciler's scale-down grace period) and waits until garrison has no instance.
func (b *Bed) ScaleDown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, scaleDownTimeout)
	defer cancel()
	zero, off := uint(0), false
	for _, id := range b.PoolIDs {
		if _, err := b.API.UpdatePool(ctx, id, apiv1.UpdatePoolParams{MinIdleRunners: &zero, Enabled: &off}); err != nil {
			return fmt.Errorf("scaling pool %s down: %w", id, err)
		}
	}
	for _, id := range b.ScaleSetIDs {
		if _, err := b.API.UpdateScaleSet(ctx, id, apiv1.UpdateScaleSetParams{MinIdleRunners: &zero, Enabled: &off}); err != nil {
			return fmt.Errorf("scaling scale set %d down: %w", id, err)
		}
	}
	fmt.Fprintln(b.out, "scaling down: pools and scale sets disabled with min idle 0")
	asked := map[string]bool{}
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		insts, err := b.API.ListInstances(ctx)
		if err == nil && len(insts) == 0 {
			fmt.Fprintln(b.out, "scaled down: no instances left")
			return nil
		}
		if err == nil {
			b.deleteLeftovers(ctx, insts, asked)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: instances still there %s after scaling down: %v", ErrFailed, scaleDownTimeout, ctx.Err())
		case <-t.C:
		}
	}
}

// deleteLeftovers asks once for the deletion of each runner that is neither busy with a
// job (it goes when the job is done) nor on its way out.
func (b *Bed) deleteLeftovers(ctx context.Context, insts []apiv1.Instance, asked map[string]bool) {
	for _, in := range insts {
		switch {
		case asked[in.Name], in.RunnerStatus == "active":
			continue
		case in.Status == "pending_delete", in.Status == "pending_force_delete", in.Status == "deleting":
			continue
		}
		err := b.API.DeleteInstance(ctx, in.Name, false, false)
		switch {
		case err == nil, apiclient.IsNotFound(err):
			asked[in.Name] = true
		case apiclient.IsConflict(err):
			// in transition: ask again on the next tick
		default:
			fmt.Fprintf(b.out, "  deleting %s: %v\n", in.Name, err)
		}
	}
}

// Leaks is what a run left behind, counted three ways.
type Leaks struct {
	ProviderOnly int // simulation provider records without a garrison instance
	StoreOnly    int // garrison instances without a provider record
	ForgeOnly    int // runners registered on the forge without a garrison instance
	Remaining    int // garrison instances left at all
	Processes    int // live processes of simulated instances
}

// Instances counts the instances leaked in any of the three ways.
func (l Leaks) Instances() int { return l.ProviderOnly + l.StoreOnly + l.ForgeOnly }

// CountLeaks compares garrison's instances, the provider's records and the forge's
// runners, and looks for processes of simulated instances still alive.
func (b *Bed) CountLeaks(ctx context.Context) (Leaks, error) {
	insts, err := b.API.ListInstances(ctx)
	if err != nil {
		return Leaks{}, fmt.Errorf("listing instances: %w", err)
	}
	p, err := b.SimProvider()
	if err != nil {
		return Leaks{}, err
	}
	recs, err := p.ListInstances(ctx, "")
	if err != nil {
		return Leaks{}, fmt.Errorf("listing the provider's instances: %w", err)
	}
	inStore, inProvider := map[string]bool{}, map[string]bool{}
	live := insts[:0]
	for _, in := range insts {
		if in.Status != "deleted" { // history of a retired runner: nothing behind it
			inStore[in.Name] = true
			live = append(live, in)
		}
	}
	l := Leaks{Remaining: len(live), Processes: b.liveProcesses()}
	for _, r := range recs {
		inProvider[r.Name] = true
		if !inStore[r.Name] {
			l.ProviderOnly++
		}
	}
	for name := range inStore {
		if !inProvider[name] {
			l.StoreOnly++
		}
	}
	for _, rn := range b.Sim.Runners() {
		if !inStore[rn.Name] {
			l.ForgeOnly++
		}
	}
	return l, nil
}

// liveProcesses counts live processes started for the bed's simulated instances: those
// whose HOME is inside the provider's state directory (Linux /proc; 0 elsewhere).
func (b *Bed) liveProcesses() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	marker := []byte("\x00HOME=" + filepath.Join(b.Path("sim-state"), "boot") + string(filepath.Separator))
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), marker) {
			continue
		}
		if !zombie(e.Name()) {
			n++
		}
	}
	return n
}

// zombie reports whether process pid has exited but was not reaped yet.
func zombie(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	f := bytes.Fields(b[i+1:])
	return len(f) == 0 || string(f[0]) == "Z" || string(f[0]) == "X"
}
