package tui

import (
	"context"
	"fmt"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// fakeSets holds the three sets in memory and records every read.
type fakeSets struct {
	mu    sync.Mutex
	sets  map[model.SetName][]model.SetJob
	reads []fakeRead
	steps int // members per summary scan step
	open  int // summary scans not closed yet
	// scans are the filters of the summary scans started.
	scans []redisq.SetFilter
	// pageErr, when set, is the error of every page read.
	pageErr error
	// follows are the follows of a filtered page (FollowSetPage).
	follows []fakeRead
	// planned and executed record the job actions.
	planned  []reaper.JobsTarget
	executed []reaper.JobsPlan
	// stopAfter, when set, makes a bulk execution wait for its context
	// after that many jobs, as the executor stops between two calls.
	stopAfter int
	// unserved are job names no live pool serves: a requeue of all of one
	// is refused without Force, its plan built all the same (PlanJobs).
	unserved map[string]bool
}

// bulkMatch is whether a bulk target takes a member: a job of its name
// (any when none) that its query matches, time terms included.
func bulkMatch(t reaper.JobsTarget, sj model.SetJob) bool {
	if sj.Job == nil {
		return false
	}
	return (t.Job == "" || sj.Job.Name == t.Job) && t.Query.MatchSetJob(sj)
}

type fakeRead struct {
	set    model.SetName
	filter redisq.SetFilter
	opts   redisq.PageOptions
}

func newFakeSets() *fakeSets { return &fakeSets{sets: map[model.SetName][]model.SetJob{}, steps: 10} }

// add puts a member in a set.
func (f *fakeSets) add(set model.SetName, raw, score string) {
	f.sets[set] = append(f.sets[set], model.ParseSetJob(set, []byte(raw), score))
}

// addJob puts a job in a set, scored age seconds before the fixture's Redis
// time (after it, for a negative age).
func (f *fakeSets) addJob(set model.SetName, name, id string, age int64, err string) {
	score := fixture().RedisTime.Unix() - age
	raw := fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"n":%d,"to":"ops@example.com"}`, name, id, score-600, age)
	if err != "" {
		raw += fmt.Sprintf(`,"fails":3,"err":%q,"failed_at":%d`, err, score)
	}
	f.add(set, raw+"}", fmt.Sprint(score))
}

// sorted is a set in its natural order (newestFirst reverses it).
func (f *fakeSets) sorted(set model.SetName, newestFirst bool) []model.SetJob {
	jobs := append([]model.SetJob(nil), f.sets[set]...)
	sortMembers(jobs)
	if newestFirst {
		for i, j := 0, len(jobs)-1; i < j; i, j = i+1, j-1 {
			jobs[i], jobs[j] = jobs[j], jobs[i]
		}
	}
	return jobs
}

func (f *fakeSets) SetPage(_ context.Context, set model.SetName, flt redisq.SetFilter, o redisq.PageOptions, _ redisq.ScanOptions) (redisq.SetPage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, fakeRead{set, flt, o})
	if f.pageErr != nil {
		return redisq.SetPage{}, f.pageErr
	}
	var match []model.SetJob
	for _, sj := range f.sorted(set, set.NewestFirst() != o.Reverse) {
		// The time terms are the walk's (a score range), the others Match's.
		if flt.Match(sj) && flt.Query.MatchSetJob(sj) {
			match = append(match, sj)
		}
	}
	p := redisq.SetPage{Set: set, Offset: o.Offset, Total: int64(len(match)), Jobs: []model.SetJob{}}
	if o.Offset < len(match) {
		p.Jobs = match[o.Offset:min(o.Offset+o.Limit, len(match))]
	}
	if flt.Empty() {
		p.Total = int64(len(f.sets[set]))
	}
	return p, nil
}

func (f *fakeSets) SetCounts(context.Context) (redisq.SetCounts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return redisq.SetCounts{Retry: int64(len(f.sets[model.SetRetry])), Scheduled: int64(len(f.sets[model.SetScheduled])),
		Dead: int64(len(f.sets[model.SetDead]))}, nil
}

func (f *fakeSets) lastRead() fakeRead {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reads) == 0 {
		return fakeRead{}
	}
	return f.reads[len(f.reads)-1]
}

func (f *fakeSets) StartSetScan(_ context.Context, set model.SetName, flt redisq.SetFilter) (SetScan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.open++
	f.scans = append(f.scans, flt)
	return &fakeSetScan{f: f, jobs: f.sorted(set, false), filter: flt}, nil
}

// fakeSetScan walks a copy of a set, steps members a step, and returns
// those its filter selects.
type fakeSetScan struct {
	f      *fakeSets
	jobs   []model.SetJob
	filter redisq.SetFilter
	prog   redisq.SetScanProgress
}

func (s *fakeSetScan) Step(context.Context) ([]model.SetJob, redisq.SetScanProgress, error) {
	if s.prog.Calls == 0 {
		s.prog.Size = int64(len(s.jobs))
	}
	n := min(s.f.steps, len(s.jobs))
	var out []model.SetJob
	for _, sj := range s.jobs[:n] {
		if s.filter.Match(sj) && s.filter.Query.MatchSetJob(sj) {
			out = append(out, sj)
		}
	}
	s.jobs = s.jobs[n:]
	s.prog.Calls++
	s.prog.Seen += int64(n)
	s.prog.Matched += int64(len(out))
	s.prog.Done = len(s.jobs) == 0
	return out, s.prog, nil
}

func (s *fakeSetScan) Close() error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.open--
	return nil
}

// PlanJobs finds the members given, as reaper.PlanJobs would.
func (f *fakeSets) PlanJobs(_ context.Context, action reaper.JobsAction, t reaper.JobsTarget) (reaper.JobsPlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.planned = append(f.planned, t)
	p := reaper.JobsPlan{Namespace: "work", Action: action, Target: t, RedisTime: fixture().RedisTime, ByName: map[string]int64{}}
	if t.All {
		for _, sj := range f.sorted(t.Set, false) {
			if bulkMatch(t, sj) {
				p.Total++
				p.ByName[sj.Job.Name]++
				if len(p.Items) < reaper.SampleSize {
					p.Items = append(p.Items, reaper.JobItem{Job: sj})
				}
			}
		}
		if action == reaper.JobsRequeue && f.unserved[t.Job] {
			// As reaper.PlanJobs: refused without Force, the jobs
			// skipped; with it, named unserved.
			if !t.Force {
				empty := reaper.JobsPlan{Namespace: p.Namespace, Action: action, Target: t, RedisTime: p.RedisTime, ByName: map[string]int64{}}
				return empty, fmt.Errorf("requeue %s jobs of %q: %w", t.Set, t.Job, reaper.ErrUnserved)
			}
			p.Unserved = []string{t.Job}
			p.Warnings = []string{"no worker pool serves " + t.Job + ": those jobs will wait in their queue until one does (--force given)"}
		}
		return p, nil
	}
	for _, r := range t.Refs {
		found := false
		for _, sj := range f.sets[t.Set] {
			if sj.ScoreText != r.Score || (r.Raw != nil && string(r.Raw) != string(sj.Raw)) || (r.Raw == nil && (sj.Job == nil || sj.Job.ID != r.ID)) {
				continue
			}
			found = true
			p.Items = append(p.Items, reaper.JobItem{Job: sj})
			p.Total++
			if sj.Job != nil {
				p.ByName[sj.Job.Name]++
			}
		}
		if !found {
			return p, fmt.Errorf("%s: %w", r, reaper.ErrJobNotFound)
		}
	}
	return p, nil
}

// ExecuteJobs takes the plan's members out of their set.
func (f *fakeSets) ExecuteJobs(ctx context.Context, p reaper.JobsPlan, progress reaper.JobsProgress) (reaper.JobsResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.executed = append(f.executed, p)
	res := reaper.JobsResult{ByName: map[string]int64{}}
	gone := map[string]bool{}
	items := p.Items
	if p.Target.All {
		items = nil
		for _, sj := range f.sets[p.Target.Set] {
			if bulkMatch(p.Target, sj) {
				items = append(items, reaper.JobItem{Job: sj})
			}
		}
		if f.stopAfter > 0 {
			items = items[:min(f.stopAfter, len(items))]
		}
	}
	for _, it := range items {
		gone[memberKey(it.Job)] = true
		res.Done++
		if it.Job.Job != nil {
			res.ByName[it.Job.Job.Name]++
		}
		if progress != nil {
			progress(res.Done, p.Total)
		}
	}
	var keep []model.SetJob
	for _, sj := range f.sets[p.Target.Set] {
		if !gone[memberKey(sj)] {
			keep = append(keep, sj)
		}
	}
	f.sets[p.Target.Set] = keep
	if p.Target.All && f.stopAfter > 0 {
		<-ctx.Done()
		return res, fmt.Errorf("%s: stopped after %d jobs: %w", p.Action, res.Done, ctx.Err())
	}
	return res, nil
}

// deadFixture is a dead set of 45 members: 30 send_email with one error
// told apart only by numbers, 12 resize_image, two members that are not
// JSON and one with a fractional score; two retry and one scheduled job.
func deadFixture() *fakeSets {
	f := newFakeSets()
	for i := range 30 {
		f.addJob(model.SetDead, "send_email", fmt.Sprintf("se%02d", i), int64(3600+i*60), fmt.Sprintf("dial tcp 10.0.0.%d:25: i/o timeout", i))
	}
	for i := range 12 {
		f.addJob(model.SetDead, "resize_image", fmt.Sprintf("ri%02d", i), int64(7200+i*90), "image 0xdeadbeef12 too large")
	}
	rt := fixture().RedisTime.Unix()
	f.add(model.SetDead, "not json at all", fmt.Sprint(rt-100))
	f.add(model.SetDead, `{"name":"report","id":"trunc`, fmt.Sprint(rt-200))
	f.add(model.SetDead, `{"name":"report","id":"frac1","t":1,"args":{}}`, fmt.Sprintf("%d.5", rt-300))
	f.addJob(model.SetRetry, "send_email", "rt1", -240, "smtp 421")
	f.addJob(model.SetRetry, "report", "rt2", -30, "timeout")
	f.addJob(model.SetScheduled, "report", "sc1", -3600, "")
	return f
}

// setsOptions are test options with the fake sets as source, scanner and
// actor.
func setsOptions(f *fakeSets) (Options, testDeps) {
	o, d := testOptions(staticSource(fixture()))
	o.Reads.Sets, o.Reads.SetScan = f, f
	o.Writes.Jobs = f
	return o, d
}

// drive applies messages through the root's Update, runs each command and
// applies what it returns, until nothing is left. Timers deliver at once, except the
// polls' and the clock's, which would never end.
func drive(t *testing.T, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	queue := append([]tea.Msg(nil), msgs...)
	for n := 0; len(queue) > 0; n++ {
		if n > 5000 {
			t.Fatal("drive: too many messages")
		}
		msg := queue[0]
		queue = queue[1:]
		if s, ok := msg.(scheduled); ok {
			switch s.msg.(type) {
			case tickMsg, clockMsg, statusClearMsg, scanTickMsg:
				continue
			}
			msg = s.msg
		}
		var cmd tea.Cmd
		m, cmd = sendSets(m, msg)
		queue = append(queue, runCmd(cmd)...)
	}
	return m
}

// sendSets is one message through the root's Update.
func sendSets(m Model, msg tea.Msg) (Model, tea.Cmd) {
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

// keys turns "tab", "j", ... into key messages.
func keys(names ...string) []tea.Msg {
	out := make([]tea.Msg, len(names))
	for i, n := range names {
		out[i] = keyMsg(n)
	}
	return out
}

// openJobs is a screen with the fake sets, on the Jobs view, its first page
// read.
func openJobs(t *testing.T, f *fakeSets, readOnly bool, w, h int) (Model, testDeps) {
	t.Helper()
	o, d := setsOptions(f)
	o.ReadOnly = readOnly
	m := newTest(t, o, w, h)
	m = drive(t, m, keys("shift+tab")...)
	if _, ok := m.setsView(); !ok || !m.setsFocused() {
		t.Fatalf("the Jobs view is not focused after shift+tab (tab %d)", tabIndex(m))
	}
	return m, d
}

func jobsView(t *testing.T, m Model) setsView {
	t.Helper()
	v, ok := m.setsView()
	if !ok {
		t.Fatal("no Jobs view")
	}
	return v
}
