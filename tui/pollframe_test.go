package tui

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// A poll frame is what the screen does at every poll: Update with the
// regular poll's snapshot, then View. At 10,000 pools x 50 job types it
// must stay O(pools + job types) in time and garbage (make bench's 5f, 5g
// and 5j measure it on a real poll); these measure it on a snapshot of the
// same shape, built here.

// pollScale is a regular poll's snapshot of the namespace make bench
// loads for section 5 (conformance/bench loadNamespace): every pool
// registers every job type and holds 2 jobs in progress, 1% of the pools
// dead, 10 workers per pool, one job type in five capped, one paused.
func pollScale(pools, types int) *model.Snapshot {
	rt := fixedNow
	s := &model.Snapshot{Namespace: "work", RedisTime: rt, Sets: model.SetCounts{Retry: 3, Dead: 20},
		Cost: &model.ReadCost{Commands: 35000, RoundTrips: 3, ReplyBytes: 400 << 10, Waited: 30 * time.Millisecond}}
	names := make([]string, types)
	for j := range names {
		names[j] = fmt.Sprintf("job_type_%02d", j)
	}
	sort.Strings(names)
	lockInfo := make([]map[string]int64, types)
	for j := range lockInfo {
		lockInfo[j] = map[string]int64{}
	}
	for p := 0; p < pools; p++ {
		id := fmt.Sprintf("%024x", p*7919)
		age := time.Duration(p%5) * time.Second
		if p%100 == 99 {
			age = 10 * time.Minute
		}
		workers := make([]string, 10)
		for w := range workers {
			workers[w] = id[:23] + strconv.Itoa(w)
		}
		pool := model.Pool{ID: id, Heartbeat: &model.Heartbeat{HeartbeatAt: rt.Add(-age).Unix(), StartedAt: rt.Add(-time.Hour).Unix(),
			Host: "worker-" + strconv.Itoa(p%500) + ".prod.internal", PID: int64(1000 + p), Concurrency: 10,
			JobNames: names, WorkerIDs: workers},
			InProgress: map[string]int64{}, LockInfo: map[string]int64{}}
		for l := 0; l < 2; l++ {
			j := (p + l) % types
			pool.InProgress[names[j]]++
			pool.LockInfo[names[j]]++
			lockInfo[j][id]++
		}
		s.Pools = append(s.Pools, pool)
	}
	for j, n := range names {
		jt := model.JobType{Name: n, Queued: 50, OldestEnqueuedAt: rt.Add(-50 * time.Second).Unix(), LockInfo: lockInfo[j],
			Paused: j == 3}
		for _, v := range lockInfo[j] {
			jt.LockInfoTotal += v
		}
		jt.InProgress, jt.Lock = jt.LockInfoTotal, jt.LockInfoTotal
		if j%5 == 1 {
			jt.MaxConcurrency = 5000
		}
		s.JobTypes = append(s.JobTypes, jt)
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

// laterPoll is the poll seq seconds after s: the clock and the live pools'
// heartbeats moved on, new heartbeats and a new pool slice as a poll reads
// them (the counters' maps are shared: the screen only reads them).
func laterPoll(s *model.Snapshot, seq int) *model.Snapshot {
	out := *s
	d := time.Duration(seq) * time.Second
	out.RedisTime = s.RedisTime.Add(d)
	out.Pools = slices.Clone(s.Pools)
	for i := range out.Pools {
		hb := *out.Pools[i].Heartbeat
		if out.Pools[i].Status != model.StatusDead {
			hb.HeartbeatAt = out.RedisTime.Add(-time.Duration((i+seq)%5) * time.Second).Unix()
		}
		out.Pools[i].Heartbeat = &hb
	}
	out.JobTypes = slices.Clone(s.JobTypes)
	model.Analyze(&out, model.DefaultDeadAfter)
	return &out
}

// pollFrameModel is the screen at 200x60 after a first poll that returned
// first, on the given tab (0 Pools, 1 Job types).
func pollFrameModel(t testing.TB, first *model.Snapshot, tab int) Model {
	t.Helper()
	o, _ := testOptions(staticSource(first))
	m := newInstant(o)
	next, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m = next.(Model)
	for _, msg := range runCmd(m.firstFetch()) {
		next, _ = m.Update(msg)
		m = next.(Model)
	}
	for range tab {
		next, _ = m.Update(tea.KeyMsg{Type: tea.KeyTab})
		m = next.(Model)
	}
	return m
}

// pollFrame delivers snap as the current generation's poll and draws the
// screen.
func pollFrame(m Model, snap *model.Snapshot) Model {
	next, _ := m.Update(current(m, snapshotMsg{snap: snap, at: snap.RedisTime}))
	m = next.(Model)
	_ = m.View()
	return m
}

// BenchmarkPollFrame is Update(regular poll) + View() at 10,000 pools x 50
// job types on the Pools and Job types views, two polls taking turns so
// that every frame gets a snapshot it has not seen.
func BenchmarkPollFrame(b *testing.B) {
	for _, v := range []struct {
		name string
		tab  int
	}{{"pools", 0}, {"jobtypes", 1}} {
		b.Run(v.name, func(b *testing.B) {
			first := pollScale(10000, 50)
			snaps := [2]*model.Snapshot{laterPoll(first, 1), laterPoll(first, 2)}
			m := pollFrameModel(b, first, v.tab)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m = pollFrame(m, snaps[i%2])
			}
		})
	}
}

// pollFrameBudget is the most a poll frame may allocate at 10,000 pools x
// 50 job types (make bench's 5j holds a real poll to the same).
const pollFrameBudget = 1 << 20

// TestPollFrameAllocations holds a poll frame at 10,000 pools x 50 job
// types to its allocation budget on the Pools and Job types views: bytes
// allocated are deterministic where time is not. A frame that explains
// every job type from every pool (O(pools x job types)) allocated 30 MB.
func TestPollFrameAllocations(t *testing.T) {
	first := pollScale(10000, 50)
	snaps := [3]*model.Snapshot{first, laterPoll(first, 1), laterPoll(first, 2)}
	for _, v := range []struct {
		name string
		tab  int
	}{{"pools", 0}, {"job types", 1}} {
		t.Run(v.name, func(t *testing.T) {
			m := pollFrameModel(t, snaps[0], v.tab)
			m = pollFrame(m, snaps[1]) // a first frame fills what is kept
			const frames = 4
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < frames; i++ {
				m = pollFrame(m, snaps[2-i%2])
			}
			runtime.ReadMemStats(&after)
			per := (after.TotalAlloc - before.TotalAlloc) / frames
			if per > pollFrameBudget {
				t.Errorf("a poll frame allocates %d KB at 10000 pools x 50 job types, budget %d KB", per>>10, pollFrameBudget>>10)
			}
			t.Logf("%d KB, %d allocations per poll frame", per>>10, (after.Mallocs-before.Mallocs)/frames)
		})
	}
}
