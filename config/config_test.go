package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const good = `# two deployments
[targets.prod-eu]
redis = "rediss://monitor@redis-eu.internal:6380/0"
namespace = "myapp"
password_file = "~/.config/workq-tui/prod-eu.pass"
tls_ca = "/etc/ssl/internal-ca.pem"
read_only = true

[targets.staging]
redis = "localhost:6390"
db = 2
user = "ops"
password_env = "STAGING_REDIS_PASSWORD"
tls = true
tls_skip_verify = true
timeout = "2s"
dead_after = "30s"

[targets]
inline = { redis = "10.0.0.1:6379", namespace = "batch" }
`

func TestParseGood(t *testing.T) {
	f, err := Parse("config.toml", []byte(good), 0o600, "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Names(), []string{"inline", "prod-eu", "staging"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	eu, _ := f.Target("prod-eu")
	wantEU := Settings{Redis: "rediss://monitor@redis-eu.internal:6380/0", Namespace: "myapp",
		PasswordFile: "/home/op/.config/workq-tui/prod-eu.pass", TLSCA: "/etc/ssl/internal-ca.pem", ReadOnly: true}
	if !reflect.DeepEqual(eu.Settings, wantEU) {
		t.Errorf("prod-eu = %+v\nwant %+v", eu.Settings, wantEU)
	}
	if eu.Line != 2 || eu.File != "config.toml" {
		t.Errorf("prod-eu at %s:%d, want config.toml:2", eu.File, eu.Line)
	}
	st, _ := f.Target("staging")
	wantST := Settings{Redis: "localhost:6390", DB: 2, User: "ops", PasswordEnv: "STAGING_REDIS_PASSWORD",
		TLS: true, TLSSkipVerify: true, Timeout: 2 * time.Second, DeadAfter: 30 * time.Second}
	if !reflect.DeepEqual(st.Settings, wantST) {
		t.Errorf("staging = %+v\nwant %+v", st.Settings, wantST)
	}
	in, _ := f.Target("inline")
	if in.Redis != "10.0.0.1:6379" || in.Namespace != "batch" || !in.Has("namespace") || in.Has("db") {
		t.Errorf("inline = %+v", in)
	}
	if _, err := f.Target("nope"); !errors.Is(err, ErrNoTarget) || !strings.Contains(err.Error(), "inline, prod-eu, staging") {
		t.Errorf("missing target: %v", err)
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		perm fs.FileMode
		want []string // the lines of the error, in order
	}{
		{"unknown keys, each with its line",
			"[targets.a]\nredis = \"x:1\"\ncolour = \"red\"\n\n[targets.b]\nreadonly = true\n",
			0o600, []string{
				`c.toml:3: targets.a.colour: unknown key (the keys are redis, namespace, db, user, password_file, password_env, tls, tls_ca, tls_skip_verify, timeout, dead_after, read_only, sentinel, sentinel_master, sentinel_user, sentinel_password_file, sentinel_password_env, sentinel_tls, replica, fail_window, fail_baseline, fail_floor, fail_multiple, wait_limit, starve_after, paused_limit, checkin_limit)`,
				`c.toml:6: targets.b.readonly: unknown key (the keys are redis, namespace, db, user, password_file, password_env, tls, tls_ca, tls_skip_verify, timeout, dead_after, read_only, sentinel, sentinel_master, sentinel_user, sentinel_password_file, sentinel_password_env, sentinel_tls, replica, fail_window, fail_baseline, fail_floor, fail_multiple, wait_limit, starve_after, paused_limit, checkin_limit)`,
			}},
		{"unknown top-level key", "verbose = true\n", 0o600,
			[]string{`c.toml:1: unknown key "verbose": the file holds [targets.NAME], [keys], [columns.VIEW] and [queries] tables`}},
		{"password in the file", "[targets.a]\nredis = \"x:1\"\npassword = \"hunter2\"\n", 0o600,
			[]string{`c.toml:3: targets.a.password: a password is not kept in this file: name a file holding it with password_file, or an environment variable with password_env`}},
		{"password in the URL", "[targets.a]\nredis = \"redis://u:hunter2@x:1\"\n", 0o600,
			[]string{`c.toml:2: targets.a.redis: the URL holds a password: name a file holding it with password_file, or an environment variable with password_env`}},
		{"password in the URL's query", "[targets.a]\nredis = \"redis://x:1/0?password=hunter2\"\n", 0o600,
			[]string{`c.toml:2: targets.a.redis: the URL holds a password: name a file holding it with password_file, or an environment variable with password_env`}},
		{"password in a query parameter of another name", "[targets.a]\nredis = \"rediss://x:1?db=2&requirePass=hunter2\"\n", 0o600,
			[]string{`c.toml:2: targets.a.redis: the URL holds a password: name a file holding it with password_file, or an environment variable with password_env`}},
		{"a query in the URL", "[targets.a]\nredis = \"redis://x:1/0?db=2\"\n", 0o600,
			[]string{`c.toml:2: targets.a.redis: invalid redis URL: it takes no query (?KEY=...) or fragment (#...): expected redis://[user@]host[:port][/db] or rediss://`}},
		{"bad values, all of them", "[targets.a]\ndb = -1\ntls = \"yes\"\ntimeout = 5\ndead_after = \"soon\"\nnamespace = \"\"\npassword_env = \"MY-VAR\"\nredis = \"ftp://x\"\n", 0o600,
			[]string{
				`c.toml:2: targets.a.db: -1 is not a database number`,
				`c.toml:3: targets.a.tls: want true or false, not a string`,
				`c.toml:4: targets.a.timeout: want a duration in quotes, such as "5s", not an integer`,
				`c.toml:5: targets.a.dead_after: "soon" is not a positive duration such as "5s"`,
				`c.toml:6: targets.a.namespace: must not be empty`,
				`c.toml:7: targets.a.password_env: "MY-VAR" is not an environment variable name`,
				`c.toml:8: targets.a.redis: invalid redis URL scheme "ftp": use redis:// or rediss://`,
			}},
		{"both password sources", "[targets.a]\npassword_file = \"/p\"\npassword_env = \"P\"\n", 0o600,
			[]string{`c.toml:3: targets.a: give password_file or password_env, not both`}},
		{"bad target name", "[targets.\"a b\"]\nredis = \"x:1\"\n", 0o600,
			[]string{`c.toml:1: target name "a b": use letters, digits, '.', '_' and '-', starting with a letter or digit`}},
		{"target not a table", "[targets]\na = 1\n", 0o600,
			[]string{`c.toml:2: targets.a must be a table of connection settings`}},
		{"syntax error", "[targets.a]\nredis = \"x:1\"\ndb = = 2\n", 0o600, nil},
		{"readable by others with a password file", "[targets.a]\nredis = \"x:1\"\n\n[targets.b]\npassword_file = \"/run/pw\"\n", 0o644,
			[]string{`c.toml:5: the file names a password source (password_file) but other users can read it (mode 0644): chmod 600 c.toml`}},
		{"readable by group with a password env", "[targets.b]\npassword_env = \"PW\"\n", 0o640,
			[]string{`c.toml:2: the file names a password source (password_env) but other users can read it (mode 0640): chmod 600 c.toml`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.toml", []byte(tt.doc), tt.perm, "/home/op")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v (%T), want Problems", err, err)
			}
			if tt.want == nil { // a syntax error: the library's message, with the line
				if len(ps) != 1 || ps[0].Line != 3 || strings.Contains(ps[0].Msg, "\n") {
					t.Fatalf("syntax error reported as %q", err)
				}
				return
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestReadableWithoutPasswordIsFine(t *testing.T) {
	if _, err := Parse("c.toml", []byte("[targets.a]\nredis = \"x:1\"\n"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
}

func TestTildeWithoutHome(t *testing.T) {
	_, err := Parse("c.toml", []byte("[targets.a]\ntls_ca = \"~/ca.pem\"\n"), 0o600, "")
	if err == nil || err.Error() != "c.toml:2: targets.a.tls_ca: starts with ~ but HOME is not set" {
		t.Fatalf("err = %v", err)
	}
}

func TestMerge(t *testing.T) {
	f, err := Parse("c.toml", []byte(good), 0o600, "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	defaults := Settings{Redis: "localhost:6379", Namespace: "work", Timeout: 5 * time.Second, DeadAfter: 10 * time.Second}
	eu, _ := f.Target("prod-eu")
	st, _ := f.Target("staging")
	tests := []struct {
		name    string
		target  *Target
		flags   Settings
		changed []string
		want    Settings
	}{
		{"no target: the flags", nil, defaults, nil, defaults},
		{"target over defaults", eu, defaults, nil, Settings{Redis: eu.Redis, Namespace: "myapp", Timeout: 5 * time.Second,
			DeadAfter: 10 * time.Second, PasswordFile: eu.PasswordFile, TLSCA: eu.TLSCA, ReadOnly: true}},
		{"flags set on the command line win", st,
			Settings{Redis: "other:1", Namespace: "work", DB: 0, Timeout: 9 * time.Second, DeadAfter: 10 * time.Second, PasswordFile: "/cli/pw"},
			[]string{"redis", "db", "timeout", "password-file"},
			Settings{Redis: "other:1", Namespace: "work", DB: 0, User: "ops", PasswordFile: "/cli/pw", TLS: true, TLSSkipVerify: true,
				Timeout: 9 * time.Second, DeadAfter: 30 * time.Second}},
		{"read_only target stays read-only", eu, defaults, []string{"read-only"}, Settings{Redis: eu.Redis, Namespace: "myapp",
			Timeout: 5 * time.Second, DeadAfter: 10 * time.Second, PasswordFile: eu.PasswordFile, TLSCA: eu.TLSCA, ReadOnly: true}},
		{"--read-only makes any target read-only", st, func() Settings { s := defaults; s.ReadOnly = true; return s }(), []string{"read-only"},
			Settings{Redis: "localhost:6390", Namespace: "work", DB: 2, User: "ops", PasswordEnv: "STAGING_REDIS_PASSWORD", TLS: true,
				TLSSkipVerify: true, Timeout: 2 * time.Second, DeadAfter: 30 * time.Second, ReadOnly: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := changedFlags(t, tt.changed)
			if got := Merge(tt.target, tt.flags, changed); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestPassword(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"REDIS_PASSWORD": "from-default", "MINE": "from-mine"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name    string
		s       Settings
		want    string
		wantErr string
	}{
		{"file", Settings{PasswordFile: pwFile}, "s3cret", ""},
		{"named variable", Settings{PasswordEnv: "MINE"}, "from-mine", ""},
		{"REDIS_PASSWORD", Settings{}, "from-default", ""},
		{"unset named variable", Settings{PasswordEnv: "UNSET"}, "", "the password variable UNSET is not set"},
		{"missing file", Settings{PasswordFile: filepath.Join(dir, "none")}, "", "read password file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := tt.s.Options(getenv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || o.Password != tt.want {
				t.Fatalf("password %q, %v; want %q", o.Password, err, tt.want)
			}
		})
	}
}

func TestDefaultPathAndLoad(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": dir, "HOME": "/home/op"}
	getenv := func(k string) string { return env[k] }
	p, err := DefaultPath(getenv)
	if err != nil || p != filepath.Join(dir, "workq-tui", "config.toml") {
		t.Fatalf("DefaultPath = %q, %v", p, err)
	}
	f, err := LoadDefault(getenv)
	if err != nil || len(f.Names()) != 0 {
		t.Fatalf("missing default file: %v, %v", f, err)
	}
	if _, err := Load(filepath.Join(dir, "none.toml"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load of a missing file: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("[targets.a]\npassword_env = \"PW\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDefault(getenv); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable file with a password reference: %v", err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = LoadDefault(getenv)
	if err != nil || f.Names()[0] != "a" || f.Path != p {
		t.Fatalf("LoadDefault = %v, %v", f, err)
	}
	delete(env, "XDG_CONFIG_HOME")
	if p, _ := DefaultPath(getenv); p != "/home/op/.config/workq-tui/config.toml" {
		t.Fatalf("DefaultPath without XDG_CONFIG_HOME = %q", p)
	}
	delete(env, "HOME")
	if _, err := LoadDefault(getenv); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("LoadDefault without a default path: %v", err)
	}
}

func TestDescribeNeverHoldsAPassword(t *testing.T) {
	f, err := Parse("c.toml", []byte(good), 0o600, "/home/op")
	if err != nil {
		t.Fatal(err)
	}
	eu, _ := f.Target("prod-eu")
	want := []string{
		`redis = "rediss://monitor@redis-eu.internal:6380/0"`,
		`namespace = "myapp"`,
		`password_file = "/home/op/.config/workq-tui/prod-eu.pass"`,
		`tls_ca = "/etc/ssl/internal-ca.pem"`,
		`read_only = true`,
	}
	if got := eu.Describe(); !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st, _ := f.Target("staging")
	if got := strings.Join(st.Describe(), "\n"); !strings.Contains(got, `password_env = "STAGING_REDIS_PASSWORD"`) || !strings.Contains(got, `timeout = "2s"`) {
		t.Errorf("Describe(staging):\n%s", got)
	}
	if got := eu.Summary(); got != "prod-eu  rediss://monitor@redis-eu.internal:6380/0  namespace myapp  read-only" {
		t.Errorf("Summary = %q", got)
	}
}

// changedFlags is Merge's changed for a command line that gave the flags
// named; asking about a flag that is not a connection flag fails the test.
func changedFlags(t *testing.T, given []string) func(string) bool {
	return func(f string) bool {
		if _, ok := FlagKeys()[f]; !ok {
			t.Errorf("Merge asked about %q, which is not a connection flag", f)
		}
		return slices.Contains(given, f)
	}
}

func TestParseHealthKeys(t *testing.T) {
	f, err := Parse("c.toml", []byte("[targets.a]\nfail_window = \"2m\"\nfail_floor = 20\nfail_multiple = 2.5\nwait_limit = \"90s\"\n"), 0o600, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := f.Target("a")
	want := map[string]string{"fail_window": "2m0s", "fail_floor": "20", "fail_multiple": "2.5", "wait_limit": "1m30s"}
	for k, v := range want {
		if tg.Health[k] != v {
			t.Errorf("%s = %q, want %q", k, tg.Health[k], v)
		}
	}
	_, err = Parse("c.toml", []byte("[targets.a]\nfail_multiple = 0.5\nstarve_after = \"0s\"\n"), 0o600, "/home/u")
	if err == nil || !strings.Contains(err.Error(), "c.toml:2: targets.a.fail_multiple: 0.5 is not a multiple of 1 or more") ||
		!strings.Contains(err.Error(), `c.toml:3: targets.a.starve_after: "0s" is not a positive duration`) {
		t.Errorf("err = %v", err)
	}
}
