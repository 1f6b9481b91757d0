package model

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// explainFixture is a namespace with one live pool serving send_email and
// resize, read at a fixed Redis time.
func explainFixture() *Snapshot {
	now := time.Unix(1_800_000_000, 0)
	snap := &Snapshot{Namespace: "work", RedisTime: now,
		Pools: []Pool{{ID: "live1", Heartbeat: &Heartbeat{HeartbeatAt: now.Unix() - 2, StartedAt: now.Unix() - 600,
			Host: "web-1", Concurrency: 2, JobNames: []string{"resize", "send_email"}, WorkerIDs: []string{"w1", "w2"}}}},
		JobTypes: []JobType{{Name: "send_email", Queued: 3, OldestEnqueuedAt: now.Unix() - 30}, {Name: "resize"}},
		Workers:  []Worker{{WorkerID: "w1", PoolID: "live1"}, {WorkerID: "w2", PoolID: "live1"}},
	}
	return snap
}

func analyzed(snap *Snapshot) *Snapshot {
	Analyze(snap, DefaultDeadAfter)
	return snap
}

func addDeadPool(snap *Snapshot, id string, jobs ...string) *Pool {
	snap.Pools = append(snap.Pools, Pool{ID: id, Heartbeat: &Heartbeat{HeartbeatAt: snap.RedisTime.Unix() - 600,
		StartedAt: snap.RedisTime.Unix() - 3600, Host: "web-0", Concurrency: 1, JobNames: jobs}})
	return &snap.Pools[len(snap.Pools)-1]
}

func setJob(set SetName, score int64, raw string) SetJob {
	return ParseSetJob(set, []byte(raw), strconv.FormatInt(score, 10))
}

func kinds(x Explanation) []string {
	var out []string
	for _, c := range x.Causes {
		out = append(out, c.Kind)
	}
	return out
}

