package redisq

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// The tracker's failure log holds what ParseJobFields reads from each
// member, whatever the members: escaped names and errors, fields repeated
// or of another type, members that are not jobs or have no name, scores
// with a fraction, retry members outside the history.
func TestHealthTrackerReadsMembersAsParseJobFields(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c)
	at := func(ago time.Duration) int64 { return now.Add(-ago).Unix() }
	members := []string{
		`{"name":"charge","id":"a","t":1,"args":{},"fails":4,"err":"gateway timeout after 30s","failed_at":%d}`,
		`{"name":"ch\u0061rge","id":"b","err":"line\nbreak \u00e9 after 31s","failed_at":%d}`,
		`{"name":"a\/b","id":"c","err":"esc\"aped","err":null,"failed_at":%d}`,
		`{"name":"x","name":"mail","id":"d","err":7,"failed_at":%d}`,
		`{"name":"","id":"e","err":"no name","failed_at":%d}`,
		`{"id":"f","err":"no name at all","failed_at":%d}`,
		`not a job %d`,
		`["list",%d]`,
		"{\"name\":\"mail\",\"id\":\"g\",\"err\":\"bad \xff utf8 \\u0000\",\"failed_at\":%d}",
	}
	for i, m := range members {
		ago := time.Duration(i+1) * time.Minute
		redistest.Do(t, c, "ZADD", "work:dead", strconv.FormatInt(at(ago), 10)+".25", fmt.Sprintf(m, at(ago)))
		redistest.Do(t, c, "ZADD", "work:retry", now.Unix()+60, fmt.Sprintf(m, at(ago+time.Second)))
	}
	old := fmt.Sprintf(`{"name":"mail","id":"old","err":"old","failed_at":%d}`, at(3*time.Hour))
	redistest.Do(t, c, "ZADD", "work:retry", now.Unix()+60, old)

	l := model.DefaultHealthLimits()
	since := now.Add(-l.History()).Unix()
	want := map[string][]model.Failure{}
	read := func(key string, dead bool) {
		pairs, err := redis.Strings(c.Do("ZRANGEBYSCORE", key, "-inf", "+inf", "WITHSCORES"))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(pairs); i += 2 {
			j, _ := model.ParseJobFields([]byte(pairs[i]))
			if j == nil || j.Name == "" {
				continue
			}
			f := model.Failure{At: j.FailedAt, Err: model.NormalizeError(j.LastErr), Dead: dead}
			if dead {
				score, _ := strconv.ParseFloat(pairs[i+1], 64)
				f.At = int64(score)
			}
			if f.At > since {
				want[j.Name] = append(want[j.Name], f)
			}
		}
	}
	read("work:dead", true)
	read("work:retry", false)
	for _, fs := range want {
		sortFailures(fs)
	}

	tr := NewHealthTracker("work", l)
	got, err := tr.readFailures(context.Background(), c, now)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Jobs, want) {
		t.Errorf("failure log:\n got %v\nwant %v", got.Jobs, want)
	}
	if len(want["mail"]) != 4 || len(want["charge"]) != 4 || len(want["a/b"]) != 2 {
		t.Errorf("the members were not read as the test means: %v", want)
	}
}

// Reading a member allocates nothing of its own: the first read takes an
// hour of deaths (10,000 and more), and their garbage was a third of its
// time.
func TestHealthTrackerDeadMembersAllocations(t *testing.T) {
	const n = 2000
	pairs := make([]any, 0, 2*n)
	for i := 0; i < n; i++ {
		pairs = append(pairs,
			[]byte(fmt.Sprintf(`{"name":"job%02d","id":"%024x","t":1,"args":{"account_id":%d},"fails":4,"err":"upstream %d: timeout after %ds","failed_at":%d}`, i%20, i, i, 500+i%4, 1+i%30, 1765000000+i)),
			[]byte(strconv.Itoa(1765000000+i)))
	}
	tr := NewHealthTracker("work", model.DefaultHealthLimits())
	tr.addDead(pairs) // the names and the errors' normal forms, once
	allocs := testing.AllocsPerRun(5, func() {
		tr.deadLast = 0
		clear(tr.log)
		tr.addDead(pairs)
	})
	// The 20 types' logs grow by appending: about 20 x log2(100) slices.
	if per := allocs / n; per > 0.1 {
		t.Errorf("%.0f allocations for %d members (%.2f a member), want at most 0.1 a member", allocs, n, per)
	}
}

// The first read walks the dead set in steps: members sharing a score
// across steps (more of them than a step holds) are each counted once, and
// a later read counts only what was added.
func TestHealthTrackerWalksDeadSetInSteps(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c)
	same := now.Add(-10 * time.Minute).Unix()
	add := func(from, n int, score func(i int) int64) {
		args := []any{"work:dead"}
		for i := from; i < from+n; i++ {
			args = append(args, score(i), fmt.Sprintf(`{"name":"job","id":"%06d","err":"boom","failed_at":1}`, i))
		}
		redistest.Do(t, c, "ZADD", args...)
	}
	add(0, healthStep*5/2, func(int) int64 { return same })
	add(healthStep*5/2, healthStep*3/2, func(i int) int64 { return same - 1 - int64(i%700) })
	add(healthStep*4, healthStep+1, func(i int) int64 { return same + 1 + int64(i%3) })
	tr := NewHealthTracker("work", model.DefaultHealthLimits())
	got, err := tr.readFailures(context.Background(), c, now)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Jobs["job"]); n != healthStep*5+1 {
		t.Errorf("first read counted %d, want %d", n, healthStep*5+1)
	}
	add(healthStep*6, 7, func(int) int64 { return same + 3 })
	got, err = tr.readFailures(context.Background(), c, now.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Jobs["job"]); n != healthStep*5+8 {
		t.Errorf("later read: %d counted in all, want %d", n, healthStep*5+8)
	}
}

