package redisq

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A walk of a score range returns every member of the range present for
// the whole walk exactly once, with its score, even when members are
// removed and added around its position between steps (ties at its score,
// the member it got to removed), and reads only the range: Seen counts the
// members of the range, not the set.
func TestRangeScanUnderChanges(t *testing.T) {
	srv := redistest.Start(t)
	c, w := srv.Dial(), srv.Dial()
	ctx := context.Background()
	keys := NewKeys("work")
	key := SetKey(keys, model.SetDead)
	seeds := 30
	if testing.Short() {
		seeds = 6 // the loop between edits; make test runs all 30
	}
	for seed := 1; seed <= seeds; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		setsDo(t, w, "DEL", key)
		n := 0
		stable, ever := map[string]bool{}, map[string]bool{}
		add := func(score int) string {
			n++
			m := fmt.Sprintf(`{"name":"a","id":"%06d","err":"e%d"}`, n, n%3)
			setsDo(t, w, "ZADD", key, score, m)
			ever[m] = true
			return m
		}
		for i := 0; i < 2000; i++ {
			stable[add(r.Intn(100))] = true
		}
		lo, hi := 20+r.Intn(10), 60+r.Intn(10)
		text := fmt.Sprintf("since:%s until:%s", time.Unix(int64(lo), 0).UTC().Format(time.RFC3339), time.Unix(int64(hi), 0).UTC().Format(time.RFC3339))
		if seed%2 == 0 {
			text += " err:e1"
		}
		q, err := model.ParseQuery(text, model.QueryClock{Now: time.Unix(1000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		s := NewSetWalk(keys, model.SetDead, SetFilter{Query: q}, 20+r.Intn(50))
		if _, ok := s.(*RangeScan); !ok {
			t.Fatalf("a query with time terms walks with %T", s)
		}
		if seed%3 == 0 {
			// Each call goes before the changes below: its reply may
			// start before or after them.
			s.ReadAhead()
		}
		got := map[string]int{}
		for steps := 0; !s.Progress().Done; steps++ {
			if steps > 10000 {
				t.Fatalf("seed %d: no end", seed)
			}
			jobs, err := s.Step(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, sj := range jobs {
				got[string(sj.Raw)]++
				if sc, err := redis.String(w.Do("ZSCORE", key, sj.Raw)); err == nil && sc != sj.ScoreText {
					t.Fatalf("seed %d: %s returned with score %q, has %s", seed, sj.Raw, sj.ScoreText, sc)
				}
			}
			rs := s.(*RangeScan)
			switch r.Intn(6) {
			case 1: // the member the walk got to and others of its score
				at, _ := redis.Strings(w.Do("ZRANGEBYSCORE", key, rs.lastText, rs.lastText))
				for i, m := range at {
					if r.Intn(2) == 0 || string(rs.last) == m || i == 0 {
						setsDo(t, w, "ZREM", key, m)
						delete(stable, m)
					}
				}
			case 2: // added at its score and anywhere
				for i := r.Intn(40); i > 0; i-- {
					add(int(rs.lastScore) + r.Intn(3) - 1)
				}
			}
		}
		for m := range stable {
			sj := model.ParseSetJob(model.SetDead, []byte(m), scoreOf(t, w, key, m))
			if q.MatchSetJob(sj) && got[m] != 1 {
				t.Fatalf("seed %d: %s, in the range throughout, returned %d times", seed, m, got[m])
			}
		}
		for m, k := range got {
			if k != 1 || !ever[m] {
				t.Fatalf("seed %d: %s returned %d times", seed, m, k)
			}
		}
		if size := s.Progress().Size; s.Progress().Seen > 2*size+500 {
			t.Fatalf("seed %d: read %d members for a range of %d", seed, s.Progress().Seen, size)
		}
	}
}

func scoreOf(t *testing.T, c redis.Conn, key, m string) string {
	t.Helper()
	v, err := redis.String(c.Do("ZSCORE", key, m))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A range walk of a big set reads the window only: the members it reads
// are those whose score lies in the window.
func TestRangeScanReadsOnlyTheWindow(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	ctx := context.Background()
	keys := NewKeys("work")
	key := SetKey(keys, model.SetDead)
	args := []any{key}
	for i := 0; i < 20000; i++ {
		args = append(args, i, fmt.Sprintf(`{"name":"a","id":"%d"}`, i))
	}
	setsDo(t, c, "ZADD", args...)
	q, err := model.ParseQuery("since:1970-01-01T01:00:00Z until:1970-01-01T01:09:59Z", model.QueryClock{Now: time.Unix(1e6, 0)})
	if err != nil {
		t.Fatal(err)
	}
	page, err := FilterSetPage(ctx, c, keys, model.SetDead, SetFilter{Query: q}, PageOptions{Limit: 5}, ScanOptions{Count: 100})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 600 || len(page.Jobs) != 5 || page.Jobs[0].ScoreText != "4199" {
		t.Fatalf("page: total %d, %d jobs, first %+v", page.Total, len(page.Jobs), page.Jobs)
	}
	s := NewSetWalk(keys, model.SetDead, SetFilter{Query: q}, 100)
	for !s.Progress().Done {
		if _, err := s.Step(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if p := s.Progress(); p.Seen != 600 || p.Size != 600 || p.Calls != 7 {
		t.Fatalf("progress %+v: want 600 members read of a window of 600 in 7 calls", p)
	}
}

// A range walk that reads ahead has the next call in flight while the
// members of a step are parsed, returns what a walk that does not read
// ahead returns, and leaves nothing in flight once stepped to its end.
func TestRangeScanReadAhead(t *testing.T) {
	srv := redistest.Start(t)
	c, admin := srv.Dial(), srv.Dial()
	for i := 0; i < 1000; i++ {
		// Three members a score: calls start among ties.
		redistest.Do(t, admin, "ZADD", "work:dead", 1000+i/3, fmt.Sprintf(`{"name":"a","id":"%04d"}`, i))
	}
	q, err := model.ParseQuery("since:1970-01-01T00:20:00Z until:1970-01-01T00:24:00Z", model.QueryClock{Now: time.Unix(10000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	keys := NewKeys("work")
	walk := func(ahead bool) ([]string, []int64) {
		redistest.Do(t, admin, "CONFIG", "RESETSTAT")
		s := NewRangeScan(keys, model.SetDead, SetFilter{Query: q}, "1200", "1440", 50)
		if ahead {
			s.ReadAhead()
		}
		var ids []string
		var calls []int64
		for !s.Progress().Done {
			jobs, err := s.Step(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			for _, sj := range jobs {
				ids = append(ids, sj.Job.ID+"@"+sj.ScoreText)
			}
			calls = append(calls, redistest.CommandCalls(t, admin)["zrangebyscore"])
		}
		return ids, calls
	}
	plain, plainCalls := walk(false)
	ahead, aheadCalls := walk(true)
	want, err := redis.Int(admin.Do("ZCOUNT", "work:dead", 1200, 1440))
	if err != nil || want != 400 || len(plain) != want || !slices.Equal(plain, ahead) {
		t.Fatalf("plain walk %d members, read-ahead %d, want the same %d (%v)", len(plain), len(ahead), want, err)
	}
	// After its first step the read-ahead walk has sent one call more
	// than it read; at the end, none.
	if plainCalls[0] != 1 || aheadCalls[0] != 2 {
		t.Fatalf("calls sent after the first step: %d plain, %d read ahead; want 1 and 2", plainCalls[0], aheadCalls[0])
	}
	if last := aheadCalls[len(aheadCalls)-1]; last != int64(len(aheadCalls)) {
		t.Fatalf("read-ahead walk sent %d calls in %d steps", last, len(aheadCalls))
	}
	if v, err := redis.String(c.Do("ECHO", "in step")); err != nil || v != "in step" {
		t.Fatalf("after the walk: %q %v", v, err)
	}
}
