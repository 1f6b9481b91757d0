package tui

import (
	"fmt"
	"testing"
	"time"
)

// TestParseSetsQuery: words that are not terms become parts of the job
// name, matched whatever their case; terms go to the query language as
// written.
func TestParseSetsQuery(t *testing.T) {
	now := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	tests := []struct {
		text, jobs, parts, errs string
		bad                     bool
	}{
		{text: "sync", jobs: "[]", parts: "[sync]"},
		{text: "SYNC", jobs: "[]", parts: "[sync]"},
		{text: "sync email", jobs: "[]", parts: "[sync email]"},
		{text: `"send mail"`, jobs: "[]", parts: "[send mail]"},
		{text: "job:send_*", jobs: "[send_*]", parts: "[]"},
		{text: `sync err:"gateway timeout"`, jobs: "[]", parts: "[sync]", errs: "[gateway timeout]"},
		{text: `err~'gateway (timeout|reset)'`, jobs: "[]", parts: "[]"}, // one term, not job-name parts
		{text: `'send mail' sync`, jobs: "[]", parts: "[send mail sync]"},
		{text: `err~'gateway (timeout`, bad: true},
		{text: "http://x", bad: true}, // a term of an unknown key: said, not guessed
		{text: "erorr:x", bad: true},
		{text: "since:03:10 until:03:00", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			q, err := parseSetsQuery(tc.text, now)
			if tc.bad {
				if err == nil {
					t.Fatalf("no error; query %+v", q)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(q.Jobs); got != tc.jobs {
				t.Errorf("jobs %s, want %s", got, tc.jobs)
			}
			if got := fmt.Sprint(q.NameParts); got != tc.parts {
				t.Errorf("name parts %s, want %s", got, tc.parts)
			}
			if tc.errs != "" && fmt.Sprint(q.Errs) != tc.errs {
				t.Errorf("errs %v, want %s", q.Errs, tc.errs)
			}
			if q.Text != tc.text {
				t.Errorf("text %q", q.Text)
			}
		})
	}
}

// TestParseFind: :find takes ids, a query, or both.
func TestParseFind(t *testing.T) {
	now := time.Now()
	s, err := parseFind("3e50dbd7 a1b2", now)
	if err != nil || fmt.Sprint(s.IDs) != "[3e50dbd7 a1b2]" || s.Query != nil || !s.Paced {
		t.Errorf("ids: %+v %v", s, err)
	}
	s, err = parseFind("args.order_id:ord_1 job:mail", now)
	if err != nil || len(s.IDs) != 0 || s.Query == nil || s.Query.JobName() != "mail" || len(s.Query.Paths) != 1 {
		t.Errorf("query: %+v %v", s, err)
	}
	if _, err := parseFind("", now); err == nil {
		t.Error("an empty find is not refused")
	}
	if _, err := parseFind("fails>=x", now); err == nil {
		t.Error("a bad query is not refused")
	}
}
