package redisq_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// The monitor ACL the README recommends can read the Redis health (INFO),
// so its snapshots carry no "not readable" warning, and still cannot
// write; one without +info cannot read it.
func TestHealthWithREADMEMonitorACL(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`ACL SETUSER workq-monitor on >PASSWORD ([^`]+)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md recommends no monitor ACL")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	rules := strings.Fields(string(m[1]))
	redistest.Do(t, c, "ACL", append([]any{"SETUSER", "monitor", "on", ">pw"}, toAny(rules)...)...)
	redistest.Do(t, c, "ACL", "SETUSER", "noinfo", "on", ">pw", "~*", "+@read", "+time")
	for _, tc := range []struct {
		user       string
		unreadable bool
	}{{"monitor", false}, {"noinfo", true}} {
		d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), User: tc.user, Password: "pw", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		pool := d.Pool()
		conn := pool.Get()
		h, err := redisq.ReadHealth(context.Background(), conn, redisq.NewKeys("work"))
		if err != nil || h.Unreadable != tc.unreadable || h.Unreported {
			t.Errorf("%s (%v): health %+v, %v; want unreadable %v", tc.user, rules, h, err, tc.unreadable)
		}
		if _, err := conn.Do("SET", "work:x", "1"); err == nil || !strings.Contains(err.Error(), "NOPERM") {
			t.Errorf("%s can write: %v", tc.user, err)
		}
		conn.Close()
		pool.Close()
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
