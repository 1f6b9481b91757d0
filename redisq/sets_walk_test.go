package redisq

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// A walk of a set that changes between its steps (members removed and
// added before, at and after its position, ties at the score it got to,
// the member it got to removed, everything before it removed) returns
// every member present for the whole walk exactly once, and nothing that
// was never in the set.
func TestSetScanUnderChanges(t *testing.T) {
	srv := redistest.Start(t)
	c, w := srv.Dial(), srv.Dial()
	ctx := context.Background()
	keys := NewKeys("work")
	key := SetKey(keys, model.SetRetry)
	resumed := 0
	seeds := 40
	if testing.Short() {
		seeds = 8 // the loop between edits; make test runs all 40
	}
	for seed := 1; seed <= seeds; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		setsDo(t, w, "DEL", key)
		n := 0
		stable, ever := map[string]bool{}, map[string]bool{}
		add := func(score int) string {
			n++
			name := "a"
			if r.Intn(3) == 0 {
				name = "b"
			}
			m := fmt.Sprintf(`{"name":%q,"id":"%06d"}`, name, n)
			setsDo(t, w, "ZADD", key, score, m)
			ever[m] = true
			return m
		}
		remove := func(members []string) {
			for _, m := range members {
				setsDo(t, w, "ZREM", key, m)
				delete(stable, m)
			}
		}
		ranks := func(from, to int64) []string {
			if to < 0 || to < from {
				return nil
			}
			v, err := redis.Strings(w.Do("ZRANGE", key, max(from, 0), to))
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		for i := 0; i < 1500; i++ {
			stable[add(r.Intn(400))] = true
		}
		f := SetFilter{}
		if seed%2 == 0 {
			f.Job = "b"
		}
		s := NewSetScan(keys, model.SetRetry, f, 40+r.Intn(100))
		if seed%3 == 0 {
			s.ReadAhead()
		}
		got := map[string]int{}
		for steps := 0; !s.Progress().Done; steps++ {
			if steps > 10000 {
				t.Fatalf("seed %d: no end after %d steps: %+v", seed, steps, s.Progress())
			}
			jobs, err := s.Step(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, sj := range jobs {
				got[string(sj.Raw)]++
			}
			switch r.Intn(8) {
			case 1: // a few anywhere
				var some []string
				for i := r.Intn(20); i > 0; i-- {
					at := int64(r.Intn(1500))
					some = append(some, ranks(at, at)...)
				}
				remove(some)
			case 2: // added anywhere, some at the walk's score
				for i := r.Intn(60); i > 0; i-- {
					add(r.Intn(400))
				}
			case 3: // the member the walk got to, and those just before it
				remove(ranks(s.next-int64(r.Intn(3*walkSlack)), s.next))
			case 4: // fewer than walkSlack just before its position
				remove(ranks(s.next-int64(r.Intn(walkSlack)), s.next-1))
			case 5: // everything before its position
				if r.Intn(4) == 0 {
					remove(ranks(0, s.next))
				}
			case 6: // many added before its position
				for i := 50 + r.Intn(200); i > 0; i-- {
					add(r.Intn(200))
				}
			}
		}
		resumed += s.Progress().Lookups
		for m := range stable {
			if f.Match(model.ParseMember(model.SetRetry, []byte(m))) && got[m] != 1 {
				t.Fatalf("seed %d: %s, in the set throughout, returned %d times", seed, m, got[m])
			}
		}
		for m, k := range got {
			if k != 1 || !ever[m] || !f.Match(model.ParseMember(model.SetRetry, []byte(m))) {
				t.Fatalf("seed %d: %s returned %d times (ever in the set: %v)", seed, m, k, ever[m])
			}
		}
		if s.Progress().Matched != int64(len(got)) {
			t.Fatalf("seed %d: matched %d, returned %d", seed, s.Progress().Matched, len(got))
		}
		if v, err := redis.String(c.Do("ECHO", "in step")); err != nil || v != "in step" {
			t.Fatalf("seed %d: after the walk: %q %v", seed, v, err)
		}
	}
	if resumed == 0 {
		t.Fatal("no walk had to look its position up: the changes did not test resuming")
	}
}

// ReadScores gives the members a walk returned their scores as Redis writes
// them, in the walk's order, and drops those that left the set.
func TestReadScores(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := NewKeys("work")
	for i := 0; i < 2500; i++ {
		setsDo(t, c, "ZADD", "work:dead", fmt.Sprintf("%d.5", i/3), fmt.Sprintf(`{"name":"a","id":"%d"}`, i))
	}
	s := NewSetScan(keys, model.SetDead, SetFilter{}, 300)
	var all []model.SetJob
	for !s.Progress().Done {
		jobs, err := s.Step(context.Background(), ReadOnlyConn(c))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, jobs...)
	}
	if p := s.Progress(); len(all) != 2500 || all[0].ScoreText != "" || p.Seen != 2500 || p.Size != 2500 || p.Calls != 9 {
		t.Fatalf("walk returned %d members, the first with score %q; progress %+v", len(all), all[0].ScoreText, p)
	}
	setsDo(t, c, "ZREM", "work:dead", all[7].Raw, all[2100].Raw)
	got, err := ReadScores(context.Background(), ReadOnlyConn(c), keys, model.SetDead, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2498 {
		t.Fatalf("%d members with scores, want 2498", len(got))
	}
	for i, sj := range got {
		want := fmt.Sprintf("%d.5", i/3)
		if i >= 7 {
			want = fmt.Sprintf("%d.5", (i+1)/3)
		}
		if i >= 2099 {
			want = fmt.Sprintf("%d.5", (i+2)/3)
		}
		if n, _ := strconv.ParseFloat(want, 64); sj.ScoreText != want || sj.Score != n {
			t.Fatalf("member %d %s: score %q, want %q", i, sj.Raw, sj.ScoreText, want)
		}
	}
}

func TestHolds(t *testing.T) {
	for _, tt := range []struct {
		m    string
		want bool
	}{
		{`{"name":"mail"}`, true},
		{`{"name":"xmail"}`, false},
		{`{"name":"a","n":"mail"}`, true},
		{`mail"`, false},
		{`"mail"`, true},
		{`xmail" "mail"`, true},
		{`"mai`, false},
		{``, false},
	} {
		if got := holds([]byte(tt.m), []byte(`"mail"`)); got != tt.want || got != bytes.Contains([]byte(tt.m), []byte(`"mail"`)) {
			t.Errorf("holds(%q) = %v, want %v", tt.m, got, tt.want)
		}
	}
}

// churnConn adds more members before the walk's position than one ZRANGE
// call reads, right before each ZRANGE call is sent.
type churnConn struct {
	redis.Conn
	t     *testing.T
	w     redis.Conn
	key   string
	added int
}

func (c *churnConn) Send(cmd string, args ...any) error {
	if cmd == "ZRANGE" {
		zadd := []any{c.key}
		for i := 0; i < 300; i++ {
			c.added++
			zadd = append(zadd, -c.added, fmt.Sprintf(`{"name":"new","id":"%d"}`, c.added))
		}
		setsDo(c.t, c.w, "ZADD", zadd...)
	}
	return c.Conn.Send(cmd, args...)
}

func (c *churnConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *churnConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

// A set that changes before the walk's position faster than the walk can
// look it up ends the walk with ErrSetChurn instead of holding it forever.
func TestSetScanGivesUpOnChurn(t *testing.T) {
	srv := redistest.Start(t)
	c, w := srv.Dial(), srv.Dial()
	for i := 0; i < 2000; i++ {
		setsDo(t, w, "ZADD", "work:retry", i, fmt.Sprintf(`{"name":"a","id":"%d"}`, i))
	}
	s := NewSetScan(NewKeys("work"), model.SetRetry, SetFilter{}, 100)
	cc := &churnConn{Conn: c, t: t, w: w, key: "work:retry"}
	var err error
	for steps := 0; err == nil && !s.Progress().Done && steps < 1000; steps++ {
		_, err = s.Step(context.Background(), cc)
	}
	if !errors.Is(err, ErrSetChurn) || s.Progress().Lookups < maxLost {
		t.Fatalf("walk ended with %v after %d look-ups, want ErrSetChurn", err, s.Progress().Lookups)
	}
	if err := s.Drain(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if v, err := redis.String(c.Do("ECHO", "in step")); err != nil || v != "in step" {
		t.Fatalf("after the walk gave up: %q %v", v, err)
	}
}

// A walk of a key of another type fails with Redis's error and leaves the
// connection in step, with or without a call sent ahead.
func TestSetScanWrongTypeLeavesTheConnectionInStep(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	setsDo(t, c, "SET", "work:dead", "x")
	for _, ahead := range []bool{false, true} {
		s := NewSetScan(NewKeys("work"), model.SetDead, SetFilter{}, 10)
		if ahead {
			s.ReadAhead()
		}
		_, err := s.Step(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") || !s.Progress().Done {
			t.Fatalf("ahead %v: %v, done %v", ahead, err, s.Progress().Done)
		}
		if v, err := redis.String(c.Do("ECHO", "in step")); err != nil || v != "in step" {
			t.Fatalf("ahead %v: after the error: %q %v", ahead, v, err)
		}
	}
}
