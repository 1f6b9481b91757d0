package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// pgdn in a plan dialog that does not fit scrolls a page, not a line:
// none of the jobs first shown is shown after it.
func TestScreenDialogPagesDown(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	for i := range 30 {
		at := now - 1000 + int64(i)
		redistest.Do(t, c, "ZADD", "work:dead", at, fmt.Sprintf(`{"name":"mail","id":"job%02d","t":1,"args":{},"fails":25,"err":"x","failed_at":%d}`, i, at))
	}
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, "dead jobs 30")
	s.Keys(":", "jobs dead", "Enter")
	s.WaitText(10*time.Second, "job29")
	s.Keys("A")
	time.Sleep(300 * time.Millisecond)
	s.Keys("D")
	before := s.WaitText(10*time.Second, "Delete 30 jobs", "pgdn")
	ids := regexp.MustCompile(`│\s+(job\d\d)\s`)
	first := ids.FindAllStringSubmatch(before, -1)
	if len(first) < 3 {
		t.Fatalf("the dialog shows %d jobs:\n%s", len(first), before)
	}
	s.Keys("PageDown")
	after := s.WaitFor(5*time.Second, "the plan scrolled", func(screen string) bool { return screen != before })
	for _, m := range ids.FindAllStringSubmatch(after, -1) {
		for _, f := range first[:len(first)-1] {
			if m[1] == f[1] {
				t.Fatalf("after pgdn %s is still shown: it scrolled less than a page\nbefore:\n%s\nafter:\n%s", m[1], before, after)
			}
		}
	}
	s.Keys("n")
	s.WaitFor(5*time.Second, "the dialog closed", func(screen string) bool { return screen != after })
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
	if n := redistest.Do(t, c, "ZCARD", "work:dead"); n != int64(30) {
		t.Errorf("the dead set holds %v jobs after a cancelled delete", n)
	}
}
