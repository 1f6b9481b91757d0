package reaper

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// evil is text from Redis that would drive a terminal: an escape sequence,
// a bell, a right-to-left override, an isolate, a C1 control and a byte that
// is not UTF-8.
const evil = "evil\u202ejob\x1b[31m\x07\u2066\u009b\xff"

// rawRune reports the first rune of s that must never reach a terminal raw.
func rawRune(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n':
		case r == unicode.ReplacementChar, unicode.IsControl(r):
			return r, true
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return r, true
		}
	}
	return 0, false
}

// Every plan and result renderer cleans every string that came from Redis:
// job names, pool IDs, keys, lock_info fields and values, error texts.
func TestRenderersCleanRedisText(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	pool := "pool" + evil
	key := "work:jobs:" + evil + ":" + pool + ":inprogress"
	reap := Plan{Namespace: "ns" + evil, RedisTime: now, DeadAfter: 10 * time.Second, Pools: []PoolPlan{{
		PoolID: pool, HeartbeatAt: now.Unix() - 60,
		Jobs: []JobPlan{{JobName: evil, InProgressKey: key, QueueKey: "work:jobs:" + evil, Jobs: 2, LockBefore: 2, LockInfoPresent: true, LockInfoBefore: 2}},
	}}}
	requeue := RequeuePlan{Namespace: "ns" + evil, RedisTime: now, DeadAfter: 10 * time.Second,
		Lists: []ListPlan{{Key: key, JobName: evil, PoolID: pool, QueueKey: "work:jobs:" + evil, Jobs: 3,
			LockPresent: true, LockBefore: 3, LockInfoPresent: true, LockInfoBefore: 3}},
		Missing: []string{key + "2"}}
	locks := LockRepairPlan{Namespace: "ns" + evil, Jobs: []JobLockPlan{{
		JobName: evil, Pools: []string{pool}, InProgress: map[string]int64{pool: 1},
		LockPresent: true, LockBeforeRaw: "x" + evil,
		LockInfoBefore: map[string]string{pool: "7" + evil, "gone" + evil: "1"},
		LockAfter:      1, LockInfoAfter: map[string]int64{pool: 1}, MaxConcurrency: 1,
	}}}
	bad := errors.New("failed on " + evil)
	outputs := map[string]string{}
	render := func(name string, f func(*bytes.Buffer)) {
		var b bytes.Buffer
		f(&b)
		outputs[name] = b.String()
	}
	render("reap plan", func(b *bytes.Buffer) { RenderReapPlan(b, reap) })
	render("reap result", func(b *bytes.Buffer) {
		RenderReapResult(b, Result{Pools: []PoolResult{
			{PoolID: pool, Reaped: true, Moved: map[string]int64{evil: 1}, LocksReleased: map[string]int64{evil: 1}, LockAfter: map[string]int64{evil: 0}},
			{PoolID: pool, Skipped: "skipped " + evil},
			{PoolID: pool, Err: bad},
		}})
	})
	render("requeue plan", func(b *bytes.Buffer) { RenderRequeuePlan(b, requeue) })
	render("requeue result", func(b *bytes.Buffer) {
		RenderRequeueResult(b, RequeueResult{Lists: []ListResult{
			{Key: key, PoolID: pool, Moved: 1},
			{Key: key, PoolID: pool, Skipped: "skipped " + evil},
			{Key: key, PoolID: pool, Err: bad},
		}})
	})
	render("lock repair plan", func(b *bytes.Buffer) { RenderLockRepairPlan(b, locks) })
	render("lock repair result", func(b *bytes.Buffer) {
		RenderLockRepairResult(b, LockRepairResult{Jobs: []JobLockResult{
			{JobName: evil, Applied: true, LockAfter: 1, LockInfoAfter: map[string]int64{pool: 1}},
			{JobName: evil, Err: bad},
		}})
	})
	for name, out := range outputs {
		if r, found := rawRune(out); found {
			t.Errorf("%s: raw %U in output:\n%q", name, r, out)
		}
		if !strings.Contains(out, `evil\u202ejob\x1b[31m`) {
			t.Errorf("%s: the job name is not shown escaped:\n%s", name, out)
		}
	}
}

// With a width, every line fits and no word is lost; wide characters are
// measured in display columns, in the wrapping and in the tables.
func TestPlanTextWidth(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	long := "work:jobs:" + strings.Repeat("送信", 30) + ":pool:inprogress"
	p := RequeuePlan{Namespace: "work", RedisTime: now, DeadAfter: 10 * time.Second,
		Lists: []ListPlan{{Key: long, JobName: "送信", PoolID: "pool", QueueKey: "work:jobs:送信", Jobs: 3}}}
	full := RequeuePlanText(p, 0)
	for _, width := range []int{30, 50, 80} {
		out := RequeuePlanText(p, width)
		for _, l := range strings.Split(out, "\n") {
			if w := textsafe.Width(l); w > width {
				t.Errorf("width %d: line of %d columns: %q", width, w, l)
			}
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if squash(out) != squash(full) {
			t.Errorf("width %d: text changed:\n%s\nwant\n%s", width, out, full)
		}
	}

	reap := ReapPlanText(Plan{RedisTime: now, DeadAfter: 10 * time.Second, Pools: []PoolPlan{{PoolID: "p", HeartbeatMissing: true,
		Jobs: []JobPlan{{JobName: "送信", QueueKey: "q1", Jobs: 1}, {JobName: "mail", QueueKey: "q2", Jobs: 22}}}}}, 0)
	col := func(line, cell string) int {
		i := strings.Index(line, cell)
		if i < 0 {
			t.Fatalf("%q not in %q", cell, line)
		}
		return textsafe.Width(line[:i])
	}
	var a, b string
	for _, l := range strings.Split(reap, "\n") {
		switch {
		case strings.HasPrefix(l, "  送信"):
			a = l
		case strings.HasPrefix(l, "  mail"):
			b = l
		}
	}
	if col(a, "q1") != col(b, "q2") {
		t.Errorf("columns do not line up:\n%s\n%s", a, b)
	}
}
