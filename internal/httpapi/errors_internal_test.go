package httpapi

import (
	"testing"
)

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0b7c6f1e-1111-4222-8333-444455556666":   true,
		"0B7C6F1E-1111-4222-8333-444455556666":   true,
		"0b7c6f1e111142228333444455556666":       false,
		"0b7c6f1e-1111-4222-8333-44445555666g":   false,
		"{0b7c6f1e-1111-4222-8333-444455556666}": false,
		"":                                       false,
	} {
		if isUUID(s) != want {
			t.Errorf("isUUID(%q) = %v", s, !want)
		}
	}
}

func TestValidateName(t *testing.T) {
	for name, ok := range map[string]bool{"github.com": true, "ghes_prod-1": true, "": false, "a/b": false,
		"a b": false, "x%2F": false, string(make([]byte, MaxNameLen+1)): false} {
		if (validateName(name) == nil) != ok {
			t.Errorf("validateName(%q) ok = %v", name, !ok)
		}
	}
}
