package tui

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/workq-tui/workq-tui/reaper"
)

// fakeThrottler records the plans it runs and answers as the script would.
type fakeThrottler struct {
	mu    sync.Mutex
	plans []reaper.ThrottlePlan
}

func (f *fakeThrottler) Throttle(_ context.Context, p reaper.ThrottlePlan) (reaper.ThrottleResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans = append(f.plans, p)
	return reaper.ThrottleResult{Name: p.Name, Key: p.Key, New: p.New, Status: reaper.ThrottleDone, Before: "0"}, nil
}

// finishLine types text on the open command line and runs it.
func finishLine(t *testing.T, m Model, text string) Model {
	t.Helper()
	m = drive(t, m, keyMsg(text))
	return press(t, m, "enter")
}

// TestThrottleFromTheScreen: t on a job type opens the command line at
// ":throttle JOB ", a bad limit is one line in the status, a good one
// opens the plan, and y runs it with one audit line.
func TestThrottleFromTheScreen(t *testing.T) {
	o, d := testOptions(staticSource(fixture()))
	th := &fakeThrottler{}
	o.Writes.Throttle = th
	m := selectJobType(t, newTest(t, o, 100, 30), "send_email")
	m = step(t, m, keyMsg("t"))
	if !cmdLineOpen(m) || cmdLineText(m) != "throttle send_email" {
		t.Fatalf("t: command line open %v at %q", cmdLineOpen(m), cmdLineText(m))
	}
	m = finishLine(t, m, "0")
	if !strings.Contains(statusOf(m), "the limit must be a positive integer") || dialogOpen(m) {
		t.Fatalf("limit 0: status %q, dialog %v", statusOf(m), dialogOpen(m))
	}
	m = typeLine(t, m, "throttle send_emial 2", "enter")
	if !strings.Contains(statusOf(m), "unknown job type") {
		t.Fatalf("unknown name: status %q", statusOf(m))
	}
	m = typeLine(t, m, "throttle send_email 2", "enter")
	if !dialogOpen(m) {
		t.Fatalf("no dialog; status %q", statusOf(m))
	}
	view := m.View()
	for _, want := range []string{"Set send_email's max_concurrency to 2?", "after 2; lock now", "SET work:jobs:send_email:max_concurrency 2"} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	m = press(t, m, "y")
	if len(th.plans) != 1 || th.plans[0].New != 2 || th.plans[0].Name != "send_email" {
		t.Fatalf("plans %+v", th.plans)
	}
	if len(d.audit.entries) != 1 || d.audit.entries[0].Action != "throttle" {
		t.Errorf("audit %+v", d.audit.entries)
	}
	if !strings.Contains(statusOf(m), "max_concurrency set to 2") {
		t.Errorf("status %q", statusOf(m))
	}
}

// TestThrottleReadOnly: no t, no :throttle.
func TestThrottleReadOnly(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	o.ReadOnly = true
	m := selectJobType(t, newTest(t, o, 100, 30), "send_email")
	m = step(t, m, keyMsg("t"))
	if cmdLineOpen(m) || dialogOpen(m) {
		t.Fatal("t did something in read-only mode")
	}
	m = typeLine(t, m, "throttle send_email 2", "enter")
	if dialogOpen(m) || !strings.Contains(statusOf(m), "read-only") {
		t.Errorf("read-only :throttle: status %q", statusOf(m))
	}
}

// TestCopyWritesOSC52: c writes the sequence of the job type's name, C the
// command with the prefix; nothing without a clipboard.
func TestCopyWritesOSC52(t *testing.T) {
	o, _ := testOptions(staticSource(fixture()))
	var out bytes.Buffer
	o.Clipboard, o.CommandPrefix = &out, "workq-tui --redis 'h:1'"
	m := selectJobType(t, newTest(t, o, 100, 30), "send_email")
	m = step(t, m, keyMsg("c"))
	if out.String() != "\x1b]52;c;c2VuZF9lbWFpbA==\a" || !strings.Contains(statusOf(m), "copied job type send_email") {
		t.Errorf("c wrote %q, status %q", out.String(), statusOf(m))
	}
	out.Reset()
	m = step(t, m, keyMsg("C"))
	if !strings.Contains(statusOf(m), "copied workq-tui --redis 'h:1' explain send_email") || !strings.HasPrefix(out.String(), "\x1b]52;c;") {
		t.Errorf("C wrote %q, status %q", out.String(), statusOf(m))
	}
	o.Clipboard = nil
	m = selectJobType(t, newTest(t, o, 100, 30), "send_email")
	m = step(t, m, keyMsg("c"))
	if !strings.Contains(statusOf(m), "not available") {
		t.Errorf("without a clipboard: status %q", statusOf(m))
	}
}
