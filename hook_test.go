package garrison

import "testing"

func TestSameHookURL(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://g.example/webhooks/x", "https://g.example/webhooks/x", true},
		{"https://g.example/webhooks/x/", "https://g.example/webhooks/x", true},
		{"HTTPS://G.example/webhooks/X", "https://g.example/webhooks/x", true},
		{"https://g.example/webhooks/x", "https://g.example/webhooks/y", false},
		{"https://g.example/webhooks", "https://g.example/webhooks/x", false},
		{"", "/", true},
	}
	for _, tt := range tests {
		if got := SameHookURL(tt.a, tt.b); got != tt.want {
			t.Errorf("SameHookURL(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
