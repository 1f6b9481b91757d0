package reliability_test

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestTLSThroughTheBinary: the built binary reads a TLS-only redis-server
// with rediss:// and --tls-ca; with another CA every command and the
// screen say the certificate is not trusted (one line, exit 1 for
// commands), and nothing is read over an untrusted connection.
func TestTLSThroughTheBinary(t *testing.T) {
	srv, files := redistest.StartTLS(t)
	caFile := files.CAFile
	otherCA := redistest.WriteCA(t, t.TempDir(), "other-ca", false).CAFile
	url := "--redis=rediss://" + srv.Addr()

	// The server holds no gocraft/work key: the snapshot reads it over TLS
	// and says the namespace is empty (exit 1, the search done).
	if r := runCLI(t, nil, url, "--tls-ca="+caFile, "snapshot", "--json"); r.Code != 1 || !strings.Contains(r.Stdout, `"pools"`) || !strings.Contains(r.Stderr, "no gocraft/work keys") {
		t.Fatalf("snapshot over TLS: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, args := range [][]string{{"snapshot"}, {"reap", "--all-dead", "--yes"}, {"requeue", "work:jobs:a:p:inprogress", "--yes"}, {"repair-locks", "a", "--yes"}} {
		r := runCLI(t, nil, append([]string{url, "--tls-ca=" + otherCA}, args...)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "TLS certificate not trusted") {
			t.Errorf("%v with another CA: exit %d, stderr %q", args, r.Code, r.Stderr)
		}
		oneLine(t, strings.Join(args, " "), r.Stderr)
	}
	s := startTmux(t, 160, 30, nil, url, "--tls-ca="+otherCA, "--read-only", "--interval=250ms")
	s.WaitText(10*time.Second, "certificate not trusted")
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
