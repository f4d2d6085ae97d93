package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/garrison-ci/garrison/provider"
)

// dispatch runs env.Command on p and returns the stdout bytes.
func dispatch(ctx context.Context, env Environment, p Provider, bi provider.BootstrapInstance, stdin io.Reader) ([]byte, error) {
	switch env.Command {
	case provider.CreateInstance:
		return instanceResult(p.CreateInstance(ctx, bi))
	case provider.GetInstance:
		return instanceResult(p.GetInstance(ctx, env.InstanceID))
	case provider.ListInstances:
		return listResult(p.ListInstances(ctx, env.PoolID))
	case provider.DeleteInstance:
		return nil, p.DeleteInstance(ctx, env.InstanceID)
	case provider.RemoveAllInstances:
		return nil, p.RemoveAllInstances(ctx)
	case provider.StartInstance:
		return nil, p.Start(ctx, env.InstanceID)
	case provider.StopInstance:
		return nil, p.Stop(ctx, env.InstanceID)
	}
	return dispatchOptional(ctx, env, p, stdin)
}

// dispatchOptional runs the introspection commands a provider may lack.
func dispatchOptional(ctx context.Context, env Environment, p Provider, stdin io.Reader) ([]byte, error) {
	switch env.Command {
	case provider.GetVersion:
		if v, ok := p.(Versioner); ok {
			return []byte(v.Version(ctx)), nil
		}
	case provider.ValidatePoolInfo:
		if v, ok := p.(PoolValidator); ok {
			image, flavor := optionalImageFlavor(stdin)
			return nil, v.ValidatePoolInfo(ctx, image, flavor, env.PoolExtraSpecs)
		}
	case provider.GetConfigJSONSchema:
		if s, ok := p.(ConfigSchemaProvider); ok {
			return s.ConfigJSONSchema(ctx)
		}
	case provider.GetExtraSpecsJSONSchema:
		if s, ok := p.(ExtraSpecsSchemaProvider); ok {
			return s.ExtraSpecsJSONSchema(ctx)
		}
	}
	return nil, fmt.Errorf("%s: %w", env.Command, ErrUnsupported)
}

// optionalImageFlavor reads a BootstrapInstance from stdin if one was sent.
func optionalImageFlavor(stdin io.Reader) (image, flavor string) {
	data, err := io.ReadAll(io.LimitReader(stdin, maxStdin))
	if err != nil || len(data) == 0 {
		return "", ""
	}
	var bi provider.BootstrapInstance
	if json.Unmarshal(data, &bi) != nil {
		return "", ""
	}
	return bi.Image, bi.Flavor
}

// instanceResult validates and encodes one instance.
func instanceResult(inst provider.ProviderInstance, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if err := inst.Validate(); err != nil {
		return nil, fmt.Errorf("provider returned an invalid instance: %w", err)
	}
	return json.Marshal(inst)
}

// listResult validates and encodes a list ([] when empty).
func listResult(list []provider.ProviderInstance, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	for i := range list {
		if err := list[i].Validate(); err != nil {
			return nil, fmt.Errorf("provider returned an invalid instance: %w", err)
		}
	}
	if list == nil {
		list = []provider.ProviderInstance{}
	}
	return json.Marshal(list)
}
