package redisq

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// benchPollNamespace seeds work: the shape of make bench's section 9: 1,000
// pools (1% of them dead) serving 20 job types, 10 workers each, 2 jobs in
// progress a pool, 50 jobs queued of each type for two minutes, and a dead
// set of 50,000 members of which 10,000 died in the last hour.
func benchPollNamespace(b *testing.B, c redis.Conn, now time.Time) {
	b.Helper()
	k := NewKeys("work")
	var jobs []string
	for j := 0; j < 20; j++ {
		jobs = append(jobs, fmt.Sprintf("job%02d", j))
	}
	send := func(cmd string, args ...any) {
		if err := c.Send(cmd, args...); err != nil {
			b.Fatal(err)
		}
	}
	for p := 0; p < 1000; p++ {
		id := fmt.Sprintf("%024x", p)
		var ws []string
		for w := 0; w < 10; w++ {
			ws = append(ws, fmt.Sprintf("%024x", p*10+w))
		}
		beat := now.Unix()
		if p%100 == 0 {
			beat -= 3600
		}
		send("SADD", k.WorkerPools(), id)
		send("HSET", k.Heartbeat(id), "heartbeat_at", beat, "started_at", beat, "job_names", strings.Join(jobs, ","),
			"concurrency", 10, "worker_ids", strings.Join(ws, ","), "host", "h", "pid", p)
		for l := 0; l < 2; l++ {
			job := jobs[(p+l)%20]
			send("LPUSH", k.InProgress(job, id), fmt.Sprintf(`{"name":%q,"id":"%d-%d","t":%d,"args":{}}`, job, p, l, beat))
			send("INCR", k.Lock(job))
			send("HINCRBY", k.LockInfo(job), id, 1)
		}
	}
	for _, job := range jobs {
		send("SADD", k.KnownJobs(), job)
		for q := 0; q < 50; q++ {
			send("LPUSH", k.Queue(job), fmt.Sprintf(`{"name":%q,"id":"q%d","t":%d,"args":{}}`, job, q, now.Unix()-120+int64(q)))
		}
	}
	if _, err := c.Do(""); err != nil {
		b.Fatal(err)
	}
	benchHealthSet(b, c, now, 50_000, 10_000)
}

// cpuNow is the process's CPU time, user and system.
func cpuNow(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkHealthPoll is what the job health adds to the screen's regular
// poll (make bench's 9b): "poll" the poll alone, "judged" the poll and the
// tracker's later read and judgement, "health" the later read and
// judgement alone on one poll's snapshot; 10 new deaths before each, the
// live pools' heartbeats rewritten (both outside the time and CPU
// reported).
func BenchmarkHealthPoll(b *testing.B) {
	srv := redistest.Start(b)
	c := srv.Dial()
	defer c.Close()
	side := srv.Dial()
	defer side.Close()
	now := redistest.Time(b, c)
	benchPollNamespace(b, c, now)
	k := NewKeys("work")
	ctx := context.Background()
	client := NewClient(OneConn(c), "work", 0)
	l := model.DefaultHealthLimits()
	n := 0
	prepare := func(b *testing.B) {
		b.StopTimer()
		t := time.Now().Unix()
		for p := 0; p < 1000; p++ {
			if p%100 != 0 {
				_ = side.Send("HSET", k.Heartbeat(fmt.Sprintf("%024x", p)), "heartbeat_at", t)
			}
		}
		args := []any{k.Dead()}
		for i := 0; i < 10; i++ {
			n++
			args = append(args, t, fmt.Sprintf(`{"name":"job00","id":"new%d","t":%d,"args":{},"fails":4,"err":"boom","failed_at":%d}`, n, t, t))
		}
		if _, err := side.Do("ZADD", args...); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	run := func(name string, op func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				prepare(b)
				start := cpuNow(b)
				op(b)
				cpu += cpuNow(b) - start
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
	poller := NewPoller(client)
	tracker := NewHealthTracker("work", l)
	snap, err := poller.Poll(ctx, PollRequest{})
	if err != nil {
		b.Fatal(err)
	}
	if err := client.AssessJobs(ctx, tracker, snap); err != nil {
		b.Fatal(err)
	}
	run("poll", func(b *testing.B) {
		if _, err := poller.Poll(ctx, PollRequest{}); err != nil {
			b.Fatal(err)
		}
	})
	run("judged", func(b *testing.B) {
		s, err := poller.Poll(ctx, PollRequest{})
		if err != nil {
			b.Fatal(err)
		}
		if err := client.AssessJobs(ctx, tracker, s); err != nil {
			b.Fatal(err)
		}
	})
	run("health", func(b *testing.B) {
		s := *snap
		if err := client.AssessJobs(ctx, tracker, &s); err != nil {
			b.Fatal(err)
		}
	})
}
