package redisq

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// bulkConn is a connection of the dialer, as the program dials it.
func bulkConn(t *testing.T, srv *redistest.Server, readOnly bool) redis.Conn {
	t.Helper()
	d, err := NewDialer(Options{Address: srv.Addr(), Timeout: time.Minute, ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The raw side reads what redigo reads, byte for byte: members holding
// the protocol's own bytes, empty, binary, longer than the socket's
// buffer, and every kind of score; a walk over it returns what a walk over
// a connection redigo reads returns, also through a read-only connection.
func TestBulkReadMatchesRedigo(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Dial()
	defer admin.Close()
	var binary []byte
	for i := 0; i < 256; i++ {
		binary = append(binary, byte(i))
	}
	members := []string{"", "\r\n", "$3\r\nabc\r\n", "*2\r\n", "-ERR no\r\n", string(binary), "é\u2028x",
		strings.Repeat("long ", 30000), `{"name":"a","id":"1","args":{"n":1}}`}
	scores := []string{"-inf", "-3.25", "0", "1e-7", "17", "1700000000", "1700000000.5", "1e300", "+inf"}
	for i, m := range members {
		redistest.Do(t, admin, "ZADD", "work:dead", scores[i], m)
	}
	want, err := redis.ByteSlices(admin.Do("ZRANGEBYSCORE", "work:dead", "-inf", "+inf", "WITHSCORES"))
	if err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []bool{false, true} {
		c := bulkConn(t, srv, readOnly)
		bc := bulkConnOf(c)
		if bc == nil {
			t.Fatalf("read-only %v: no raw side on the dialer's connection", readOnly)
		}
		ok, err := bc.sendBulk("ZRANGEBYSCORE", "work:dead", "-inf", "+inf", "WITHSCORES")
		if !ok || err != nil {
			t.Fatalf("read-only %v: sent %v, %v", readOnly, ok, err)
		}
		var a bulkArena
		got, err := bc.receiveBulk(context.Background(), &a, nil)
		if err != nil || len(got) != len(want) {
			t.Fatalf("read-only %v: %d elements, %v; want %d", readOnly, len(got), err, len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("read-only %v: element %d is %q, want %q", readOnly, i, truncate(string(got[i]), 40), truncate(string(want[i]), 40))
			}
		}
		// A walk, a few members a step, against one redigo reads.
		walk := func(c redis.Conn) []string {
			s := NewRangeScan(NewKeys("work"), model.SetDead, SetFilter{}, "-inf", "+inf", 2)
			s.ReadAhead()
			var out []string
			for !s.Progress().Done {
				jobs, err := s.Step(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				for _, sj := range jobs {
					out = append(out, string(sj.Raw)+"@"+sj.ScoreText)
				}
			}
			return out
		}
		if raw, plain := walk(c), walk(admin); strings.Join(raw, "|") != strings.Join(plain, "|") || len(raw) != len(members) {
			t.Fatalf("read-only %v: the walk read %d members, redigo's %d, or other bytes", readOnly, len(raw), len(plain))
		}
		if n, err := redis.Int(c.Do("ZCARD", "work:dead")); err != nil || n != len(members) {
			t.Fatalf("read-only %v: after the walk ZCARD %d %v", readOnly, n, err)
		}
	}
}

// The two sides share the connection in step: redigo reads and drops a
// reply the raw side did not read, the raw side sends nothing while redigo
// owes replies, and an error reply leaves the connection usable.
func TestBulkSharesTheConnection(t *testing.T) {
	srv := redistest.Start(t)
	c := bulkConn(t, srv, false)
	bc := bulkConnOf(c)
	redistest.Do(t, c, "ZADD", "z", 1, "a", 2, "b")
	redistest.Do(t, c, "SET", "s", "x")

	if ok, err := bc.sendBulk("ZRANGE", "z", 0, -1); !ok || err != nil {
		t.Fatalf("sent %v, %v", ok, err)
	}
	if v, err := redis.String(c.Do("ECHO", "after")); err != nil || v != "after" {
		t.Fatalf("redigo after an unread raw reply: %q %v", v, err)
	}

	if err := c.Send("ECHO", "owed"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := bc.sendBulk("ZRANGE", "z", 0, -1); ok {
		t.Fatal("the raw side sent while redigo owed a reply")
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if v, err := redis.String(c.Receive()); err != nil || v != "owed" {
		t.Fatalf("owed reply: %q %v", v, err)
	}

	ok, err := bc.sendBulk("ZRANGE", "s", 0, -1)
	if !ok || err != nil {
		t.Fatalf("sent %v, %v", ok, err)
	}
	var a bulkArena
	_, err = bc.receiveBulk(context.Background(), &a, nil)
	var re redis.Error
	if !errors.As(err, &re) || !strings.HasPrefix(string(re), "WRONGTYPE") {
		t.Fatalf("ZRANGE of a string: %v, want WRONGTYPE", err)
	}
	if ok, _ := bc.sendBulk("ZRANGE", "z", 0, -1); !ok {
		t.Fatal("the raw side did not send after an error reply")
	}
	got, err := bc.receiveBulk(context.Background(), &a, nil)
	if err != nil || len(got) != 2 || string(got[0]) != "a" || string(got[1]) != "b" {
		t.Fatalf("after an error reply: %q %v", got, err)
	}
	if v, err := redis.String(c.Do("ECHO", "end")); err != nil || v != "end" {
		t.Fatalf("redigo at the end: %q %v", v, err)
	}
}

// A raw read whose context is cancelled ends at once, and the connection
// is broken for both sides.
func TestBulkReadCancelled(t *testing.T) {
	srv := redistest.Start(t)
	c := bulkConn(t, srv, false)
	bc := bulkConnOf(c)
	if ok, err := bc.sendBulk("ZRANGE", "z", 0, -1); !ok || err != nil {
		t.Fatalf("sent %v, %v", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var a bulkArena
	if _, err := bc.receiveBulk(ctx, &a, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
	if c.Err() == nil {
		t.Fatal("the connection is not broken after a cancelled read")
	}
	if ok, _ := bc.sendBulk("ZRANGE", "z", 0, -1); ok {
		t.Fatal("the raw side sent on a broken connection")
	}
}

// A walk that keeps few members of each step reads the next step into the
// same memory: the members it returned keep their own bytes and args,
// those of a step that kept all of its members too.
func TestBulkWalkKeepsWhatItReturned(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Dial()
	defer admin.Close()
	var want []int
	for i := 0; i < 500; i++ {
		name := "a"
		if i < 40 || i%50 == 0 {
			name = "b"
			want = append(want, i)
		}
		redistest.Do(t, admin, "ZADD", "work:dead", 1000+i, fmt.Sprintf(`{"name":%q,"id":"%04d","args":{"n":%d}}`, name, i, i))
	}
	q, err := model.ParseQuery("since:1970-01-01T00:00:00Z", model.QueryClock{Now: time.Unix(100000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	c := bulkConn(t, srv, false)
	s := NewSetWalk(NewKeys("work"), model.SetDead, SetFilter{Job: "b", Query: q}, 40)
	s.ReadAhead()
	var kept []model.SetJob
	for !s.Progress().Done {
		jobs, err := s.Step(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, jobs...)
	}
	if len(kept) != len(want) {
		t.Fatalf("kept %d, want %d", len(kept), len(want))
	}
	for i, sj := range kept {
		n := want[i]
		want := fmt.Sprintf(`{"name":"b","id":"%04d","args":{"n":%d}}`, n, n)
		if string(sj.Raw) != want || sj.Job == nil || string(sj.Job.Args) != fmt.Sprintf(`{"n":%d}`, n) || sj.ScoreText != fmt.Sprint(1000+n) {
			t.Fatalf("member %d after the walk: %s (args %s) @%s, want %s", i, sj.Raw, sj.Job.Args, sj.ScoreText, want)
		}
	}
}
