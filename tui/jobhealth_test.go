package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// healthFixture is a namespace with one job type of each job health kind,
// judged as the reader judges it: charge_card failing (240 failures in
// five minutes, most of them one error), send_sms starving behind four
// export jobs that run for 11 minutes (stuck), refund_card paused with
// jobs waiting, resize backing up on an idle pool, orphan_job served by
// no pool.
func healthFixture() *model.Snapshot {
	now := fixedNow
	ago := func(d time.Duration) int64 { return now.Add(-d).Unix() }
	s := &model.Snapshot{Namespace: "work", RedisTime: now,
		Pools: []model.Pool{
			{ID: "aa11bb22cc33dd44ee55ff66", Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix(), Host: "pay-1", Concurrency: 4,
				JobNames: []string{"charge_card", "export", "refund_card", "send_sms"}, WorkerIDs: []string{"w1", "w2", "w3", "w4"}},
				InProgress: map[string]int64{"export": 4}, LockInfo: map[string]int64{"export": 4}},
			{ID: "bb11bb22cc33dd44ee55ff66", Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix(), Host: "img-1", Concurrency: 2,
				JobNames: []string{"resize"}, WorkerIDs: []string{"w5", "w6"}}},
		},
		JobTypes: []model.JobType{
			{Name: "charge_card"},
			{Name: "export", Lock: 4, LockInfo: map[string]int64{"aa11bb22cc33dd44ee55ff66": 4}},
			{Name: "orphan_job", Queued: 3, OldestEnqueuedAt: ago(4 * time.Minute)},
			{Name: "refund_card", Queued: 85, Paused: true, OldestEnqueuedAt: ago(40 * time.Minute)},
			{Name: "resize", Queued: 12, OldestEnqueuedAt: ago(7 * time.Minute)},
			{Name: "send_sms", Queued: 344, OldestEnqueuedAt: ago(11 * time.Minute)},
		},
	}
	model.Analyze(s, model.DefaultDeadAfter)
	var ws []model.Worker
	for i := 1; i <= 4; i++ {
		ws = append(ws, model.Worker{WorkerID: fmt.Sprintf("w%d", i), PoolID: "aa11bb22cc33dd44ee55ff66", Busy: true,
			JobName: "export", StartedAt: ago(11 * time.Minute)})
	}
	var fs []model.Failure
	for i := 0; i < 240; i++ {
		e := "gateway timeout after Ns (HTTP N)"
		if i%5 == 4 {
			e = "card declined"
		}
		fs = append(fs, model.Failure{At: ago(time.Duration(i) * time.Second), Err: e, Dead: true})
	}
	s.Jobs = model.AssessJobs(s, model.HealthInput{Failures: &model.FailureLog{Jobs: map[string][]model.Failure{"charge_card": fs}}, Workers: ws},
		model.DefaultHealthLimits())
	s.Findings = model.Findings(s)
	return s
}

// The header's first line names the worst problems in words, within 80
// columns; the Job types view marks each type with its kind and its
// failure rate, and says why under the list.
func TestGoldenJobHealth(t *testing.T) {
	o, _ := testOptions(staticSource(healthFixture()))
	out := runProgram(t, o, 80, 24, waitText("charge_card failing"), keyMsg("tab"), waitText("FAIL/M"))
	checkScreen(t, out, 80, 24)
	lines := strings.Split(out, "\n")
	if want := "✖ charge_card failing 48/min (80% gateway timeout) · send_sms waiting 11m · +4"; !strings.HasPrefix(lines[0], want) {
		t.Errorf("first line %q, want it to start %q", lines[0], want)
	}
	for _, want := range []string{"FAILING", "STARVING", "STUCK", "PAUSED", "NO POOL", "BACKLOG", "✖ 6 job problems",
		"charge_card: 240 failures in the last 5m00s, 48/min (floor 5/min"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on screen:\n%s", want, out)
		}
	}
	golden.RequireEqual(t, []byte(out))
}

// The header's line fits any width, naming as many problems as fit and
// counting the others.
func TestProblemsLineFits(t *testing.T) {
	s := healthFixture()
	st := newStyles(asciiRenderer(), defaultTheme())
	for _, w := range []int{40, 60, 80, 120, 200} {
		l := problemsLine(s, w, st)
		if lineWidth(l) > w || !strings.HasPrefix(l, "✖ charge_card") {
			t.Errorf("width %d: %q", w, l)
		}
	}
	if l := problemsLine(s, 300, st); strings.Contains(l, "more") || !strings.Contains(l, "orphan_job unserved") {
		t.Errorf("at 300 columns every problem fits: %q", l)
	}
	if problemsLine(fixture(), 80, st) != "" {
		t.Error("a snapshot without job health problems has a problems line")
	}
}

// FAILING wins over another mark, whose reason the line keeps; the other
// kinds leave a structural mark alone.
func TestHealthMarksOverOtherMarks(t *testing.T) {
	s := healthFixture()
	blocks := map[string]jobBlock{"charge_card": {mark: markBlocked, reason: "charge_card is saturated"},
		"send_sms": {mark: markHeld, reason: "held"}}
	got := withHealthMarks(blocks, s)
	if b := got["charge_card"]; b.mark != markFailing || !strings.HasSuffix(b.reason, "; also BLOCKED: charge_card is saturated") {
		t.Errorf("charge_card: %+v", b)
	}
	if b := got["send_sms"]; b.mark != markHeld {
		t.Errorf("send_sms: %+v", b)
	}
	if blocks["charge_card"].mark != markBlocked {
		t.Error("withHealthMarks changed its argument")
	}
}

// At 60x20 the header still names the worst problem and counts the rest.
func TestGoldenJobHealth60x20(t *testing.T) {
	o, _ := testOptions(staticSource(healthFixture()))
	out := runProgram(t, o, 60, 20, waitText("charge_card failing"), keyMsg("tab"), waitText("STARVING"))
	checkScreen(t, out, 60, 20)
	if first, _, _ := strings.Cut(out, "\n"); first != "✖ charge_card failing 48/min (80% gateway timeout) · +5" {
		t.Errorf("first line %q", first)
	}
	golden.RequireEqual(t, []byte(out))
}

// The brief words keep what an error says went wrong, not the context
// it was wrapped in.
func TestErrCore(t *testing.T) {
	for in, want := range map[string]string{
		"stripe: POST /vN/charges: N gateway timeout": "gateway timeout",
		"stripe: card_declined":                       "card_declined",
		"gateway timeout after Ns (HTTP N)":           "gateway timeout after Ns (HTTP N)",
		"rpc: N":                                      "rpc: N",
		"":                                            "",
	} {
		if got := errCore(in); got != want {
			t.Errorf("errCore(%q) = %q, want %q", in, got, want)
		}
	}
}
