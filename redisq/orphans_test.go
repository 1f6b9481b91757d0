package redisq

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

func TestOrphanScanFindsOrphansAmongManyKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "my*ns" // a glob character in the namespace must not match "myXns"
	k := NewKeys(ns)
	other := NewKeys("myXns")

	// Unrelated keys: far more than the in-progress lists, in this namespace
	// and others.
	for i := 0; i < 3000; i++ {
		redistest.Do(t, c, "SET", fmt.Sprintf("unrelated:%d", i), "x")
	}
	for i := 0; i < 200; i++ {
		redistest.Do(t, c, "LPUSH", k.Queue(fmt.Sprintf("job%d", i)), "{}")
		redistest.Do(t, c, "SET", k.Lock(fmt.Sprintf("job%d", i)), "0")
	}

	live := []string{"aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb"}
	for _, p := range live {
		redistest.Do(t, c, "SADD", k.WorkerPools(), p)
		redistest.Do(t, c, "RPUSH", k.InProgress("emails", p), "{}")
		redistest.Do(t, c, "RPUSH", k.InProgress("a:b:c", p), "{}")
	}
	want := []model.InProgressList{
		{JobName: "emails", PoolID: "dddddddddddddddddddddddd", Length: 3},
		{JobName: "a:b:c", PoolID: "dddddddddddddddddddddddd", Length: 2},
		{JobName: "x:inprogress", PoolID: "eeeeeeeeeeeeeeeeeeeeeeee", Length: 1},
		{JobName: "emails", PoolID: "ffffffffffffffffffffffff", Length: 1},
	}
	for i := range want {
		w := &want[i]
		w.Key = k.InProgress(w.JobName, w.PoolID)
		for j := int64(0); j < w.Length; j++ {
			redistest.Do(t, c, "RPUSH", w.Key, fmt.Sprintf(`{"id":"%d"}`, j))
		}
	}
	// Lookalikes that are not orphans: another namespace's list, and the
	// queue of a known job whose name ends in ":<x>:inprogress".
	redistest.Do(t, c, "RPUSH", other.InProgress("emails", "cccccccccccccccccccccccc"), "{}")
	redistest.Do(t, c, "SADD", k.KnownJobs(), "emails", "q:r:inprogress")
	redistest.Do(t, c, "RPUSH", k.Queue("q:r:inprogress"), "{}")

	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	var progress []model.ScanProgress
	res, err := ScanOrphans(context.Background(), c, k, 100, func(p model.ScanProgress) { progress = append(progress, p) })
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	stats := redistest.CommandCalls(t, c)

	// Sort want by key as the result is.
	orphSortLists(want)
	if !reflect.DeepEqual(res.Orphans, want) {
		t.Errorf("orphans:\n got %+v\nwant %+v", res.Orphans, want)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	// 4 orphans + 4 live lists + the known job's queue.
	if res.Candidates != 9 {
		t.Errorf("candidates = %d, want 9", res.Candidates)
	}
	if stats["keys"] != 0 {
		t.Errorf("KEYS was called %d times", stats["keys"])
	}
	if stats["scan"] != int64(res.Calls) || res.Calls < 10 {
		t.Errorf("SCAN calls: commandstats %d, result %d; want the same and at least 10 for ~3,600 keys at COUNT 100", stats["scan"], res.Calls)
	}
	if len(progress) != res.Calls || !progress[len(progress)-1].Done {
		t.Errorf("progress reported %d times (want %d), last %+v", len(progress), res.Calls, progress[len(progress)-1])
	}
	for i := 1; i < len(progress); i++ {
		if progress[i].Calls != progress[i-1].Calls+1 || progress[i].Candidates < progress[i-1].Candidates {
			t.Fatalf("progress not monotonic: %+v then %+v", progress[i-1], progress[i])
		}
	}
	t.Logf("%d SCAN calls over %d keys found %d candidates, %d orphans", res.Calls, 3000+400+9+1+2, res.Candidates, len(res.Orphans))
}

func orphSortLists(l []model.InProgressList) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].Key < l[j-1].Key; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

