package bench_test

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// screenScaleNS is the namespace of the screen at scale: the shape of
// section 5's big namespace (2 jobs in progress per pool, 1% of the pools
// dead), loaded on its own.
const screenScaleNS = "screen-scale"

// screenScaleRSS is the goal of the screen's resident memory at 10,000
// pools x 50 job types.
const screenScaleRSS = 150 << 20

// screenScale adds the lines of the screen at 10,000 pools x 50 job types
// as the program runs it: the regular poll (redisq.Poller) and the full
// sweep. 5e: the peak resident memory of the real binary in tmux at 200x60
// over several polls and a completed sweep, the live pools' heartbeats
// kept fresh; 5f: Update(regular poll) + View() in process against a 16 ms
// frame, on the Pools view; 5g, 5h: the same on the Job types and Workers
// views; 5j: the bytes a frame of 5f or 5g allocates against a budget.
func (e *env) screenScale() {
	t := e.t
	ps := pollSizes{pools: 10000, jobTypes: 50}
	polls := 5
	if e.sz.smoke {
		ps, polls = pollSizes{pools: 300, jobTypes: 5}, 2
	}
	_, refresh := e.pollNamespace(screenScaleNS, ps)
	// The header's counts: no pool late, 1% dead.
	counts := fmt.Sprintf("%d pools · dead pools %d · %d job types", ps.pools, ps.pools/100, ps.jobTypes)
	size := fmt.Sprintf("%d pools x %d job types, 2 jobs in progress per pool, %d dead, 200x60", ps.pools, ps.jobTypes, ps.pools/100)

	refresh()
	rss, hwm, n := e.screenRSS(screenRun{ns: screenScaleNS, pools: ps.pools, polls: polls, swept: true,
		shows: []string{counts},
		args:  []string{"--sweep-interval", "10m"}, tick: tickEvery(time.Second, refresh)})
	if n < polls {
		t.Fatalf("the screen polled %d times, want at least %d", n, polls)
	}
	e.tb.atMost("5e", "resident memory of the screen / 150 MB", float64(hwm)/screenScaleRSS, 1,
		fmt.Sprintf("peak %d MB (VmHWM), now %d MB (VmRSS); real binary in tmux, %s, after %d polls (the first included) and a full sweep",
			hwm>>20, rss>>20, size, n))

	frames, cpu := e.screenScaleFrames(counts, refresh)
	per := func(b testing.BenchmarkResult) time.Duration { return time.Duration(b.NsPerOp()) }
	detail := func(i int) string {
		b := frames[i]
		return fmt.Sprintf("%s (CPU %s, the collector's included), %d allocs, %d KB per frame", ms(per(b)), ms(cpu[i]), b.AllocsPerOp(), b.AllocedBytesPerOp()>>10)
	}
	e.tb.atMost("5f", "Update(regular poll) + View() / 16 ms frame", float64(per(frames[0]))/float64(frame), frameGoal,
		fmt.Sprintf("%s; Pools view, %s", detail(0), size))
	e.tb.atMost("5g", "Update(regular poll) + View(), Job types view / 16 ms frame", float64(per(frames[1]))/float64(frame), frameGoal,
		fmt.Sprintf("%s; %d job types listed", detail(1), ps.jobTypes))
	e.tb.info("5h", "Update(regular poll) + View(), Workers view / 16 ms frame", float64(per(frames[2]))/float64(frame),
		fmt.Sprintf("%s; %d workers (10 per pool)", detail(2), 10*ps.pools))
	// 5j: the garbage of a poll frame, which does not depend on the
	// machine's load: the larger of the Pools and Job types views.
	worst, view := frames[0], "Pools"
	if frames[1].AllocedBytesPerOp() > worst.AllocedBytesPerOp() {
		worst, view = frames[1], "Job types"
	}
	e.tb.atMost("5j", "bytes allocated per poll frame / 1 MB budget", float64(worst.AllocedBytesPerOp())/pollFrameBudget, 1,
		fmt.Sprintf("%d KB, %d allocs per frame on the %s view (5f, 5g); %s", worst.AllocedBytesPerOp()>>10, worst.AllocsPerOp(), view, size))
}