func TestExplainChecks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(s *Snapshot, f *ExplainFacts)
		job   string
		want  []string // cause kinds, in order
		fix   []string // the first cause's fix
		in    string   // text the first cause's evidence holds
	}{
		{name: "running", job: "send_email", setup: func(*Snapshot, *ExplainFacts) {}},
		{name: "typo", job: "send_emial", want: []string{CauseUnknown}, in: "send_email",
			setup: func(*Snapshot, *ExplainFacts) {}},
		{name: "paused", job: "send_email", want: []string{CausePaused}, fix: []string{"unpause", "send_email"},
			setup: func(s *Snapshot, _ *ExplainFacts) { s.JobTypes[0].Paused = true }},
		{name: "no live pool", job: "send_email", want: []string{CauseNoLivePool}, in: "dead1",
			setup: func(s *Snapshot, _ *ExplainFacts) {
				s.Pools[0].Heartbeat.JobNames = []string{"resize"}
				addDeadPool(s, "dead1", "send_email")
			}},
		{name: "dead pools hold the lock", job: "send_email", want: []string{CauseDeadPoolLocks, CauseHeldDead},
			fix: []string{"reap", "dead1"}, in: "dead1",
			setup: func(s *Snapshot, _ *ExplainFacts) {
				p := addDeadPool(s, "dead1", "send_email")
				p.InProgress = map[string]int64{"send_email": 2}
				p.LockInfo = map[string]int64{"send_email": 2}
				jt := &s.JobTypes[0]
				jt.Lock, jt.MaxConcurrency, jt.LockInfo = 2, 2, map[string]int64{"dead1": 2}
			}},
		{name: "drift", job: "send_email", want: []string{CauseLockDrift}, fix: []string{"repair-locks", "send_email"}, in: "lock_info totals 0",
			setup: func(s *Snapshot, _ *ExplainFacts) {
				jt := &s.JobTypes[0]
				jt.Lock, jt.MaxConcurrency = 5, 2
			}},
		{name: "saturated", job: "send_email", want: []string{CauseSaturated}, in: "running for 20m00s (long-running), no check-in",
			setup: func(s *Snapshot, _ *ExplainFacts) {
				s.Pools[0].InProgress = map[string]int64{"send_email": 2}
				s.Pools[0].LockInfo = map[string]int64{"send_email": 2}
				jt := &s.JobTypes[0]
				jt.Lock, jt.MaxConcurrency, jt.LockInfo = 2, 2, map[string]int64{"live1": 2}
				now := s.RedisTime.Unix()
				s.Workers = []Worker{
					{WorkerID: "w1", PoolID: "live1", Busy: true, JobName: "send_email", JobID: "a", StartedAt: now - 1200},
					{WorkerID: "w2", PoolID: "live1", Busy: true, JobName: "send_email", JobID: "b", StartedAt: now - 60, HasCheckin: true, Checkin: "batch 3", CheckinAt: now - 5},
				}
			}},
		{name: "saturated with nothing waiting", job: "send_email",
			setup: func(s *Snapshot, _ *ExplainFacts) {
				s.Pools[0].InProgress = map[string]int64{"send_email": 2}
				s.Pools[0].LockInfo = map[string]int64{"send_email": 2}
				jt := &s.JobTypes[0]
				jt.Queued, jt.OldestEnqueuedAt = 0, 0
				jt.Lock, jt.MaxConcurrency, jt.LockInfo = 2, 2, map[string]int64{"live1": 2}
			}},
		{name: "workers busy elsewhere", job: "send_email", want: []string{CauseWorkersBusy}, in: "resize 2",
			setup: func(s *Snapshot, _ *ExplainFacts) {
				now := s.RedisTime.Unix()
				s.Workers = []Worker{
					{WorkerID: "w1", PoolID: "live1", Busy: true, JobName: "resize", StartedAt: now - 10},
					{WorkerID: "w2", PoolID: "live1", Busy: true, JobName: "resize", StartedAt: now - 10},
				}
			}},
		{name: "orphaned", job: "send_email", want: []string{CauseOrphaned}, fix: []string{"requeue", "work:jobs:send_email:gone:inprogress"},
			setup: func(s *Snapshot, _ *ExplainFacts) {
				s.Orphans = []InProgressList{{Key: "work:jobs:send_email:gone:inprogress", JobName: "send_email", PoolID: "gone", Length: 1}}
			}},
		{name: "waiting in retry", job: "send_email", want: []string{CauseWaitingRetry}, fix: []string{"jobs", "retry", "requeue", "--all", "--job", "send_email"}, in: "in 2m",
			setup: func(s *Snapshot, f *ExplainFacts) {
				s.JobTypes[0].Queued = 0
				f.Retry = []SetJob{setJob(SetRetry, s.RedisTime.Unix()+120, `{"name":"send_email","id":"r1","t":1,"args":{},"fails":1,"err":"x"}`),
					setJob(SetRetry, s.RedisTime.Unix()+130, `{"name":"resize","id":"r2","t":1,"args":{}}`)}
			}},
		{name: "unique key blocks", job: "send_email", want: []string{CauseUniqueBlocked}, in: "23h", fix: []string{"delete-unique", "send_email", `{"a":1}`},
			setup: func(s *Snapshot, f *ExplainFacts) {
				s.JobTypes[0].Queued = 0
				f.Unique = []UniqueKey{{Key: "work:unique:send_email:{\"a\":1}\n", TTL: 23 * time.Hour}}
			}},
		{name: "unique key of a waiting copy", job: "send_email",
			setup: func(s *Snapshot, f *ExplainFacts) {
				f.Unique = []UniqueKey{{Key: "work:unique:send_email:{\"a\":1}\n", TTL: 23 * time.Hour}}
			}},
		{name: "unique key of a waiting copy, queue read", job: "send_email",
			setup: func(s *Snapshot, f *ExplainFacts) {
				f.Unique = []UniqueKey{{Key: "work:unique:send_email:{\"a\":1}\n", TTL: 23 * time.Hour}}
				f.Waiting, f.QueueRead = map[string]bool{"work:unique:send_email:{\"a\":1}\n": true}, true
			}},
		{name: "unique key left behind while another copy waits", job: "send_email", want: []string{CauseUniqueBlocked}, in: "keys: work:unique:send_email:{\"a\":1}",
			fix: []string{"delete-unique", "send_email", `{"a":1}`},
			setup: func(s *Snapshot, f *ExplainFacts) {
				f.Unique = []UniqueKey{{Key: "work:unique:send_email:{\"a\":1}\n", TTL: 23 * time.Hour}, {Key: "work:unique:send_email:{\"a\":2}\n", TTL: 23 * time.Hour}}
				f.Waiting, f.QueueRead = map[string]bool{"work:unique:send_email:{\"a\":2}\n": true}, true
			}},
		{name: "unique key held by a scheduled copy", job: "send_email",
			setup: func(s *Snapshot, f *ExplainFacts) {
				s.JobTypes[0].Queued = 0
				f.Unique = []UniqueKey{{Key: "work:unique:send_email:{\"a\":1}\n", TTL: 23 * time.Hour}}
				f.Scheduled = []SetJob{setJob(SetScheduled, s.RedisTime.Unix()+60, `{"name":"send_email","id":"s1","t":1,"args":{"a":1},"unique":true}`)}
			}},
		{name: "recent deaths", job: "send_email", want: []string{CauseRecentDeaths},
			fix: []string{"jobs", "dead", "requeue", "--all", "--job", "send_email"}, in: "top error (2 of 3): smtp timeout after N s",
			setup: func(s *Snapshot, f *ExplainFacts) {
				now := s.RedisTime.Unix()
				f.Dead = []SetJob{
					setJob(SetDead, now-60, `{"name":"send_email","id":"d1","t":1,"args":{},"err":"smtp timeout after 30 s"}`),
					setJob(SetDead, now-90, `{"name":"send_email","id":"d2","t":1,"args":{},"err":"smtp timeout after 31 s"}`),
					setJob(SetDead, now-95, `{"name":"send_email","id":"d3","t":1,"args":{},"err":"bad address"}`),
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := explainFixture()
			f := ExplainFacts{SetLimit: 1000, DeadWindow: time.Hour, UniqueScanned: true}
			tc.setup(snap, &f)
			analyzed(snap)
			x := Explain(snap, f, tc.job)
			if got := strings.Join(kinds(x), ","); got != strings.Join(tc.want, ",") {
				t.Fatalf("causes %q, want %q (%+v)", got, strings.Join(tc.want, ","), x)
			}
			// Blocks gives the same causes of these kinds, in the same
			// words, for every job type at once.
			var blocks []Cause
			for _, c := range x.Causes {
				if IsBlock(c.Kind) {
					blocks = append(blocks, c)
				}
			}
			if got := Blocks(snap)[tc.job]; !reflect.DeepEqual(got, blocks) {
				t.Errorf("Blocks gives %+v, Explain %+v", got, blocks)
			}
			if x.Running != (len(tc.want) == 0) {
				t.Errorf("running %v with causes %v", x.Running, kinds(x))
			}
			if len(tc.want) == 0 {
				if !strings.Contains(x.Verdict, "running normally") {
					t.Errorf("verdict %q", x.Verdict)
				}
				return
			}
			c := x.Causes[0]
			if !strings.HasPrefix(x.Verdict, c.Verdict) {
				t.Errorf("verdict %q does not start with the first cause %q", x.Verdict, c.Verdict)
			}
			if strings.Join(c.Fix, " ") != strings.Join(tc.fix, " ") {
				t.Errorf("fix %q, want %q", c.Fix, tc.fix)
			}
			if len(c.Fix) == 0 && c.FixText == "" {
				t.Errorf("cause %s has neither a fix nor a fix text", c.Kind)
			}
			all := strings.Join(c.Evidence, "\n")
			if tc.in != "" && !strings.Contains(all, tc.in) {
				t.Errorf("evidence %q lacks %q", all, tc.in)
			}
		})
	}
}

