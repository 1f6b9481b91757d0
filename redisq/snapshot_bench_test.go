package redisq_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// BenchmarkSnapshot reads namespaces of 1, 500 and 5000 pools with 5 job
// types each; it reports round trips per snapshot (always 3) and the
// commands sent, so the time per snapshot can be compared between sizes.
func BenchmarkSnapshot(b *testing.B) {
	srv := redistest.Start(b)
	c := srv.Dial()
	tm, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		b.Fatal(err)
	}
	now := tm[0]
	for _, pools := range []int{1, 500, 5000} {
		ns := fmt.Sprintf("bench%d", pools)
		k := redisq.NewKeys(ns)
		for i := 0; i < pools; i++ {
			id := fmt.Sprintf("%024x", i)
			_ = c.Send("SADD", k.WorkerPools(), id)
			_ = c.Send("HSET", k.Heartbeat(id), "heartbeat_at", now, "started_at", now, "job_names", "a,b,c,d,e",
				"concurrency", 10, "worker_ids", "w", "host", "h", "pid", i)
			_ = c.Send("LPUSH", k.InProgress("a", id), `{"t":1}`)
			_ = c.Send("INCR", k.Lock("a"))
			_ = c.Send("HINCRBY", k.LockInfo("a"), id, 1)
		}
		if _, err := c.Do(""); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("pools=%d", pools), func(b *testing.B) {
			cc := &countingConn{Conn: c}
			cl := redisq.NewClient(redisq.OneConn(cc), ns, 10*time.Second)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				snap, err := cl.Snapshot(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if len(snap.Pools) != pools {
					b.Fatalf("%d pools", len(snap.Pools))
				}
			}
			b.ReportMetric(float64(cc.roundTrips())/float64(b.N), "roundtrips/op")
		})
	}
}
