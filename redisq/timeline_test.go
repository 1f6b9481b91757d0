package redisq

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A walk of a window reads every member scored in it once, in score order,
// ties that span several steps included, nothing outside it, and leaves no
// reply unread on the connection.
func TestWalkScores(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	const key = "work:dead"
	add := func(score, n int, tag string) {
		args := []any{key}
		for i := 0; i < n; i++ {
			args = append(args, score, fmt.Sprintf(`{"name":"j","id":"%s%05d","t":1,"args":{}}`, tag, i))
		}
		redistest.Do(t, c, "ZADD", args...)
	}
	add(99, 40, "before")
	add(100, 700, "a")
	add(101, 2*TimelineStep+300, "tie") // one score across three steps
	add(102, TimelineStep-1, "b")
	add(103, 1, "c") // the last member of the window ends a full step
	add(104, 50, "after")
	want := 700 + 2*TimelineStep + 300 + TimelineStep - 1 + 1
	seen := map[string]bool{}
	last := 0.0
	steps := 0
	err := WalkScores(context.Background(), c, key, model.SetDead, 100, 103, func(page []model.SetJob) {
		steps++
		for _, sj := range page {
			if seen[string(sj.Raw)] {
				t.Errorf("%s read twice", sj.Raw)
			}
			seen[string(sj.Raw)] = true
			if sj.Score < last || sj.Score < 100 || sj.Score > 103 {
				t.Errorf("score %v after %v", sj.Score, last)
			}
			last = sj.Score
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != want {
		t.Errorf("read %d members, want %d", len(seen), want)
	}
	if pong, err := redis.String(c.Do("PING")); err != nil || pong != "PONG" {
		t.Errorf("the connection after the walk: %q %v", pong, err)
	}
	if steps != (want+TimelineStep-1)/TimelineStep {
		t.Errorf("%d steps for %d members", steps, want)
	}

	// A key of another type reads as empty.
	redistest.Do(t, c, "SET", "work:retry", "x")
	if err := WalkScores(context.Background(), c, "work:retry", model.SetRetry, 0, 1<<53, func([]model.SetJob) { t.Error("a page of a string") }); err != nil {
		t.Fatal(err)
	}
}

// A timeline counts each death once in its bucket and each error by its
// normalised text, the same text normalised once and remembered.
func TestTimelineBuckets(t *testing.T) {
	now := time.Unix(1_800_000_000, 0) // a multiple of 5 minutes
	tl := model.NewTimeline(now, time.Hour, 5*time.Minute)
	at := func(ago time.Duration, err string) model.SetJob {
		s := now.Add(-ago).Unix()
		return model.ParseSetJob(model.SetDead, []byte(fmt.Sprintf(`{"name":"charge","id":"x","t":1,"args":{},"err":%q}`, err)), fmt.Sprint(s))
	}
	tl.AddDead([]model.SetJob{at(time.Minute, "timeout after 30 s"), at(2*time.Minute, "timeout after 31 s"),
		at(6*time.Minute, "timeout after 30 s"), at(2*time.Hour, "too old")})
	if n := len(tl.Buckets); n != 13 {
		t.Fatalf("%d buckets for an hour of 5 minutes and the current one", n)
	}
	lastB, prev := tl.Buckets[len(tl.Buckets)-2], tl.Buckets[len(tl.Buckets)-3]
	if lastB.Deaths != 2 || lastB.ByError["timeout after N s"] != 2 || prev.Deaths != 1 || prev.ByError["timeout after N s"] != 1 {
		t.Errorf("buckets %+v %+v", prev, lastB)
	}
	total := 0
	for _, b := range tl.Buckets {
		total += b.Deaths
	}
	if total != 3 {
		t.Errorf("%d deaths counted, want the 3 in the window", total)
	}
}

// The facts' deaths, read as the latest members and then dated, are
// exactly the members ZREVRANGEBYSCORE +inf (now - window) LIMIT 0 limit
// gives: with more recent deaths than the limit, and with fewer.
func TestExplainFactsDeadWindow(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("work")
	now := time.Unix(1_800_000_000, 0)
	from := now.Add(-ExplainDeadWindow).Unix()
	add := func(first, n int, score func(i int) int64) {
		args := []any{keys.Dead()}
		for i := first; i < first+n; i++ {
			args = append(args, score(i), fmt.Sprintf(`{"name":"j","id":"%06d","t":1,"args":{}}`, i))
		}
		redistest.Do(t, c, "ZADD", args...)
	}
	check := func(what string) {
		t.Helper()
		f, err := ReadExplainFacts(context.Background(), c, keys, now)
		if err != nil {
			t.Fatal(err)
		}
		want, err := redis.ByteSlices(c.Do("ZREVRANGEBYSCORE", keys.Dead(), "+inf", from, "LIMIT", 0, ExplainSetLimit))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Dead) != len(want) {
			t.Fatalf("%s: %d deaths, ZREVRANGEBYSCORE gives %d", what, len(f.Dead), len(want))
		}
		for i := range want {
			if string(f.Dead[i].Raw) != string(want[i]) {
				t.Fatalf("%s: death %d is %s, want %s", what, i, f.Dead[i].Raw, want[i])
			}
		}
	}
	add(0, 300, func(i int) int64 { return from - 1 - int64(i) }) // older than the window
	add(300, 200, func(i int) int64 { return from + int64(i%50) })
	check("fewer than the limit")
	add(500, ExplainSetLimit, func(i int) int64 { return now.Unix() - int64(i%700) })
	check("more than the limit")
}
