package redisq

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestTLSConnection(t *testing.T) {
	srv, files := redistest.StartTLS(t)
	caFile := files.CAFile
	url := "rediss://" + srv.Addr()

	t.Run("trusted CA", func(t *testing.T) {
		d, err := NewDialer(Options{Address: url, TLSCAFile: caFile, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Dial(context.Background())
		if err != nil {
			t.Fatalf("dial over TLS: %v", err)
		}
		defer c.Close()
		if _, err := redis.Values(c.Do("TIME")); err != nil {
			t.Fatalf("TIME over TLS: %v", err)
		}
		if got := d.Endpoint().String(); got != url {
			t.Errorf("endpoint shown as %q, want %q", got, url)
		}
	})

	t.Run("wrong CA", func(t *testing.T) {
		otherFile := redistest.WriteCA(t, t.TempDir(), "some other CA", false).CAFile
		d, err := NewDialer(Options{Address: url, TLSCAFile: otherFile, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Dial(context.Background())
		if err == nil {
			t.Fatal("dial with the wrong CA succeeded")
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("error is not one line: %q", msg)
		}
		for _, want := range []string{srv.Addr(), "TLS certificate not trusted", "--tls-ca"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not mention %q", msg, want)
			}
		}
	})

	t.Run("plain client on a TLS port", func(t *testing.T) {
		d, err := NewDialer(Options{Address: srv.Addr(), Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Dial(context.Background())
		if err == nil {
			// The TCP connect succeeds; the first command must fail.
			_, err = c.Do("TIME")
			c.Close()
		}
		if err == nil {
			t.Fatal("a plain-text client talked to a TLS-only server")
		}
	})

	t.Run("CA file that is not PEM", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.crt")
		if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := NewDialer(Options{Address: url, TLSCAFile: bad})
		if err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
			t.Fatalf("want a clear error for a CA file without PEM, got %v", err)
		}
	})
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		want    string
		user    string
		wantErr string
	}{
		{name: "default", opts: Options{}, want: "localhost:6379"},
		{name: "host:port", opts: Options{Address: "10.0.0.5:6380"}, want: "10.0.0.5:6380"},
		{name: "bare host", opts: Options{Address: "redis.internal"}, want: "redis.internal:6379"},
		{name: "ipv6", opts: Options{Address: "[::1]:7000"}, want: "[::1]:7000"},
		{name: "url", opts: Options{Address: "redis://cache:6390/3"}, want: "cache:6390/3"},
		{name: "url without port", opts: Options{Address: "redis://cache"}, want: "cache:6379"},
		{name: "tls url", opts: Options{Address: "rediss://cache:6390"}, want: "rediss://cache:6390"},
		{name: "url user", opts: Options{Address: "redis://ops@cache:6379"}, want: "cache:6379", user: "ops"},
		{name: "--db wins over url", opts: Options{Address: "redis://cache/3", DB: 5}, want: "cache:6379/5"},
		{name: "password in url refused", opts: Options{Address: "redis://ops:hunter2@cache:6379"}, wantErr: "REDIS_PASSWORD"},
		{name: "bad scheme", opts: Options{Address: "http://cache"}, wantErr: "redis:// or rediss://"},
		{name: "bad db", opts: Options{Address: "redis://cache/x"}, wantErr: "invalid database"},
		{name: "bad port", opts: Options{Address: "cache:http"}, wantErr: "invalid port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep, err := tt.opts.Endpoint()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error containing %q, got %v", tt.wantErr, err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ep.String(); got != tt.want {
				t.Errorf("endpoint %q, want %q", got, tt.want)
			}
			if ep.User != tt.user {
				t.Errorf("user %q, want %q", ep.User, tt.user)
			}
		})
	}
}
