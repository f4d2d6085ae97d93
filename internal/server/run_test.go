package server

import (
	"net"
	"testing"
)

func TestListenURL(t *testing.T) {
	tests := []struct {
		addr string
		tls  bool
		want string
	}{
		{"127.0.0.1:9997", false, "http://127.0.0.1:9997"},
		{"0.0.0.0:9997", false, "http://127.0.0.1:9997"},
		{"[::]:9997", true, "https://[::1]:9997"},
		{"192.0.2.7:443", true, "https://192.0.2.7:443"},
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := listenURL(addr, tt.tls); got != tt.want {
			t.Errorf("listenURL(%s, %v) = %q, want %q", tt.addr, tt.tls, got, tt.want)
		}
	}
}
