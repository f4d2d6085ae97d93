package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrInvalidOutput is wrapped by every error of the output parsers: the
// provider's stdout does not satisfy the contract.
var ErrInvalidOutput = errors.New("invalid provider output")

// ParseInstance parses the stdout of CreateInstance or GetInstance: exactly
// one JSON object (surrounding whitespace allowed) describing a valid
// instance (see ProviderInstance.Validate).
func ParseInstance(data []byte) (ProviderInstance, error) {
	var inst ProviderInstance
	if err := decodeOne(data, &inst); err != nil {
		return ProviderInstance{}, err
	}
	if err := inst.Validate(); err != nil {
		return ProviderInstance{}, err
	}
	return inst, nil
}

// ParseInstanceList parses the stdout of ListInstances: exactly one JSON
// array of valid instances. The literal null means an empty list; empty
// output is an error.
func ParseInstanceList(data []byte) ([]ProviderInstance, error) {
	var list []ProviderInstance
	if err := decodeOne(data, &list); err != nil {
		return nil, err
	}
	for i := range list {
		if err := list[i].Validate(); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	if list == nil {
		list = []ProviderInstance{}
	}
	return list, nil
}

// ParseStringList parses a JSON array of strings, the output of
// GetSupportedInterfaceVersions. null means an empty list.
func ParseStringList(data []byte) ([]string, error) {
	var list []string
	if err := decodeOne(data, &list); err != nil {
		return nil, err
	}
	if list == nil {
		list = []string{}
	}
	return list, nil
}

// Validate applies the manager's rules to one instance: non-empty
// provider_id and name, and a status among running, stopped, error and
// unknown. Errors wrap ErrInvalidOutput.
func (p ProviderInstance) Validate() error {
	switch {
	case p.ProviderID == "":
		return fmt.Errorf("%w: provider_id is empty", ErrInvalidOutput)
	case p.Name == "":
		return fmt.Errorf("%w: name is empty (provider_id %q)", ErrInvalidOutput, p.ProviderID)
	case !p.Status.Valid():
		return fmt.Errorf("%w: instance %q: status %q is not one of running, stopped, error, unknown",
			ErrInvalidOutput, p.Name, p.Status)
	}
	return nil
}

// decodeOne decodes exactly one JSON document from data into v, allowing
// only JSON whitespace around it. Invalid UTF-8 is rejected rather than
// silently replaced.
func decodeOne(data []byte, v any) error {
	if len(trimJSONSpace(data)) == 0 {
		return fmt.Errorf("%w: empty output", ErrInvalidOutput)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: output is not valid UTF-8", ErrInvalidOutput)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: failed to decode response: %w", ErrInvalidOutput, err)
	}
	if rest := trimJSONSpace(data[dec.InputOffset():]); len(rest) != 0 {
		return fmt.Errorf("%w: trailing data after the JSON document (%d bytes)", ErrInvalidOutput, len(rest))
	}
	return nil
}

// trimJSONSpace removes the four JSON whitespace characters from both ends.
func trimJSONSpace(b []byte) []byte {
	return bytes.Trim(b, " \t\r\n")
}
