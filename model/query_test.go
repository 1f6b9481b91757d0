package model

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

var queryNow = time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)

func parseQ(t *testing.T, s string) *Query {
	t.Helper()
	q, err := ParseQuery(s, QueryClock{Now: queryNow, Zone: time.UTC})
	if err != nil {
		t.Fatalf("ParseQuery(%q): %v", s, err)
	}
	return q
}

func TestParseQueryErrors(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{`erorr:timeout`, `unknown term "erorr:" (did you mean err:?)`},
		{`jobs:x`, `unknown term "jobs:" (did you mean job:?)`},
		{`zzzzzz:x`, `unknown term "zzzzzz:"`},
		{`err~(unclosed`, `term "err~(unclosed": error parsing regexp`},
		{`since:yesterday`, `term "since:yesterday": time "yesterday": want RFC 3339`},
		{`since:03:30 until:03:10`, `until:2026-12-01T03:10:00Z is before since:2026-12-01T03:30:00Z`},
		{`fails>=x`, `want a whole number of failures`},
		{`fails>=5 fails<=2`, `fails<=2 is below fails>=5`},
		{`job~send`, `job takes :, not ~`},
		{`timeout`, `"timeout" is not a term`},
		{`err:"gateway timeout`, `the quote after "err:" is not closed`},
		{`job:`, `term "job:": empty value`},
		{`args..x:1`, `empty key in the path`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			_, err := ParseQuery(tc.query, QueryClock{Now: queryNow})
			if err == nil || !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadQuery containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestParseQueryTimes(t *testing.T) {
	berlin := time.FixedZone("X", 3600)
	for _, tc := range []struct {
		query string
		zone  *time.Location
		since int64
		until int64
	}{
		{`since:2026-12-01T03:10:00Z until:2026-12-01T03:40:00Z`, time.UTC, queryNow.Add(-50 * time.Minute).Unix(), queryNow.Add(-20 * time.Minute).Unix()},
		{`since:03:10 until:03:40`, time.UTC, queryNow.Add(-50 * time.Minute).Unix(), queryNow.Add(-20 * time.Minute).Unix()},
		// 04:10 in a zone one hour east is 03:10 UTC.
		{`since:04:10 until:04:40:00`, berlin, queryNow.Add(-50 * time.Minute).Unix(), queryNow.Add(-20 * time.Minute).Unix()},
		{`since:2h until:90m`, time.UTC, queryNow.Add(-2 * time.Hour).Unix(), queryNow.Add(-90 * time.Minute).Unix()},
		{`since:1d until:0s`, time.UTC, queryNow.Add(-24 * time.Hour).Unix(), queryNow.Unix()},
		// A fractional since starts at the next whole second.
		{`since:2026-12-01T03:10:00.5Z until:2026-12-01T03:10:01.5Z`, time.UTC, queryNow.Add(-50*time.Minute).Unix() + 1, queryNow.Add(-50*time.Minute).Unix() + 1},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, err := ParseQuery(tc.query, QueryClock{Now: queryNow, Zone: tc.zone})
			if err != nil {
				t.Fatal(err)
			}
			if !q.HasSince || !q.HasUntil || q.Since != tc.since || q.Until != tc.until {
				t.Fatalf("since %d until %d, want %d %d", q.Since, q.Until, tc.since, tc.until)
			}
		})
	}
}

func TestQueryMatch(t *testing.T) {
	died := queryNow.Add(-30 * time.Minute).Unix()
	dead := ParseSetJob(SetDead, []byte(`{"name":"charge_card","id":"3e50dbd7a1","t":1,"args":{"order_id":"ord_289316","user":{"id":12345678901234567},"tags":["a","b"],"k\u0065y":"esc"},"fails":4,"err":"Gateway Timeout after 30s","failed_at":1}`), itoa(died))
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{``, true},
		{`job:charge_card`, true},
		{`job:charge_*`, true},
		{`job:charge_car?`, true},
		{`job:send_*`, false},
		{`job:charge`, false},
		{`err:timeout`, true},
		{`err:"gateway timeout"`, true},
		{`err:"gateway  timeout"`, false},
		{`err~^Gateway\s+Timeout`, true},
		{`err~^gateway`, false},
		{`id:3e50dbd7a1`, true},
		{`id:3e50dbd7`, false},
		{`args:ord_289316`, true},
		{`args:ORD_289316`, false},
		{`args.order_id:ord_289316`, true},
		{`args.order_id:ord_28931`, false},
		{`args.user.id:12345678901234567`, true},
		{`args.user.id:12345678901234568`, false},
		{`args.tags.1:b`, true},
		{`args.tags.2:b`, false},
		{`args.key:esc`, true},
		{`args.missing:x`, false},
		{`fails>=4`, true},
		{`fails>=5`, false},
		{`fails<=4`, true},
		{`fails<=3`, false},
		{`fails:4`, true},
		{`fails:3`, false},
		{`since:31m`, true},
		{`since:29m`, false},
		{`until:31m`, false},
		{`since:03:00 until:03:40`, true},
		{`job:charge_card err:timeout since:1h args.order_id:ord_289316`, true},
		{`job:charge_card err:nope`, false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			if got := parseQ(t, tc.query).MatchSetJob(dead); got != tc.want {
				t.Fatalf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestQueryMatchSets(t *testing.T) {
	// retry: the time is failed_at, not the score (when it is due).
	failed := queryNow.Add(-time.Hour).Unix()
	retry := ParseSetJob(SetRetry, []byte(`{"name":"a","id":"1","t":1,"args":{},"fails":1,"err":"x","failed_at":`+itoa(failed)+`}`), itoa(queryNow.Unix()+60))
	if !parseQ(t, "since:2h until:30m").MatchSetJob(retry) {
		t.Fatal("retry job whose failed_at is in the window did not match")
	}
	if parseQ(t, "since:30m").MatchSetJob(retry) {
		t.Fatal("retry job matched by its due time, not its failed_at")
	}
	lo, hi := parseQ(t, "since:2h until:30m").ScoreRange(SetRetry)
	if lo != itoa(queryNow.Add(-2*time.Hour).Unix()) || hi != "+inf" {
		t.Fatalf("retry score range %s %s", lo, hi)
	}
	// A queue job's time is t.
	j, _ := ParseJobFields([]byte(`{"name":"a","id":"1","t":` + itoa(failed) + `,"args":null}`))
	if !parseQ(t, "since:2h until:30m job:a").MatchQueueJob(j) || parseQ(t, "since:30m").MatchQueueJob(j) {
		t.Fatal("queue job's enqueue time not matched")
	}
	// A member that is not a job matches only the empty query.
	raw := ParseSetJob(SetDead, []byte(`not json`), "1")
	if !parseQ(t, "").MatchSetJob(raw) || parseQ(t, "since:2000-01-01T00:00:00Z").MatchSetJob(raw) {
		t.Fatal("member that is not a job")
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		p, n string
		want bool
	}{
		{"*", "", true}, {"a*", "abc", true}, {"*c", "abc", true}, {"a*c", "abxc", true},
		{"a*c", "abxd", false}, {"??", "ab", true}, {"??", "a", false}, {"a*b*c", "aXbYc", true},
		{"a*b*c", "aXcYb", false}, {"", "", true}, {"", "a", false},
	} {
		if got := globMatch(tc.p, tc.n); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.p, tc.n, got)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
