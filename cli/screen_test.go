package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestScreenRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		tty  bool
		args []string
		want string
	}{
		{"no terminal", false, []string{"--redis=127.0.0.1:1"}, "needs a terminal"},
		{"interval too short", true, []string{"--interval=100ms"}, "--interval must be at least 250ms"},
		{"flag of another command", true, []string{"--json"}, "does not apply to the screen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{tty: tc.tty}, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestScreenPeekerGivesRawJobs(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	raw := []string{`{"name":"a","id":"1","t":1,"args":{}}`, "not json"}
	for _, r := range raw {
		srv.Do("RPUSH", k.InProgress("a", "p1"), r)
	}
	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	cl := redisq.NewDialerClient(d, "work", 0)
	defer cl.Close()
	got, err := redisq.RawPeeker{Client: cl}.PeekInProgress(context.Background(), "p1", "a", 5)
	if err != nil || strings.Join(got, "|") != strings.Join(raw, "|") {
		t.Fatalf("peek = %q, %v; want %q", got, err, raw)
	}
}
