package reaper

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// BenchmarkRequeue moves the 20,000 jobs of an orphaned list back to their
// queue, one job per script call (what upstream's reaper does) and 1,000 per
// call (the default --batch), and reports jobs per second of each and their
// ratio. Numbers are printed, never asserted.
func BenchmarkRequeue(b *testing.B) {
	const jobs = 20000
	srv := redistest.Start(b)
	c := srv.Dial()
	k := redisq.NewKeys("bench")
	key := k.InProgress("j", "gone")
	fill := func() {
		if _, err := c.Do("DEL", key, k.Queue("j")); err != nil {
			b.Fatal(err)
		}
		args := []interface{}{key}
		for i := 0; i < jobs; i++ {
			args = append(args, fmt.Sprintf(`{"name":"j","id":"%d"}`, i))
		}
		if _, err := c.Do("RPUSH", args...); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Do("HSET", k.LockInfo("j"), "gone", jobs); err != nil {
			b.Fatal(err)
		}
	}
	run := func(batch int) time.Duration {
		fill()
		plan, err := NewReaper(redisq.OneConn(c), "bench", 0).PlanRequeue(context.Background(), []string{key}, 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := NewReaper(redisq.OneConn(c), "bench", batch).Requeue(context.Background(), plan, nil)
		d := time.Since(start)
		if err != nil || res.TotalMoved() != jobs {
			b.Fatalf("moved %d, err %v", res.TotalMoved(), err)
		}
		if n, _ := redis.Int(c.Do("LLEN", k.Queue("j"))); n != jobs {
			b.Fatalf("queue has %d jobs", n)
		}
		return d
	}
	var one, batched time.Duration
	for i := 0; i < b.N; i++ {
		one += run(1)
		batched += run(1000)
	}
	b.ReportMetric(float64(jobs*b.N)/one.Seconds(), "jobs/s-batch1")
	b.ReportMetric(float64(jobs*b.N)/batched.Seconds(), "jobs/s-batch1000")
	b.ReportMetric(one.Seconds()/batched.Seconds(), "speedup")
}