// frameGoal is the share of a 16 ms frame a poll frame may take at 10,000
// pools x 50 job types (5f, 5g): a quarter, so that the screen keeps up
// with keys while it polls on a slow laptop.
const frameGoal = 0.25

// pollFrameBudget is the most a poll frame may allocate at 10,000 pools x
// 50 job types (5j). Allocations are deterministic where time is not;
// TestPollFrameAllocations in tui holds the same budget in make test.
const pollFrameBudget = 1 << 20

// sgr matches the colour and style sequences a frame holds.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// tickEvery runs f when it is called at least every d.
func tickEvery(d time.Duration, f func()) func() {
	var last time.Time
	return func() {
		if time.Since(last) >= d {
			f()
			last = time.Now()
		}
	}
}

// screenScaleFrames times Update(regular poll) + View() in process on the
// Pools, Job types and Workers views, the screen built as the program
// builds it (a Poller and a Sweeper on the namespace), after its first
// poll and its first sweep.
func (e *env) screenScaleFrames(counts string, refresh func()) (out [3]testing.BenchmarkResult, cpu [3]time.Duration) {
	t := e.t
	client := redisq.NewClient(redisq.OneConn(e.dial()), screenScaleNS, 0)
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	var now time.Time
	m := tui.New(tui.Options{Address: e.srv.Addr(), Namespace: screenScaleNS, Interval: time.Hour,
		Now: func() time.Time { return now }, Renderer: r, Reads: tui.Reads{Poll: redisq.NewPoller(client), Sweep: client}})
	var scr tea.Model = m
	scr, _ = scr.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	batch, ok := m.Init()().(tea.BatchMsg)
	if !ok || len(batch) < 3 {
		t.Fatal("Init does not start with a poll and a sweep")
	}
	// Init's commands: the poll, the sweep, the clock. The poll command
	// polls each time it runs: the first reads every heartbeat whole, the
	// next is the regular poll.
	poll, sweep := batch[0], batch[1]
	refresh()
	first := poll()
	if name := fmt.Sprintf("%T", first); name != "tui.snapshotMsg" {
		t.Fatalf("Init's first command returned a %s, not the snapshot", name)
	}
	now = time.Now()
	scr, _ = scr.Update(first)
	refresh()
	swept := sweep()
	if name := fmt.Sprintf("%T", swept); name != "tui.sweepMsg" {
		t.Fatalf("Init's second command returned a %s, not the sweep", name)
	}
	scr, _ = scr.Update(swept)
	// Two regular polls take turns below, so that no frame is given a
	// snapshot the screen has seen: each is a poll's work, as at every
	// interval.
	var regular [2]tea.Msg
	for i := range regular {
		refresh()
		regular[i] = poll()
		scr, _ = scr.Update(regular[i])
	}
	v := sgr.ReplaceAllString(scr.View(), "")
	for _, want := range []string{counts, "swept "} {
		if !strings.Contains(v, want) {
			t.Fatalf("the screen does not show %q:\n%s", want, v)
		}
	}

	// The views in tab order: Pools, Job types, Orphans, Workers; each is
	// known by a column title only it has.
	tab := tea.KeyMsg{Type: tea.KeyTab}
	for i, v := range []struct {
		tabs   int
		column string
	}{{0, "HOST:PID"}, {1, "LOCKINFO"}, {2, "CHECKIN"}} {
		for range v.tabs {
			scr, _ = scr.Update(tab)
		}
		if s := scr.View(); !strings.Contains(s, v.column) {
			t.Fatalf("the view with the column %s is not shown:\n%s", v.column, s)
		}
		frames := 0
		cpu0 := processCPU(t)
		out[i] = testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for n := 0; n < b.N; n++ {
				scr, _ = scr.Update(regular[n%2])
				_ = scr.View()
			}
			frames += b.N
		})
		cpu[i] = (processCPU(t) - cpu0) / time.Duration(max(frames, 1))
	}
	return out, cpu
}
