package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

var connections = regexp.MustCompile(`total_connections_received:(\d+)`)

// A file that holds a password is refused when users other than its owner
// can read it, as a configuration file naming a password source is: from
// the flags and from a target, for Redis and for Sentinel. Redis is not
// contacted (the password never leaves a file that leaks it).
func TestSecretFileReadableByOthersRefused(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "s3cret-pw")
	{ // a namespace that is not empty
		c := srv.Dial()
		redistest.Do(t, c, "AUTH", "s3cret-pw")
		redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	}
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("s3cret-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		if err := os.Chmod(pw, mode); err != nil {
			t.Fatal(err)
		}
		cfg := writeConfig(t, 0o600, fmt.Sprintf(`
[targets.byfile]
redis = "%[1]s"
password_file = "%[2]s"

[targets.sentinel]
sentinel = ["%[1]s"]
sentinel_master = "mymaster"
sentinel_password_file = "%[2]s"
`, srv.Addr(), pw))
		for _, args := range [][]string{
			{"--redis=" + srv.Addr(), "--password-file=" + pw, "snapshot"},
			{"--config=" + cfg, "-t", "byfile", "snapshot"},
			{"--sentinel=" + srv.Addr(), "--sentinel-master=mymaster", "--sentinel-password-file=" + pw, "snapshot"},
			{"--config=" + cfg, "-t", "sentinel", "snapshot"},
		} {
			t.Run(fmt.Sprintf("%04o %s", mode, strings.Join(args[:len(args)-1], " ")), func(t *testing.T) {
				c := srv.Dial()
				redistest.Do(t, c, "AUTH", "s3cret-pw")
				redistest.Do(t, c, "CONFIG", "RESETSTAT")
				_, stderr, code := runCLI(t, input{}, args...)
				if code != 1 {
					t.Errorf("exit %d, want 1: %s", code, stderr)
				}
				for _, w := range []string{pw, "other users can read it", fmt.Sprintf("mode %04o", mode), "chmod 600 " + pw} {
					if !strings.Contains(stderr, w) {
						t.Errorf("stderr lacks %q: %q", w, stderr)
					}
				}
				if n := errorLines(stderr); n != 1 {
					t.Errorf("%d error lines, want 1: %q", n, stderr)
				}
				if strings.Contains(stderr, "s3cret") {
					t.Errorf("stderr shows the password: %q", stderr)
				}
				info, _ := redis.String(redistest.Do(t, c, "INFO", "stats"), nil)
				if m := connections.FindStringSubmatch(info); len(m) < 2 || m[1] != "0" {
					t.Errorf("Redis was contacted: %v", m)
				}
			})
		}
	}
	// Owner-only, the same file is used.
	if err := os.Chmod(pw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "--password-file="+pw, "snapshot"); code != 0 {
		t.Errorf("mode 0600: exit %d: %s", code, stderr)
	}
}