func TestOrphanScanStepByStep(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := NewKeys("work")
	for i := 0; i < 500; i++ {
		redistest.Do(t, c, "SET", fmt.Sprintf("work:other:%d", i), "x")
	}
	redistest.Do(t, c, "RPUSH", k.InProgress("j", "p1"), "a", "b")

	s := NewOrphanScan(k, 10)
	if _, err := s.Finish(context.Background(), c); !errors.Is(err, ErrScanNotDone) {
		t.Fatalf("Finish before done: err = %v, want ErrScanNotDone", err)
	}
	steps := 0
	for !s.Done() {
		if _, err := s.Step(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		steps++
		if steps > 10000 {
			t.Fatal("scan does not end")
		}
	}
	if steps < 5 {
		t.Errorf("only %d steps over 501 keys at COUNT 10: a step must be one bounded SCAN call", steps)
	}
	// A list that appears in the set between walk and finish is not an
	// orphan: the set is read at Finish.
	res, err := s.Finish(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Orphans) != 1 || res.Orphans[0].Length != 2 || res.Orphans[0].PoolID != "p1" {
		t.Fatalf("orphans = %+v", res.Orphans)
	}
	redistest.Do(t, c, "SADD", k.WorkerPools(), "p1")
	res, err = s.Finish(context.Background(), c)
	if err != nil || len(res.Orphans) != 0 {
		t.Fatalf("after SADD: %+v, %v", res.Orphans, err)
	}
}

func TestOrphanScanEdgeCases(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := NewKeys("work")
	// A string at an in-progress key: a warning, not an orphan.
	redistest.Do(t, c, "SET", k.InProgress("j", "p2"), "x")
	// A key whose job name would be empty does not parse.
	redistest.Do(t, c, "RPUSH", "work:jobs::p3:inprogress", "x")
	// worker_pools of the wrong type is an error.
	res, err := ScanOrphans(context.Background(), ReadOnlyConn(c), k, 0, nil)
	if err != nil {
		t.Fatalf("scan on a read-only connection: %v", err)
	}
	if len(res.Orphans) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "not a list") {
		t.Fatalf("got orphans %+v warnings %q", res.Orphans, res.Warnings)
	}
	redistest.Do(t, c, "SET", k.WorkerPools(), "x")
	if _, err := ScanOrphans(context.Background(), c, k, 0, nil); err == nil {
		t.Fatal("worker_pools of the wrong type: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ScanOrphans(ctx, c, k, 0, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}

// TestOrphanScanPoolLeavesDuringWalk: the keys of a pool that was in the
// set when the walk started are held compactly; when the pool has left the
// set by Finish, they are its orphans all the same, each job type once,
// past the first 64 job types too.
func TestOrphanScanPoolLeavesDuringWalk(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := NewKeys("work")
	const stays, leaves = "aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb"
	redistest.Do(t, c, "SADD", k.WorkerPools(), stays, leaves)
	var want []model.InProgressList
	for j := 0; j < 70; j++ {
		job := fmt.Sprintf("job:%02d", j)
		redistest.Do(t, c, "RPUSH", k.InProgress(job, stays), "{}")
		if j%3 == 0 {
			redistest.Do(t, c, "RPUSH", k.InProgress(job, leaves), "{}", "{}")
			want = append(want, model.InProgressList{Key: k.InProgress(job, leaves), JobName: job, PoolID: leaves, Length: 2})
		}
	}
	for i := 0; i < 300; i++ {
		redistest.Do(t, c, "SET", fmt.Sprintf("work:other:%d", i), "x")
	}
	s := NewOrphanScan(k, 20)
	if _, err := s.Step(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	redistest.Do(t, c, "SREM", k.WorkerPools(), leaves)
	for !s.Done() {
		if _, err := s.Step(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Finish(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	orphSortLists(want)
	if !reflect.DeepEqual(res.Orphans, want) {
		t.Errorf("orphans:\n got %+v\nwant %+v", res.Orphans, want)
	}
	if res.Candidates != 70+len(want) {
		t.Errorf("candidates = %d, want %d", res.Candidates, 70+len(want))
	}
}

// TestOrphanScanCountsAKeyOnce: SCAN may return a key twice while Redis
// rehashes; the scan counts it once whether its pool was in the set or
// not.
func TestOrphanScanCountsAKeyOnce(t *testing.T) {
	k := NewKeys("work")
	s := NewOrphanScan(k, 0)
	s.setPools(reply{v: []any{[]byte("p1")}})
	for i := 0; i < 2; i++ {
		s.add([]byte(k.InProgress("a", "p1")))
		s.add([]byte(k.InProgress("a:b", "p1")))
		s.add([]byte(k.InProgress("a", "p2")))
		s.add([]byte(k.Queue("a")))
	}
	if p := s.Progress(); p.Candidates != 3 {
		t.Fatalf("candidates = %d, want 3", p.Candidates)
	}
}

// The walk makes nothing of a key of a pool in the set beyond the reply
// itself: two allocations per key are redigo's (the bytes, and the
// interface value that holds them), and the scan's own used to be a
// third (a string of every key, 20,000 of them at 1,000 pools x 20 job
// types, for a set look-up).
func TestOrphanScanAllocatesNoStringPerKey(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	k := NewKeys("work")
	const pools, jobs = 100, 20
	for p := 0; p < pools; p++ {
		id := fmt.Sprintf("%024x", p)
		if err := c.Send("SADD", k.WorkerPools(), id); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < jobs; j++ {
			if err := c.Send("RPUSH", k.InProgress(fmt.Sprintf("job%02d", j), id), "{}"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := c.Do(""); err != nil {
		t.Fatal(err)
	}
	var res OrphanResult
	var err error
	allocs := testing.AllocsPerRun(1, func() {
		res, err = ScanOrphans(context.Background(), c, k, DefaultScanCount, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Candidates != pools*jobs || len(res.Orphans) != 0 {
		t.Fatalf("scan saw %d keys and %d orphans, want %d and none", res.Candidates, len(res.Orphans), pools*jobs)
	}
	t.Logf("%.0f allocations for %d keys", allocs, pools*jobs)
	if allocs > 2.5*pools*jobs {
		t.Errorf("the scan made %.0f allocations for %d keys, want at most 2.5 a key", allocs, pools*jobs)
	}
}
