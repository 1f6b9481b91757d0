package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// U in the program, on a real redis-server, after a requeue whose jobs a
// live pool then took in part: the dialog asks about what is still in the
// queue and says what it leaves; once the pool has taken them all, nothing
// is offered and the history does not call the requeue undone.
func TestScreenUndoCountsWhatIsStillThere(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	requeue := func() {
		t.Helper()
		if out, stderr, code := runCLI(t, input{}, addr, "--audit-log", auditPath, "jobs", "dead", "requeue", "--all", "--yes"); code != 0 {
			t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
		}
	}
	// The first requeue: the pool takes all of it.
	requeue()
	for srv.Do("LLEN", "work:jobs:mail") != int64(0) {
		redistest.Do(t, c, "RPOPLPUSH", "work:jobs:mail", "work:jobs:mail:p1:inprogress")
	}
	// The second: the pool takes 30 of its 40.
	for i := 0; i < 40; i++ {
		redistest.Do(t, c, "ZADD", "work:dead", 1700000000+i, fmt.Sprintf(`{"name":"mail","id":"e%02d","t":1,"args":{},"fails":4,"err":"x"}`, i))
	}
	requeue()
	for i := 0; i < 30; i++ {
		redistest.Do(t, c, "RPOPLPUSH", "work:jobs:mail", "work:jobs:mail:p1:inprogress")
	}
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1", "XDG_CONFIG_HOME=" + t.TempDir()}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", auditPath)
	s.WaitText(15*time.Second, "mail")
	s.Keys("u")
	s.WaitText(5*time.Second, "jobs dead requeue")
	// The cursor is on the newest: the second requeue.
	s.Keys("U")
	s.WaitText(10*time.Second, "put back 10 items?")
	s.WaitText(5*time.Second, "to put back: 10")
	s.WaitText(5*time.Second, "y: run it")
	s.Write("y")
	deadline := time.Now().Add(10 * time.Second)
	for srv.Do("ZCARD", "work:dead") != int64(10) {
		if time.Now().After(deadline) {
			t.Fatalf("the undo did not put back the 10 still queued: %v dead\n%s", srv.Do("ZCARD", "work:dead"), s.Screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := srv.Do("LLEN", "work:jobs:mail:p1:inprogress"); n != int64(70) {
		t.Fatalf("the jobs the pool took were touched: %v in progress", n)
	}
	// The first requeue, all of it taken: U offers nothing.
	s.WaitText(5*time.Second, "screen undo")
	s.Keys("G")
	s.Keys("U")
	s.WaitText(10*time.Second, "nothing to put back")
	if screen := s.Screen(); strings.Contains(screen, "y: run it") {
		t.Fatalf("a dialog opened for an undo that puts nothing back:\n%s", screen)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
	out, _, _ := runCLI(t, input{}, addr, "--audit-log", auditPath, "history")
	if strings.Count(out, "undone by") != 1 {
		t.Fatalf("history:\n%s", out)
	}
}
