package redisq

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// benchDeadSet fills <ns>:dead with n dead jobs as gocraft/work's worker
// writes them.
func benchDeadSet(b *testing.B, c redis.Conn, keys Keys, n int) {
	b.Helper()
	key := SetKey(keys, model.SetDead)
	args := []any{key}
	for i := 0; i < n; i++ {
		died := 1700000000 + i
		args = append(args, died, fmt.Sprintf(`{"name":"send_mail_%d","id":"%024x","t":%d,"args":{"account_id":%d,"email":"user%d@example.com","template":"welcome_v2"},"fails":4,"err":"dial tcp 10.0.%d.%d:25: i/o timeout","failed_at":%d}`,
			i%20, i*7919, died-600, 100000+i, i, i%250, i%200, died))
		if len(args) == 1+2*500 || i == n-1 {
			if _, err := c.Do("ZADD", args...); err != nil {
				b.Fatal(err)
			}
			args = args[:1]
		}
	}
}

// rawFirstPage is the baseline: the first page's ZRANGE and ZCARD sent in
// one round trip and received with redigo, the jobs not read.
func rawFirstPage(b *testing.B, c redis.Conn, key string) {
	for _, cmd := range [][]any{{key, -DefaultPageLimit, -1, "WITHSCORES"}, {key}} {
		name := "ZRANGE"
		if len(cmd) == 1 {
			name = "ZCARD"
		}
		if err := c.Send(name, cmd...); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		b.Fatal(err)
	}
	for range 2 {
		if _, err := c.Receive(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadSetPage reads the first page of a dead set (newest first,
// the default page) with ReadSetPage and with the raw ZRANGE+ZCARD: "ours"
// (with a context that is never cancelled, as the bench table's line
// calls it), "ours-cancellable" (with one that can be, as the command line
// calls it) and "raw" time each alone (with -benchmem, their
// allocations); "ratio" alternates ours and raw in one loop and reports
// the ratio of their medians, as the bench table's line does.
func BenchmarkReadSetPage(b *testing.B) {
	srv := redistest.Start(b)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("bench")
	benchDeadSet(b, c, keys, 10000)
	key := SetKey(keys, model.SetDead)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	read := func(b *testing.B, ctx context.Context) {
		p, err := ReadSetPage(ctx, c, keys, model.SetDead, PageOptions{})
		if err != nil || len(p.Jobs) != DefaultPageLimit || p.Jobs[0].Job == nil {
			b.Fatalf("page %+v: %v", p, err)
		}
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			read(b, context.Background())
		}
	})
	b.Run("ours-cancellable", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			read(b, cancellable)
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rawFirstPage(b, c, key)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var o, r []time.Duration
		timed := func(f func()) time.Duration {
			t0 := time.Now()
			f()
			return time.Since(t0)
		}
		ours := func() { read(b, context.Background()) }
		raw := func() { rawFirstPage(b, c, key) }
		for i := 0; b.Loop(); i++ {
			// Each goes first every other round.
			if i%2 == 0 {
				o = append(o, timed(ours))
				r = append(r, timed(raw))
			} else {
				r = append(r, timed(raw))
				o = append(o, timed(ours))
			}
		}
		slices.Sort(o)
		slices.Sort(r)
		b.ReportMetric(float64(o[len(o)/2])/float64(r[len(r)/2]), "ours/raw")
		b.ReportMetric(float64(o[len(o)/2].Microseconds()), "ours-us")
		b.ReportMetric(float64(r[len(r)/2].Microseconds()), "raw-us")
	})
}
