package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// queueDrainFixture fills work:jobs:send_sms with 30 jobs, every third
// one's arguments holding "bad", and returns the queue's members left to
// right.
func queueDrainFixture(t *testing.T, c redis.Conn) []string {
	t.Helper()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "send_sms")
	for i := range 30 {
		to := fmt.Sprintf("ok-%02d", i)
		if i%3 == 0 {
			to = fmt.Sprintf("bad-%02d", i)
		}
		redistest.Do(t, c, "LPUSH", "work:jobs:send_sms", fmt.Sprintf(`{"name":"send_sms","id":"sms%02d","t":%d,"args":{"to":%q}}`, i, now-100+int64(i), to))
	}
	members, err := redis.Strings(c.Do("LRANGE", "work:jobs:send_sms", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	return members
}

// The queue view's '/', A and P on the program's own reader and actor on
// a real Redis: the dialog shows the plan of the CLI's planner with its
// count, y parks exactly the jobs the query matches (the rest keep their
// order), the status line names the journal, and the view reads the queue
// again; then D deletes by another query.
func TestScreenQueueParkAndDeleteByQuery(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	before := queueDrainFixture(t, c)
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	s.WaitText(15*time.Second, "1 job type ")
	s.Keys("2")
	s.WaitText(10*time.Second, "send_sms")
	s.Keys("Enter")
	s.WaitText(10*time.Second, "queue send_sms", "of 30 in run order")
	s.Keys("/", `args:"bad"`, "Enter")
	s.WaitText(10*time.Second, `1–10 of 10 matching args:"bad"`)
	s.Keys("P")
	s.WaitText(5*time.Second, "P parks the marked jobs: A marks every job the query matches")
	s.Keys("A")
	s.WaitText(5*time.Second, "all 10 matching marked")
	s.Keys("P")
	screen := s.WaitText(10*time.Second, "Park 10 jobs from queue send_sms?", "30 jobs queued when read; 10 jobs", "y: run it")
	if !strings.Contains(screen, "sms00") {
		t.Fatalf("the plan does not list the first job that matches:\n%s", screen)
	}
	s.Keys("y")
	s.WaitFor(10*time.Second, "the jobs parked", func(string) bool {
		n, _ := c.Do("ZCARD", "work:dead")
		return n == int64(10)
	})
	s.WaitText(10*time.Second, "Done: 10 jobs parked; journal ", `no job matches args:"bad"`)
	after, err := redis.Strings(c.Do("LRANGE", "work:jobs:send_sms", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(before), func(m string) bool { return strings.Contains(m, "bad-") })
	if !slices.Equal(after, want) {
		t.Fatalf("the queue after the park:\n%v\nwant the jobs that did not match, in their order:\n%v", after, want)
	}

	s.Keys("/", "Escape")
	s.Keys("/")
	s.WaitText(5*time.Second, `/args:"bad"`)
	s.Keys("C-u", `args:"ok-2"`, "Enter")
	s.WaitText(10*time.Second, `1–7 of 7 matching args:"ok-2"`)
	s.Keys("A", "D")
	s.WaitText(10*time.Second, "Delete 7 jobs from queue send_sms?", "y: run it")
	s.Keys("y")
	s.WaitFor(10*time.Second, "the jobs deleted", func(string) bool {
		n, _ := c.Do("LLEN", "work:jobs:send_sms")
		return n == int64(13)
	})
	s.WaitText(10*time.Second, "Done: 7 jobs deleted; journal ")
	if n := redistest.Do(t, c, "ZCARD", "work:dead"); n != int64(10) {
		t.Errorf("the delete changed the dead set: %v members, want 10", n)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}

// Under --read-only the queue view still filters, but D and P are
// refused with the reason, read nothing for a plan and write nothing.
func TestScreenQueueDrainReadOnly(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	queueDrainFixture(t, c)
	s := redistest.StartTmux(t, 80, 24, []string{"NO_COLOR=1"}, redistest.Binary(t),
		"--redis", srv.Addr(), "--read-only")
	s.WaitText(15*time.Second, "1 job type ")
	s.Keys("2")
	s.WaitText(10*time.Second, "send_sms")
	s.Keys("Enter")
	s.WaitText(10*time.Second, "of 30 in run order")
	s.Keys("/", `args:"bad"`, "Enter")
	s.WaitText(10*time.Second, `1–10 of 10 matching args:"bad"`)
	s.Keys("A")
	s.WaitText(5*time.Second, "all 10 matching marked")
	s.Keys("P")
	s.WaitText(5*time.Second, "read-only: park is disabled")
	s.Keys("D")
	screen := s.WaitText(5*time.Second, "read-only: delete from the queue is disabled")
	if strings.Contains(screen, "y: run it") || strings.Contains(screen, "D delete") {
		t.Fatalf("read-only shows a dialog or the D key:\n%s", screen)
	}
	if n := redistest.Do(t, c, "LLEN", "work:jobs:send_sms"); n != int64(30) {
		t.Fatalf("read-only: the queue holds %v jobs, want 30", n)
	}
	s.Keys("q")
	s.WaitText(5*time.Second, "EXITED 0")
}
