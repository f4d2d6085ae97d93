package providertest

import (
	"context"
	"errors"
	"fmt"

	"github.com/garrison-ci/garrison/internal/providerexec"
	"github.com/garrison-ci/garrison/provider"
)

// create creates the instance and checks status and name.
func (c *checker) create(ctx context.Context) (string, error) {
	c.name = newName()
	inst, err := c.p.CreateInstance(ctx, c.bootstrap(c.name, c.opts.PoolID), c.opts.ExtraSpecs)
	if err != nil {
		c.cleanupByName(ctx, c.name)
		return "", err
	}
	c.inst = inst
	if err := c.sameInstance(inst, provider.StatusRunning); err != nil {
		c.cleanupByName(ctx, inst.ProviderID)
		return "", fmt.Errorf("CreateInstance: %w", err)
	}
	return "provider_id " + inst.ProviderID, nil
}

// cleanupByName best-effort deletes an instance after a failed create.
func (c *checker) cleanupByName(ctx context.Context, id string) {
	_ = c.p.DeleteInstance(ctx, provider.Target{PoolID: c.opts.PoolID, InstanceID: id, ExtraSpecs: c.opts.ExtraSpecs})
}

// sameInstance checks got is the created instance with status want.
func (c *checker) sameInstance(got provider.ProviderInstance, want provider.Status) error {
	if got.Name != c.name {
		return fmt.Errorf("%w: name %q, want %q (ListInstances results are matched by name)", errMismatch, got.Name, c.name)
	}
	if c.inst.ProviderID != "" && got.ProviderID != c.inst.ProviderID {
		return fmt.Errorf("%w: provider_id %q, want %q", errMismatch, got.ProviderID, c.inst.ProviderID)
	}
	if got.Status != want {
		fault := ""
		if len(got.ProviderFault) > 0 {
			fault = fmt.Sprintf(" (provider_fault %q)", got.ProviderFault)
		}
		return fmt.Errorf("%w: status %q, want %q%s", errWrongStatus, got.Status, want, fault)
	}
	return nil
}

// get checks GetInstance returns the running instance.
func (c *checker) get(ctx context.Context) (string, error) {
	return "", c.expectStatus(ctx, provider.StatusRunning)
}

// expectStatus gets the instance and checks its status.
func (c *checker) expectStatus(ctx context.Context, want provider.Status) error {
	got, err := c.p.GetInstance(ctx, c.target(c.opts.PoolID))
	if err != nil {
		return err
	}
	if err := c.sameInstance(got, want); err != nil {
		return fmt.Errorf("GetInstance: %w", err)
	}
	return nil
}

// list checks the instance is listed exactly once in its pool.
func (c *checker) list(ctx context.Context) (string, error) {
	matches, n, err := c.listMatches(ctx, c.opts.PoolID)
	if err != nil {
		return "", err
	}
	if len(matches) != 1 {
		return "", fmt.Errorf("ListInstances of the pool lists the instance %d times, want once (%d instances listed)", len(matches), n)
	}
	if err := c.sameInstance(matches[0], provider.StatusRunning); err != nil {
		return "", fmt.Errorf("ListInstances: %w", err)
	}
	return fmt.Sprintf("listed instances: %d", n), nil
}

// listOther checks another pool's list does not contain the instance.
func (c *checker) listOther(ctx context.Context) (string, error) {
	matches, _, err := c.listMatches(ctx, newUUID())
	if err != nil {
		return "", err
	}
	if len(matches) != 0 {
		return "", errors.New("ListInstances of another pool lists the instance: lists must be scoped by GARM_POOL_ID")
	}
	return "", nil
}

// listMatches lists pool and returns the entries with our name or id.
func (c *checker) listMatches(ctx context.Context, pool string) ([]provider.ProviderInstance, int, error) {
	list, err := c.p.ListInstances(ctx, provider.Target{PoolID: pool, ExtraSpecs: c.opts.ExtraSpecs})
	if err != nil {
		return nil, 0, err
	}
	var out []provider.ProviderInstance
	for _, inst := range list {
		if inst.Name == c.name || inst.ProviderID == c.inst.ProviderID {
			out = append(out, inst)
		}
	}
	return out, len(list), nil
}

