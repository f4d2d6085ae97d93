package provider

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseInstance(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string // substring; "" = success
	}{
		{"ok", `{"provider_id":"i-1","name":"n","status":"running"}`, ""},
		{"ok trailing whitespace", "{\"provider_id\":\"i-1\",\"name\":\"n\",\"status\":\"stopped\"}\n\t \r\n", ""},
		{"ok fault", `{"provider_id":"i","name":"n","status":"error","provider_fault":"Ym9vbQ=="}`, ""},
		{"ok unknown keys ignored", `{"provider_id":"i","name":"n","status":"unknown","x":1}`, ""},
		{"empty", "", "empty output"},
		{"whitespace", "  \n", "empty output"},
		{"null", "null", "provider_id is empty"},
		{"array", `[]`, "failed to decode"},
		{"not json", "hello", "failed to decode"},
		{"truncated", `{"provider_id":"i"`, "failed to decode"},
		{"trailing junk", `{"provider_id":"i","name":"n","status":"running"} garbage`, "trailing data"},
		{"two docs", `{"provider_id":"i","name":"n","status":"running"}{}`, "trailing data"},
		{"wrong type", `{"provider_id":5,"name":"n","status":"running"}`, "failed to decode"},
		{"plain fault", `{"provider_id":"i","name":"n","status":"error","provider_fault":"not base64!"}`, "failed to decode"},
		{"missing name", `{"provider_id":"i","status":"running"}`, "name is empty"},
		{"bad status", `{"provider_id":"i","name":"n","status":"creating"}`, `status "creating"`},
		{"empty status", `{"provider_id":"i","name":"n"}`, `status ""`},
		{"invalid utf8", "{\"provider_id\":\"\xff\",\"name\":\"n\",\"status\":\"running\"}", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInstance([]byte(tt.in))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if got.ProviderID == "" {
					t.Fatalf("empty result")
				}
				return
			}
			if !errors.Is(err, ErrInvalidOutput) {
				t.Fatalf("error %v does not wrap ErrInvalidOutput", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseInstanceList(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantLen int
		wantErr bool
	}{
		{"null is empty", "null", 0, false},
		{"empty array", "[]\n", 0, false},
		{"two", `[{"provider_id":"a","name":"a","status":"running"},{"provider_id":"b","name":"b","status":"stopped"}]`, 2, false},
		{"empty stdout", "", 0, true},
		{"object", `{"provider_id":"a","name":"a","status":"running"}`, 0, true},
		{"bad element", `[{"provider_id":"a","name":"a","status":"running"},{"name":"b"}]`, 0, true},
		{"null element", `[null]`, 0, true},
		{"trailing", `[] []`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInstanceList([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (got == nil || len(got) != tt.wantLen) {
				t.Fatalf("got %#v, want len %d", got, tt.wantLen)
			}
		})
	}
}

func TestBootstrapInstanceKeys(t *testing.T) {
	b, err := json.Marshal(BootstrapInstance{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"name": `"n"`, "tools": "null", "repo_url": `""`, "callback-url": `""`, "metadata-url": `""`,
		"instance-token": `""`, "ssh-keys": "null", "github-runner-group": `""`, "ca-cert-bundle": "null",
		"arch": `""`, "os_type": `""`, "flavor": `""`, "image": `""`, "labels": "null", "pool_id": `""`,
		"user_data_options":  `{"disable_updates_on_boot":false,"extra_packages":null,"enable_boot_debug":false}`,
		"jit_config_enabled": "false",
		"proxy_config":       `{"http_proxy":"","https_proxy":"","no_proxy":""}`,
	}
	if len(m) != len(want) {
		t.Errorf("got %d keys, want %d: %s", len(m), len(want), b)
	}
	for k, v := range want {
		if string(m[k]) != v {
			t.Errorf("key %q = %s, want %s", k, m[k], v)
		}
	}
	b, _ = json.Marshal(BootstrapInstance{ExtraSpecs: json.RawMessage(`{"a":1}`), CACertBundle: []byte("pem")})
	if !strings.Contains(string(b), `"extra_specs":{"a":1}`) || !strings.Contains(string(b), `"ca-cert-bundle":"cGVt"`) {
		t.Errorf("extra_specs/ca-cert-bundle not encoded as expected: %s", b)
	}
}

func TestNormalizeInterfaceVersion(t *testing.T) {
	for in, want := range map[string]string{"": InterfaceV010, "v0.1.0": InterfaceV010, "v0.1.1": InterfaceV011, "v0.2.0": ""} {
		got, ok := NormalizeInterfaceVersion(in)
		if got != want || ok != (want != "") {
			t.Errorf("NormalizeInterfaceVersion(%q) = %q, %v", in, got, ok)
		}
	}
}
