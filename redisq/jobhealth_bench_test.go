package redisq

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// benchHealthSet fills work:dead with the shape of make bench's section 9:
// recent members in the last hour, the rest before it.
func benchHealthSet(b *testing.B, c redis.Conn, now time.Time, n, recent int) {
	b.Helper()
	args := []any{"work:dead"}
	for i := 0; i < n; i++ {
		at := now.Add(-time.Hour - time.Duration(i)*2*time.Second)
		if i < recent {
			at = now.Add(-time.Duration(i) * time.Hour / time.Duration(recent))
		}
		args = append(args, at.Unix(), fmt.Sprintf(`{"name":"job%02d","id":"%024x","t":%d,"args":{"account_id":%d},"fails":4,"err":"upstream %d: timeout after %ds","failed_at":%d}`,
			i%20, i, at.Unix()-30, i, 500+i%4, 1+i%30, at.Unix()))
		if len(args) > 2000 || i == n-1 {
			if _, err := c.Do("ZADD", args...); err != nil {
				b.Fatal(err)
			}
			args = args[:1]
		}
	}
}

// BenchmarkHealthFirstRead is the tracker's first read of an hour of
// 10,000 deaths ("first") beside a raw ZRANGEBYSCORE of the same span
// ("raw").
func BenchmarkHealthFirstRead(b *testing.B) {
	srv := redistest.Start(b)
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(b, c)
	benchHealthSet(b, c, now, 50_000, 10_000)
	l := model.DefaultHealthLimits()
	since := now.Add(-l.History()).Unix()
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			if _, err := c.Do("ZRANGEBYSCORE", "work:dead", since, "+inf", "WITHSCORES"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			if err := NewHealthTracker("work", l).Assess(context.Background(), c, &model.Snapshot{RedisTime: now}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU reports the process's CPU time (user and system, the
// collector's included) and its minor page faults per operation from its
// call to the returned function's: measures a busy machine inflates less
// than the wall time (a first touch of a page costs about 13 microseconds
// on the development machine, make bench's 1j).
func reportCPU(b *testing.B) func() {
	usage := func() (time.Duration, int64) {
		var u syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
			b.Fatal(err)
		}
		return time.Duration(u.Utime.Nano() + u.Stime.Nano()), u.Minflt
	}
	start, faults := usage()
	return func() {
		end, endFaults := usage()
		b.ReportMetric(float64(end-start)/float64(b.N)/1e6, "cpu-ms/op")
		b.ReportMetric(float64(endFaults-faults)/float64(b.N), "faults/op")
	}
}
