package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const sentinelDoc = `[targets.s]
sentinel = ["10.0.0.1:26379", "10.0.0.2:26379"]
sentinel_master = "mymaster"
sentinel_user = "mon"
sentinel_password_file = "~/.sentinel.pass"
sentinel_tls = true
replica = true
read_only = true
namespace = "app"
`

func TestParseSentinel(t *testing.T) {
	f, err := Parse("c.toml", []byte(sentinelDoc), 0o600, "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Target("s")
	want := SentinelSettings{Sentinel: []string{"10.0.0.1:26379", "10.0.0.2:26379"}, SentinelMaster: "mymaster",
		SentinelUser: "mon", SentinelPasswordFile: "/home/op/.sentinel.pass", SentinelTLS: true, Replica: true}
	if !reflect.DeepEqual(s.SentinelSettings, want) {
		t.Errorf("got  %+v\nwant %+v", s.SentinelSettings, want)
	}
	wantDesc := []string{`namespace = "app"`, `read_only = true`, `sentinel = ["10.0.0.1:26379", "10.0.0.2:26379"]`,
		`sentinel_master = "mymaster"`, `sentinel_user = "mon"`, `sentinel_password_file = "/home/op/.sentinel.pass"`,
		`sentinel_tls = true`, `replica = true`}
	if got := s.Describe(); !reflect.DeepEqual(got, wantDesc) {
		t.Errorf("Describe:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDesc, "\n"))
	}
}

func TestParseSentinelProblems(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		perm os.FileMode
		want []string
	}{
		{"sentinel and redis", "[targets.a]\nredis = \"x:1\"\nsentinel = [\"s:26379\"]\nsentinel_master = \"m\"\n", 0o600,
			[]string{`c.toml:3: targets.a: give redis or sentinel, not both: with sentinel the sentinels name the Redis address`}},
		{"not host:port", "[targets.a]\nsentinel = [\"s:26379\", \"nohost\"]\nsentinel_master = \"m\"\n", 0o600,
			[]string{`c.toml:2: targets.a.sentinel: "nohost": want host:port`}},
		{"bad port", "[targets.a]\nsentinel = [\"s:99999\"]\nsentinel_master = \"m\"\n", 0o600,
			[]string{`c.toml:2: targets.a.sentinel: "s:99999": the port must be a number from 1 to 65535`}},
		{"one string, not an array", "[targets.a]\nsentinel = \"s:1,t:2\"\nsentinel_master = \"m\"\n", 0o600,
			[]string{`c.toml:2: targets.a.sentinel: want an array of "host:port" strings, not a string`}},
		{"empty array", "[targets.a]\nsentinel = []\nsentinel_master = \"m\"\n", 0o600,
			[]string{`c.toml:2: targets.a.sentinel: must not be empty`}},
		{"no master", "[targets.a]\nsentinel = [\"s:1\"]\n", 0o600,
			[]string{`c.toml:2: targets.a: sentinel needs sentinel_master (the name the sentinels monitor)`}},
		{"master with a space", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m x\"\n", 0o600,
			[]string{`c.toml:3: targets.a.sentinel_master: "m x": want a name without spaces or control characters`}},
		{"sentinel keys without sentinel", "[targets.a]\nsentinel_master = \"m\"\nreplica = true\nread_only = true\n", 0o600,
			[]string{`c.toml:2: targets.a.sentinel_master needs sentinel = ["host:port", ...]`,
				`c.toml:3: targets.a.replica needs sentinel = ["host:port", ...]`}},
		{"sentinel password in the file", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m\"\nsentinel_password = \"x\"\n", 0o600,
			[]string{`c.toml:4: targets.a.sentinel_password: a password is not kept in this file: name a file holding it with sentinel_password_file, or an environment variable with sentinel_password_env`}},
		{"both sentinel password sources", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m\"\nsentinel_password_file = \"/p\"\nsentinel_password_env = \"P\"\n", 0o600,
			[]string{`c.toml:5: targets.a: give sentinel_password_file or sentinel_password_env, not both`}},
		{"bad types", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m\"\nsentinel_tls = \"yes\"\nsentinel_password_env = \"A-B\"\n", 0o600,
			[]string{`c.toml:4: targets.a.sentinel_tls: want true or false, not a string`,
				`c.toml:5: targets.a.sentinel_password_env: "A-B" is not an environment variable name`}},
		{"replica without read_only", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m\"\nreplica = true\n", 0o600,
			[]string{`c.toml:4: targets.a: replica = true needs read_only = true: a replica takes no writes`}},
		{"readable with a sentinel password file", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m\"\nsentinel_password_file = \"/p\"\n", 0o644,
			[]string{`c.toml:4: the file names a password source (sentinel_password_file) but other users can read it (mode 0644): chmod 600 c.toml`}},
		{"readable with a sentinel password env", "[targets.a]\nsentinel = [\"s:1\"]\nsentinel_master = \"m\"\nsentinel_password_env = \"P\"\n", 0o640,
			[]string{`c.toml:4: the file names a password source (sentinel_password_env) but other users can read it (mode 0640): chmod 600 c.toml`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.toml", []byte(tt.doc), tt.perm, "/home/op")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v (%T), want Problems", err, err)
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestMergeSentinel(t *testing.T) {
	_, err := Parse("c.toml", []byte(sentinelDoc+"\n[targets.plain]\nredis = \"r:1\"\nsentinel_password_env = \"X\"\n"), 0o600, "/home/op")
	if err == nil || !strings.Contains(err.Error(), "sentinel_password_env needs sentinel") {
		t.Fatalf("sentinel_password_env without sentinel: %v", err)
	}
	f, err := Parse("c.toml", []byte(sentinelDoc+"\n[targets.plain]\nredis = \"r:1\"\n"), 0o600, "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Target("s")
	plain, _ := f.Target("plain")
	defaults := Settings{Redis: "localhost:6379", Namespace: "work", Timeout: 5 * time.Second}
	fromFile := s.SentinelSettings
	tests := []struct {
		name    string
		target  *Target
		flags   Settings
		changed []string
		want    SentinelSettings
		redis   string
	}{
		{"target's keys over defaults", s, defaults, nil, fromFile, "localhost:6379"},
		{"flags given win", s, func() Settings {
			d := defaults
			d.Sentinel, d.SentinelMaster, d.SentinelUser, d.SentinelPasswordFile = []string{"cli:1"}, "other", "u2", "/cli/pw"
			return d
		}(), []string{"sentinel", "sentinel-master", "sentinel-user", "sentinel-password-file"},
			SentinelSettings{Sentinel: []string{"cli:1"}, SentinelMaster: "other", SentinelUser: "u2", SentinelPasswordFile: "/cli/pw",
				SentinelTLS: true, Replica: true}, "localhost:6379"},
		{"--redis drops the target's sentinels", s, func() Settings { d := defaults; d.Redis = "cli:6379"; return d }(),
			[]string{"redis"}, SentinelSettings{}, "cli:6379"},
		{"--sentinel over a target with redis", plain, func() Settings {
			d := defaults
			d.Sentinel, d.SentinelMaster = []string{"cli:1"}, "m"
			return d
		}(), []string{"sentinel", "sentinel-master"}, SentinelSettings{Sentinel: []string{"cli:1"}, SentinelMaster: "m"}, "r:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := changedFlags(t, tt.changed)
			got := Merge(tt.target, tt.flags, changed)
			if !reflect.DeepEqual(got.SentinelSettings, tt.want) || got.Redis != tt.redis {
				t.Errorf("got  %+v (redis %s)\nwant %+v (redis %s)", got.SentinelSettings, got.Redis, tt.want, tt.redis)
			}
		})
	}
}

func TestSentinelPassword(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("sent\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SENTINEL_PASSWORD": "default", "MINE": "mine"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		s    SentinelSettings
		want string
		err  string
	}{
		{SentinelSettings{SentinelPasswordFile: pw}, "sent", ""},
		{SentinelSettings{SentinelPasswordEnv: "MINE"}, "mine", ""},
		{SentinelSettings{}, "default", ""},
		{SentinelSettings{SentinelPasswordEnv: "UNSET"}, "", "the sentinel password variable UNSET is not set"},
	} {
		got, err := Settings{SentinelSettings: tt.s}.SentinelPassword(getenv)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("%+v: got %q, %v; want %q, %q", tt.s, got, err, tt.want, tt.err)
		}
	}
}
