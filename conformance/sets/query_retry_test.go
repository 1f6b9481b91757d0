package sets_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// A real pool fails three waves of jobs, seconds apart, into the retry set
// with an hour's backoff; a third of them are retried once a second later
// and fail again, so that fails and failed_at differ among them. A query on
// the retry set selects exactly the jobs an equal filter over
// Client.RetryJobs pages selects: since:/until: on the last failure
// (failed_at), err:, err~, args.PATH:, fails>=.
func TestQueryMatchesUpstreamRetryJobs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	rp := gcstate.RedisPool(t, srv.Addr())
	backoff := func(j *work.Job) int64 {
		if n, _ := j.Args["n"].(float64); j.Fails == 1 && int(n)%3 == 0 {
			return 1
		}
		return 3600
	}
	wp := work.NewWorkerPool(ctxType{}, 4, "r", rp)
	wp.JobWithOptions("charge", work.JobOptions{MaxFails: 10, Backoff: backoff}, func(j *work.Job) error {
		return fmt.Errorf("wave %v try %d: Gateway Timeout", j.Args["wave"], j.Fails+1)
	})
	wp.Start()
	defer wp.Stop()
	enq := work.NewEnqueuer("r", rp)
	const perWave = 12
	twice := func() (int, error) {
		ms, err := redis.Strings(c.Do("ZRANGE", "r:retry", 0, -1))
		n := 0
		for _, m := range ms {
			if strings.Contains(m, `"fails":2`) {
				n++
			}
		}
		return n, err
	}
	for wave := 1; wave <= 3; wave++ {
		for i := 0; i < perWave; i++ {
			if _, err := enq.Enqueue("charge", work.Q{"wave": wave, "n": i, "order": fmt.Sprintf("ord_%d_%d", wave, i)}); err != nil {
				t.Fatal(err)
			}
		}
		gcstate.WaitFor(t, 30*time.Second, fmt.Sprintf("wave %d in retry, a third failed twice", wave), func() (bool, error) {
			n, err := redis.Int(c.Do("ZCARD", "r:retry"))
			if err != nil {
				return false, err
			}
			k, err := twice()
			return n == wave*perWave && k == wave*perWave/3, err
		})
		time.Sleep(2100 * time.Millisecond)
	}
	client := work.NewClient("r", rp)
	var up []*work.RetryJob
	for page := uint(1); ; page++ {
		js, _, err := client.RetryJobs(page)
		if err != nil {
			t.Fatal(err)
		}
		if len(js) == 0 {
			break
		}
		up = append(up, js...)
	}
	if len(up) != 3*perWave {
		t.Fatalf("upstream pages hold %d retry jobs, want %d", len(up), 3*perWave)
	}
	lo, hi := int64(1<<62), int64(0)
	for _, j := range up {
		if j.Args["wave"] == float64(2) {
			lo, hi = min(lo, j.FailedAt), max(hi, j.FailedAt)
		}
	}
	keys := redisq.NewKeys("r")
	rfc := func(s int64) string { return time.Unix(s, 0).UTC().Format(time.RFC3339) }
	ids := func(text string) []string { return queryIDs(t, c, keys, model.SetRetry, text) }
	upIDs := func(keep func(*work.RetryJob) bool) []string {
		return keptIDs(up, func(j *work.RetryJob) string { return j.ID }, keep)
	}
	for _, tc := range []struct {
		query string
		keep  func(*work.RetryJob) bool
		least int
	}{
		{fmt.Sprintf("since:%s until:%s", rfc(lo), rfc(hi)), func(j *work.RetryJob) bool { return j.FailedAt >= lo && j.FailedAt <= hi }, perWave},
		{"since:" + rfc(hi), func(j *work.RetryJob) bool { return j.FailedAt >= hi }, perWave},
		{"until:" + rfc(lo-1), func(j *work.RetryJob) bool { return j.FailedAt <= lo-1 }, perWave / 2},
		{`err~"^wave [13] try 2:"`, func(j *work.RetryJob) bool { return j.Args["wave"] != float64(2) && j.Fails == 2 }, 2 * perWave / 3},
		{`err:"gateway TIMEOUT" args.n:3`, func(j *work.RetryJob) bool { return j.Args["n"] == float64(3) }, 3},
		{`args.order:ord_3_6 fails>=2`, func(j *work.RetryJob) bool { return j.Args["order"] == "ord_3_6" && j.Fails >= 2 }, 1},
		{`args.order:ord_3_7 fails>=2`, func(j *work.RetryJob) bool { return j.Args["order"] == "ord_3_7" && j.Fails >= 2 }, 0},
		{`fails>=2`, func(j *work.RetryJob) bool { return j.Fails >= 2 }, perWave},
		{`fails<=1 job:charge`, func(j *work.RetryJob) bool { return j.Fails <= 1 }, 2 * perWave},
	} {
		got, want := ids(tc.query), upIDs(tc.keep)
		if fmt.Sprint(got) != fmt.Sprint(want) || len(want) < tc.least {
			t.Errorf("%s: ours %v, upstream %v (want at least %d)", tc.query, got, want, tc.least)
		}
	}
}
