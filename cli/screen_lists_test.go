package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// deadJob is a member of <ns>:dead as gocraft/work v0.5.1 writes it.
func deadJob(name, id string, diedAt int64, err string) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"n":1},"fails":4,"err":%q,"failed_at":%d}`, name, id, diedAt-30, err, diedAt)
}

// cursorLine is the line of the screen the cursor is on ("> " in front).
func cursorLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), ">") {
			return l
		}
	}
	return ""
}

// TestScreenJobsFollowPolls runs the program at 80x24 on a real Redis:
// a death written while the Jobs view is open appears within two polls,
// the cursor staying on its job and the title counting the new one, and
// so does one that a query in force matches; S with a query counts what
// the query matches, not the whole set.
func TestScreenJobsFollowPolls(t *testing.T) {
	srv := redistest.Start(t)
	seedDeadPool(t, srv, "work", poolA, "send_email")
	k := redisq.NewKeys("work")
	dead := redisq.SetKey(k, model.SetDead)
	now := redistest.Time(t, srv.Dial()).Unix()
	for i := range 20 {
		srv.Do("ZADD", dead, now-600-int64(i)*60, deadJob("send_email", fmt.Sprintf("se%02d", i), now-600-int64(i)*60, "smtp 421"))
	}
	for i := range 10 {
		srv.Do("ZADD", dead, now-7200-int64(i)*60, deadJob("resize_image", fmt.Sprintf("ri%02d", i), now-7200-int64(i)*60, "too large"))
	}
	const interval = time.Second
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--read-only", "--interval", interval.String(),
		"--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, "DEAD", "dead jobs 30")
	s.Keys("BTab")
	s.WaitText(10*time.Second, "[dead 30]", "1-20 of 30", "se00")
	s.Keys("j", "j", "j")
	screen := s.WaitFor(5*time.Second, "the cursor on se03", func(sc string) bool { return strings.Contains(cursorLine(sc), "se03") })
	if strings.Contains(screen, "charge_card") {
		t.Fatalf("a death before it was written:\n%s", screen)
	}

	srv.Do("ZADD", dead, now, deadJob("charge_card", "cc01", now, "gateway timeout after 30s (HTTP 504)"))
	written := time.Now()
	screen = s.WaitText(2*interval+1500*time.Millisecond, "charge_card", "[dead 31]", "1 new since opened", "1-20 of 31")
	t.Logf("the death appeared %s after it was written (interval %s)", time.Since(written).Round(10*time.Millisecond), interval)
	if l := cursorLine(screen); !strings.Contains(l, "se03") {
		t.Errorf("the cursor left se03 for %q:\n%s", l, screen)
	}

	// S with a query counts what the query matches, read fresh.
	s.Keys("/", "resize", "Enter")
	s.WaitText(10*time.Second, "where resize", "1-10 of 10")
	// A matching death comes in with the query in force.
	srv.Do("ZADD", dead, now-1, deadJob("resize_image", "ri99", now-1, "too large"))
	s.WaitText(2*interval+1500*time.Millisecond, "ri99", "[dead 32]", "1 new since opened", "where resize")
	s.Keys("S")
	screen = s.WaitText(10*time.Second, "summary of dead where resize: 11 members")
	if strings.Contains(screen, "send_email") || strings.Contains(screen, "charge_card") {
		t.Errorf("the summary counts jobs the query does not match:\n%s", screen)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
