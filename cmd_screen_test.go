package main

import (
	"bytes"
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
			var out, errb bytes.Buffer
			e := env{stdin: strings.NewReader(""), stdinIsTTY: tc.tty, stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
			code := exitCode(e.run(context.Background(), tc.args), &errb)
			if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tc.want)
			}
		})
	}
}

func TestScreenPeekerGivesRawJobs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	raw := []string{`{"name":"a","id":"1","t":1,"args":{}}`, "not json"}
	for _, r := range raw {
		if _, err := c.Do("RPUSH", k.InProgress("a", "p1"), r); err != nil {
			t.Fatal(err)
		}
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