func TestExplainPool(t *testing.T) {
	snap := explainFixture()
	p := addDeadPool(snap, "dead1", "send_email")
	p.InProgress = map[string]int64{"send_email": 1}
	snap.Orphans = []InProgressList{{Key: "work:jobs:x:gone:inprogress", JobName: "x", PoolID: "gone", Length: 4}}
	analyzed(snap)
	for _, tc := range []struct {
		id      string
		running bool
		fix     string
	}{{"live1", true, ""}, {"dead1", false, "reap dead1"}, {"gone", false, "requeue work:jobs:x:gone:inprogress"}, {"never", false, ""}} {
		x := ExplainPool(snap, tc.id)
		if x.Running != tc.running {
			t.Errorf("%s: running %v, want %v (%s)", tc.id, x.Running, tc.running, x.Verdict)
		}
		if tc.fix != "" && strings.Join(x.Causes[0].Fix, " ") != tc.fix {
			t.Errorf("%s: fix %q, want %q", tc.id, x.Causes[0].Fix, tc.fix)
		}
	}
}

func TestCloseNames(t *testing.T) {
	got := closeNames("send_emial", []string{"resize", "send_email", "email", "sms"})
	if strings.Join(got, ",") != "send_email" {
		t.Errorf("close names %q", got)
	}
}

// The deaths of a type no live pool serves are requeued with --force (a
// requeue refuses them without it), and the verdict counts the causes
// after the first in words.
func TestExplainDeathsUnserved(t *testing.T) {
	snap := explainFixture()
	snap.Pools[0].Heartbeat.JobNames = []string{"resize"}
	now := snap.RedisTime.Unix()
	f := ExplainFacts{SetLimit: 1000, DeadWindow: time.Hour, UniqueScanned: true,
		Dead: []SetJob{setJob(SetDead, now-60, `{"name":"send_email","id":"d1","t":1,"args":{},"err":"smtp timeout"}`)}}
	analyzed(snap)
	x := Explain(snap, f, "send_email")
	if got := strings.Join(kinds(x), ","); got != CauseNoLivePool+","+CauseRecentDeaths {
		t.Fatalf("causes %q", got)
	}
	if want := "no live pool serves send_email (and one more cause)"; x.Verdict != want {
		t.Errorf("verdict %q, want %q", x.Verdict, want)
	}
	c := x.Causes[1]
	if got := strings.Join(c.Fix, " "); got != "jobs dead requeue --all --job send_email --force" {
		t.Errorf("fix %q", got)
	}
	if !strings.Contains(c.FixText, "--force") {
		t.Errorf("the fix text does not say why --force: %q", c.FixText)
	}
}
