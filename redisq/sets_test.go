package redisq

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

type setsMember struct {
	raw   string
	score string
}

// setsAll reads a whole set in rank order: the test's reference.
func setsAll(t *testing.T, c redis.Conn, key string) []setsMember {
	t.Helper()
	v, err := redis.Strings(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
	if err != nil {
		t.Fatal(err)
	}
	var out []setsMember
	for i := 0; i < len(v); i += 2 {
		out = append(out, setsMember{v[i], v[i+1]})
	}
	return out
}

func setsDo(t *testing.T, c redis.Conn, cmd string, args ...any) {
	t.Helper()
	if _, err := c.Do(cmd, args...); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
}

func setsJob(id, name, errText string, args string) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":1700000000,"args":%s,"fails":1,"err":%q,"failed_at":1700000001}`, name, id, args, errText)
}

func TestReadSetPageOrderAndBadMembers(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := NewKeys("work")
	for _, set := range []model.SetName{model.SetRetry, model.SetDead} {
		key := SetKey(keys, set)
		for i := 0; i < 47; i++ {
			setsDo(t, c, "ZADD", key, 1700000000+i/3, setsJob(fmt.Sprintf("id%02d", i), "mail", "boom", `{"n":12345678901234567,"l":[]}`))
		}
		setsDo(t, c, "ZADD", key, "1700000005.5", "not json \x1b[2J")
		setsDo(t, c, "ZADD", key, "1700000007", `{"name":"nobody-serves","id":"x","t":"bad"}`)
		setsDo(t, c, "ZADD", key, "+inf", `{"id":"forever"}`)
		want := setsAll(t, c, key)
		if set.NewestFirst() {
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		ro := ReadOnlyConn(c)
		for _, limit := range []int{1, 7, 20, 100} {
			var got []setsMember
			for off := 0; off < len(want)+limit; off += limit {
				p, err := ReadSetPage(context.Background(), ro, keys, set, PageOptions{Offset: off, Limit: limit})
				if err != nil {
					t.Fatalf("%s offset %d: %v", set, off, err)
				}
				if p.Total != int64(len(want)) {
					t.Fatalf("total %d, want %d", p.Total, len(want))
				}
				for _, sj := range p.Jobs {
					got = append(got, setsMember{string(sj.Raw), sj.ScoreText})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s limit %d:\n got %v\nwant %v", set, limit, got, want)
			}
		}
		p, err := ReadSetPage(context.Background(), c, keys, set, PageOptions{Limit: 100, Reverse: true})
		if err != nil {
			t.Fatal(err)
		}
		if first := p.Jobs[0]; set.NewestFirst() != (first.Score == 1700000000) {
			t.Fatalf("%s reversed page starts with score %v", set, first.Score)
		}
		var bad, frac int
		for _, sj := range p.Jobs {
			if sj.Job == nil {
				bad++
				if string(sj.Raw) != "not json \x1b[2J" {
					t.Fatalf("raw member changed: %q", sj.Raw)
				}
			}
			if sj.ScoreText == "1700000005.5" && sj.Score == 1700000005.5 {
				frac++
			}
			if sj.Job != nil && sj.Job.Name == "mail" && string(sj.Job.Args) != `{"n":12345678901234567,"l":[]}` {
				t.Fatalf("args changed: %s", sj.Job.Args)
			}
		}
		if bad != 1 || frac != 1 {
			t.Fatalf("bad members %d, fractional scores %d, want 1 and 1", bad, frac)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"set":"` + string(set) + `","count":50,"offset":0,"jobs":[{"` + set.ScoreField() + `":`,
			`"args":{"n":12345678901234567,"l":[]}`, `"raw":"not json \u001b[2J"`, `"` + set.ScoreField() + `":1700000005.5,`, `"` + set.ScoreField() + `":"inf"`} {
			if !strings.Contains(string(b), want) {
				t.Fatalf("%s JSON lacks %s:\n%s", set, want, b)
			}
		}
	}
}

func TestReadSetCounts(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := NewKeys("ns:")
	setsDo(t, c, "ZADD", "ns:retry", 1, "a", 2, "b")
	setsDo(t, c, "ZADD", "ns:dead", 1, "a")
	n, err := ReadSetCounts(context.Background(), ReadOnlyConn(c), keys)
	if err != nil || n != (SetCounts{Retry: 2, Dead: 1}) {
		t.Fatalf("got %+v %v", n, err)
	}
	setsDo(t, c, "SET", "ns:scheduled", "x")
	if _, err := ReadSetCounts(context.Background(), c, keys); err == nil || !strings.Contains(err.Error(), "ns:scheduled") {
		t.Fatalf("wrong type: err %v", err)
	}
	// The connection still works after the error reply.
	if _, err := ReadSetCounts(context.Background(), c, NewKeys("other")); err != nil {
		t.Fatal(err)
	}
}

func TestFilterAndSummaryScan(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := NewKeys("work")
	key := SetKey(keys, model.SetDead)
	names := []string{"mail", "mail_bulk", "report/daily", "bill"}
	for i := 0; i < 3000; i++ {
		name := names[i%len(names)]
		errText := fmt.Sprintf("dial tcp 10.0.0.%d:5432: connection refused", i%7)
		if i%5 == 0 {
			errText = fmt.Sprintf("user %024x not found", i)
		}
		setsDo(t, c, "ZADD", key, 1700000000+i%100, setsJob(fmt.Sprintf("id%04d", i), name, errText, `{"mail":"x"}`))
	}
	setsDo(t, c, "ZADD", key, 1, "garbage mail")
	all := setsAll(t, c, key)
	for _, f := range []SetFilter{{Job: "mail"}, {Job: "report/daily"}, {Error: "CONNECTION refused"}, {Job: "bill", Error: "NOT FOUND"}} {
		var want []setsMember
		for i := len(all) - 1; i >= 0; i-- { // dead: newest first
			if f.Match(model.ParseSetJob(model.SetDead, []byte(all[i].raw), all[i].score)) {
				want = append(want, all[i])
			}
		}
		calls := 0
		so := ScanOptions{Count: 100, Paced: true, Progress: func(SetScanProgress) { calls++ }}
		p, err := FilterSetPage(context.Background(), ReadOnlyConn(c), keys, model.SetDead, f, PageOptions{Offset: 30, Limit: 25}, so)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != int64(len(want)) || calls < 2 {
			t.Fatalf("%+v: total %d want %d, %d progress calls", f, p.Total, len(want), calls)
		}
		var got []setsMember
		for _, sj := range p.Jobs {
			got = append(got, setsMember{string(sj.Raw), sj.ScoreText})
		}
		if fmt.Sprint(got) != fmt.Sprint(want[30:55]) {
			t.Fatalf("%+v: page differs\n got %v\nwant %v", f, got, want[30:55])
		}
	}
	sum, err := SummarizeSet(context.Background(), c, keys, model.SetDead, SetFilter{}, ScanOptions{Count: 200})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Members != 3001 || sum.NotJobs != 1 || sum.ByName["mail"] != 750 || sum.ByName["report/daily"] != 750 {
		t.Fatalf("summary %+v", sum)
	}
	if sum.ByError["user <id> not found"] != 600 || sum.ByError["dial tcp N.N.N.N:N: connection refused"] != 2400 || len(sum.ByError) != 2 {
		t.Fatalf("errors %v", sum.ByError)
	}
}

func TestSetFilterNeedle(t *testing.T) {
	tests := []struct {
		f    SetFilter
		want string
	}{
		{SetFilter{Job: "mail"}, `"mail"`},
		{SetFilter{Job: "a*b"}, `"a*b"`},
		{SetFilter{ID: "x1", Job: "mail"}, `"x1"`},
		{SetFilter{Job: "x/y"}, ""},
		{SetFilter{Error: "Ab 1"}, ""},
		{SetFilter{}, ""},
		{SetFilter{Job: "mail", Query: query(t, "args.order_id:ord_7")}, "ord_7"},
		{SetFilter{Job: "mail", Query: query(t, "args.n:42 args:x1")}, "x1"},
		{SetFilter{Query: query(t, "args.p:a/b job:mail")}, `"mail"`},
		{SetFilter{Query: query(t, "id:j1 args.n:42")}, `"j1"`},
	}
	for _, tt := range tests {
		if got := string(tt.f.needle()); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.f, got, tt.want)
		}
	}
}

// A scan that reads ahead returns the same members as one that does not,
// and Drain leaves the connection in step after a scan stopped midway.
func TestSetScanReadAhead(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	for i := 0; i < 3000; i++ {
		name := "a"
		if i%3 == 0 {
			name = "b"
		}
		redistest.Do(t, c, "ZADD", "work:dead", i, fmt.Sprintf(`{"name":%q,"id":"%d"}`, name, i))
	}
	keys := NewKeys("work")
	walk := func(ahead bool, steps int) map[string]bool {
		s := NewSetScan(keys, model.SetDead, SetFilter{Job: "b"}, 100)
		if ahead {
			s.ReadAhead()
		}
		got := map[string]bool{}
		for i := 0; !s.Progress().Done && (steps == 0 || i < steps); i++ {
			jobs, err := s.Step(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			for _, sj := range jobs {
				got[sj.Job.ID] = true
			}
		}
		if err := s.Drain(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain, ahead := walk(false, 0), walk(true, 0)
	if len(plain) != 1000 || len(ahead) != 1000 {
		t.Fatalf("plain scan found %d, read-ahead %d, want 1000 each", len(plain), len(ahead))
	}
	walk(true, 2)
	if v, err := redis.String(c.Do("ECHO", "in step")); err != nil || v != "in step" {
		t.Fatalf("after a drained scan: %q %v", v, err)
	}
}

// query parses a query for a test.
func query(t *testing.T, text string) *model.Query {
	t.Helper()
	q, err := model.ParseQuery(text, model.QueryClock{})
	if err != nil {
		t.Fatal(err)
	}
	return q
}
