package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// wideTexts are names that take more or fewer columns than runes: CJK and
// emoji (two columns each), a combining accent and a zero-width space
// (none), long enough to be cut at 80 columns and not at 140.
var wideTexts = []string{
	"死んだホスト🙈",
	"日本語のジョブ名前です🙈🙈",
	"e\u0301te\u0301-caf\u00e9-re\u0301sume\u0301-host",
	"zero\u200bwidth\u200bjoiner\u200dhost",
	"ascii-host",
}

func wideSnapshot() *model.Snapshot {
	rt := fixedNow.Add(-2 * time.Second)
	s := &model.Snapshot{Namespace: "work", RedisTime: rt, DeadAfter: model.DefaultDeadAfter}
	for i, w := range wideTexts {
		id := strings.Repeat(string(rune('a'+i)), 4) + w
		s.Pools = append(s.Pools, model.Pool{ID: id,
			Heartbeat:  &model.Heartbeat{HeartbeatAt: rt.Add(-time.Duration(i) * time.Minute).Unix(), StartedAt: rt.Add(-time.Hour).Unix(), Host: w, PID: 4242, Concurrency: 10, JobNames: []string{w, "send_email"}},
			InProgress: map[string]int64{w: int64(i + 1)}, LockInfo: map[string]int64{w: int64(i + 1)}})
		s.JobTypes = append(s.JobTypes, model.JobType{Name: w + w, Queued: int64(i), Lock: 1, MaxConcurrency: 3, Drift: i%2 == 0})
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

func wideOrphans() []model.InProgressList {
	var out []model.InProgressList
	for _, w := range wideTexts {
		out = append(out, model.InProgressList{Key: "work:jobs:" + w + ":" + w + w + ":inprogress", JobName: w + w, PoolID: w + w + w, Length: 3})
	}
	return out
}

// checkAligned fails unless every line of a table takes exactly as many
// columns as its title line: a cell one column short moves every later
// column of its row.
func checkAligned(t *testing.T, table string, skip int) {
	t.Helper()
	lines := strings.Split(table, "\n")[skip:]
	want := textsafe.Width(lines[0])
	for i, l := range lines[1:] {
		if l == "" {
			continue
		}
		if got := textsafe.Width(l); got != want {
			t.Errorf("row %d is %d columns wide, its titles %d:\n%s\n%s", i+1, got, want, lines[0], l)
		}
	}
}

func TestWideCharactersAlignInEveryTable(t *testing.T) {
	st := newStyles(asciiRenderer(), defaultTheme())
	snap := wideSnapshot()
	orphans := wideOrphans()
	for _, width := range []int{80, 140} {
		height := len(wideTexts)
		all := func(n int) []int {
			r := make([]int, n)
			for i := range r {
				r[i] = i
			}
			return r
		}
		t.Run("pools", func(t *testing.T) {
			checkAligned(t, renderPools(snap.Pools, all(len(snap.Pools)), listState{cursor: 1}, snap.RedisTime, width, height, nil, st), 0)
		})
		t.Run("job_types", func(t *testing.T) {
			checkAligned(t, renderJobTypes(snap.JobTypes, all(len(snap.JobTypes)), queueHistory{}, nil, nil, listState{cursor: 2}, width, height, nil, st), 0)
		})
		t.Run("orphans", func(t *testing.T) {
			checkAligned(t, renderOrphans(orphans, all(len(orphans)), listState{}, scanStatus{enabled: true, completed: true}, fixedNow, width, height, nil, st), 1)
		})
		t.Run("detail", func(t *testing.T) {
			for _, p := range snap.Pools {
				d := detailView{poolID: p.ID, pool: p, redisTime: snap.RedisTime, unavailable: true}
				lines := strings.Split(renderDetail(d, width), "\n")
				var table []string
				for _, l := range lines {
					if strings.HasPrefix(l, "JOB ") || len(table) > 0 && l != "" {
						table = append(table, l)
					} else if len(table) > 0 {
						break
					}
				}
				if len(table) < 2 {
					t.Fatalf("no job table in the detail of %q:\n%s", p.ID, strings.Join(lines, "\n"))
				}
				checkAligned(t, strings.Join(table, "\n"), 0)
			}
		})
	}
}

// TestFitCellPadsACutWideCharacter is the pool row of the report: a host
// cut inside its last two-column character keeps its cell's width.
func TestFitCellPadsACutWideCharacter(t *testing.T) {
	for w := 1; w <= 20; w++ {
		for _, s := range wideTexts {
			for _, right := range []bool{false, true} {
				if got := textsafe.Width(fitCell(s, w, right)); got != w {
					t.Errorf("fitCell(%q, %d, %v) is %d columns", s, w, right, got)
				}
			}
		}
	}
}