// stop stops the instance and checks GetInstance reports it stopped.
func (c *checker) stop(ctx context.Context) (string, error) {
	if err := c.p.StopInstance(ctx, c.target(c.opts.PoolID)); err != nil {
		return "", err
	}
	return "", c.expectStatus(ctx, provider.StatusStopped)
}

// start starts the instance and checks GetInstance reports it running.
func (c *checker) start(ctx context.Context) (string, error) {
	if err := c.p.StartInstance(ctx, c.target(c.opts.PoolID)); err != nil {
		return "", err
	}
	return "", c.expectStatus(ctx, provider.StatusRunning)
}

// delete deletes the instance.
func (c *checker) delete(ctx context.Context) (string, error) {
	return "", c.p.DeleteInstance(ctx, c.target(c.opts.PoolID))
}

// getDeleted checks GetInstance of the deleted instance says not found.
func (c *checker) getDeleted(ctx context.Context) (string, error) {
	got, err := c.p.GetInstance(ctx, c.target(c.opts.PoolID))
	switch {
	case errors.Is(err, providerexec.ErrNotFound):
		return "", nil
	case err == nil:
		return "", fmt.Errorf("GetInstance of a deleted instance returned it (status %q); want exit 30 (not found)", got.Status)
	}
	return "", fmt.Errorf("GetInstance of a deleted instance: want exit 30 (not found), got: %w", err)
}

// listDeleted checks the deleted instance is no longer listed.
func (c *checker) listDeleted(ctx context.Context) (string, error) {
	matches, _, err := c.listMatches(ctx, c.opts.PoolID)
	if err != nil {
		return "", err
	}
	if len(matches) != 0 {
		return "", errors.New("ListInstances still lists the deleted instance")
	}
	return "", nil
}

// deleteAgain checks deleting a deleted instance is success or not found.
func (c *checker) deleteAgain(ctx context.Context) (string, error) {
	if err := c.p.DeleteInstance(ctx, c.target(c.opts.PoolID)); err != nil {
		return "", fmt.Errorf("deleting an already deleted instance must exit 0 or 30: %w", err)
	}
	return "", nil
}

// deleteUnknown checks deleting by an unknown name succeeds (spec O-7: the
// manager deletes by name after a failed create).
func (c *checker) deleteUnknown(ctx context.Context) (string, error) {
	t := provider.Target{PoolID: c.opts.PoolID, InstanceID: newName(), ExtraSpecs: c.opts.ExtraSpecs}
	if err := c.p.DeleteInstance(ctx, t); err != nil {
		return "", fmt.Errorf("deleting an unknown instance name must exit 0 or 30: %w", err)
	}
	return "", nil
}

// removeAll creates instances in two pools, removes all and checks both
// pools are empty of them.
func (c *checker) removeAll(ctx context.Context) (string, error) {
	pools := []string{c.opts.PoolID, newUUID()}
	for _, pool := range pools {
		if _, err := c.p.CreateInstance(ctx, c.bootstrap(newName(), pool), c.opts.ExtraSpecs); err != nil {
			return "", fmt.Errorf("creating instances to remove: %w", err)
		}
	}
	if err := c.p.RemoveAllInstances(ctx, provider.Target{PoolID: c.opts.PoolID, ExtraSpecs: c.opts.ExtraSpecs}); err != nil {
		return "", err
	}
	for _, pool := range pools {
		list, err := c.p.ListInstances(ctx, provider.Target{PoolID: pool, ExtraSpecs: c.opts.ExtraSpecs})
		if err != nil {
			return "", err
		}
		if len(list) != 0 {
			return "", fmt.Errorf("after RemoveAllInstances, pool %s still lists %d instances", pool, len(list))
		}
	}
	return "", nil
}