// The first read sizes each type's log for its share of the members it
// is to take (ZCOUNT), so that the hour's failures are not copied from
// array to array as appends would, nor each type given room for a whole
// step: the logs' capacity stays near the failures they hold.
func TestHealthTrackerFirstReadSizesLogs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c)
	const types, members = 10, healthStep * 4
	args := []any{"work:dead"}
	for i := 0; i < members; i++ {
		args = append(args, now.Add(-time.Duration(i)*time.Second/2).Unix(),
			fmt.Sprintf(`{"name":"job%02d","id":"%06d","t":1,"args":{},"fails":4,"err":"boom","failed_at":1}`, i%types, i))
	}
	redistest.Do(t, c, "ZADD", args...)
	tr := NewHealthTracker("work", model.DefaultHealthLimits())
	got, err := tr.readFailures(context.Background(), c, now)
	if err != nil {
		t.Fatal(err)
	}
	held, room := 0, 0
	for name, tl := range tr.log {
		if n := len(got.Jobs[name]); n != members/types {
			t.Errorf("%s: %d failures, want %d", name, n, members/types)
		}
		held += len(tl.fs)
		room += cap(tl.fs)
	}
	if held != members || room > held*6/5 {
		t.Errorf("logs hold %d failures in room for %d, want %d in at most %d", held, room, members, members*6/5)
	}
}

// A log handed out by one read stays as it was while the tracker goes on:
// the next reads append out of order (a retry's failed_at before the last
// death), sort and drop what left the history, never in the array that
// log shares.
func TestHealthTrackerLogHandedOutUnchanged(t *testing.T) {
	memberOf := func(name string, id, at int) []byte {
		return []byte(fmt.Sprintf(`{"name":%q,"id":"%d","t":1,"err":"e%d","failed_at":%d}`, name, id, id, at))
	}
	member := func(id, at int) []byte { return memberOf("mail", id, at) }
	tr := NewHealthTracker("work", model.DefaultHealthLimits())
	var pairs []any
	for i := 0; i < 10; i++ {
		// Another type's deaths in the same step leave room in mail's
		// array, so that the appends below land in the array shared.
		pairs = append(pairs, member(i, 1000+i*10), []byte(strconv.Itoa(1000+i*10)))
		pairs = append(pairs, memberOf("sms", 100+i, 1000+i*10), []byte(strconv.Itoa(1000+i*10)))
	}
	tr.addDead(pairs)
	first := tr.prune(900)
	want := append([]model.Failure(nil), first.Jobs["mail"]...)
	if len(want) != 10 {
		t.Fatalf("first log: %d failures, want 10", len(want))
	}
	tr.addDead([]any{member(20, 1200), []byte("1200")})
	tr.addRetry([]any{member(21, 1005), []byte("1500")}, 900)
	second := tr.prune(900)
	if got := second.Jobs["mail"]; len(got) != 12 || !failuresSorted(got) {
		t.Fatalf("second log: %+v", got)
	}
	third := tr.prune(1035)
	if got := third.Jobs["mail"]; len(got) != 7 || got[0].At != 1040 {
		t.Fatalf("third log: %+v", got)
	}
	if !reflect.DeepEqual(first.Jobs["mail"], want) {
		t.Errorf("the first log changed under the later reads:\n got %+v\nwant %+v", first.Jobs["mail"], want)
	}
	if len(second.Jobs["mail"]) != 12 || !failuresSorted(second.Jobs["mail"]) {
		t.Errorf("the second log changed under the third read: %+v", second.Jobs["mail"])
	}
}

// A member met again in a later step or read is counted once, whether it
// comes back at the newest score counted before (a step that starts
// there and goes on to newer ones) or at the newest of its own step, and
// members of older scores are never met again.
func TestHealthTrackerCountsRepeatedMembersOnce(t *testing.T) {
	member := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"name":"mail","id":"%d","t":1,"err":"boom","failed_at":1}`, id))
	}
	step := func(ids ...int) []any {
		var pairs []any
		for _, id := range ids {
			// id/10 is the score: 10-19 at 1001, 20-29 at 1002...
			pairs = append(pairs, member(id), []byte(strconv.Itoa(1000+id/10)))
		}
		return pairs
	}
	tr := NewHealthTracker("work", model.DefaultHealthLimits())
	tr.addDead(step(10, 11, 20, 21, 22))
	tr.addDead(step(21, 22, 23, 30))     // 21, 22 again at the newest score before
	tr.addDead(step(11, 30, 31, 40, 41)) // 11 older than all counted, 30 again
	tr.addDead(step(40, 41))             // the whole step again
	tr.addDead(step(41, 42))
	got := tr.prune(0).Jobs["mail"]
	var ids []int64
	for _, f := range got {
		ids = append(ids, f.At)
	}
	// 10 11 | 20 21 22 23 | 30 31 | 40 41 42
	want := []int64{1001, 1001, 1002, 1002, 1002, 1002, 1003, 1003, 1004, 1004, 1004}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("counted at %v, want %v", ids, want)
	}
}
