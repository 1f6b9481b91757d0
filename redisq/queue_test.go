package redisq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestQueueRange(t *testing.T) {
	tests := []struct {
		offset, limit int
		start, stop   int64
	}{
		{0, 1, -1, -1},
		{0, 20, -20, -1},
		{20, 20, -40, -21},
		{5, 3, -8, -6},
	}
	for _, tc := range tests {
		start, stop := QueueRange(tc.offset, tc.limit)
		if start != tc.start || stop != tc.stop {
			t.Errorf("QueueRange(%d, %d) = %d, %d; want %d, %d", tc.offset, tc.limit, start, stop, tc.start, tc.stop)
		}
	}
}

// TestReadQueuePageRunOrder: jobs pushed as gocraft/work's Enqueue pushes
// them (LPUSH) come back in the order they were pushed, which is the order
// RPOPLPUSH takes them, page after page; a short last page and a page past
// the end are fine; every read is one LLEN and one LRANGE.
func TestReadQueuePageRunOrder(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("work")
	const n = 25
	for i := 0; i < n; i++ {
		srv.Do("LPUSH", keys.Queue("send_email"), fmt.Sprintf(`{"name":"send_email","id":"id%02d","t":%d,"args":{"i":%d}}`, i, 1700000000+i, i))
	}
	before := redistest.CommandCalls(t, c)
	ctx := context.Background()
	var got []string
	pages := 0
	for offset := 0; ; offset += 10 {
		page, err := ReadQueuePage(ctx, c, keys, "send_email", offset, 10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if page.Length != n {
			t.Errorf("page at %d: length %d, want %d", offset, page.Length, n)
		}
		if len(page.Jobs) == 0 {
			break
		}
		for i, j := range page.Jobs {
			if j.Position != int64(offset+i) {
				t.Errorf("page at %d, job %d: position %d", offset, i, j.Position)
			}
			if j.ParseErr != nil {
				t.Errorf("job %s: %v", j.ID, j.ParseErr)
			}
			got = append(got, j.ID)
		}
	}
	var want []string
	for i := 0; i < n; i++ {
		want = append(want, fmt.Sprintf("id%02d", i))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("run order:\n got %v\nwant %v", got, want)
	}
	after := redistest.CommandCalls(t, c)
	if d := after["llen"] - before["llen"]; d != int64(pages) {
		t.Errorf("%d LLEN for %d pages", d, pages)
	}
	if d := after["lrange"] - before["lrange"]; d != int64(pages) {
		t.Errorf("%d LRANGE for %d pages", d, pages)
	}
	for cmd := range after {
		if cmd != "llen" && cmd != "lrange" && cmd != "info" && after[cmd] != before[cmd] {
			t.Errorf("page reads sent %s", cmd)
		}
	}
	// What runs next is what RPOPLPUSH takes.
	first, err := srv.Dial().Do("RPOPLPUSH", keys.Queue("send_email"), "scratch")
	if err != nil || !strings.Contains(string(first.([]byte)), `"id00"`) {
		t.Errorf("RPOPLPUSH took %s (%v), want id00", first, err)
	}
}

// TestReadQueuePageBadMembers: a member that is not JSON, or has no `t`,
// keeps its raw text and never fails the page; the JSON form keeps args
// as stored.
func TestReadQueuePageBadMembers(t *testing.T) {
	srv := redistest.Start(t)
	c := ReadOnlyConn(srv.Dial()) // a page read is a read
	defer c.Close()
	keys := NewKeys("work")
	members := []string{
		`{"name":"x","id":"a","t":1700000000,"args":{"to":"\u001b[2J","n":12345678901234567890}}`,
		"not json \x1b]0;title\x07",
		`{"name":"x","id":"c","args":null}`,
	}
	for _, m := range members {
		srv.Do("LPUSH", keys.Queue("x"), m)
	}
	page, err := ReadQueuePage(context.Background(), c, keys, "x", 0, DefaultQueuePage)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 3 || page.Length != 3 {
		t.Fatalf("got %d jobs, length %d", len(page.Jobs), page.Length)
	}
	if page.Jobs[0].ID != "a" || page.Jobs[0].ParseErr != nil {
		t.Errorf("job 0: %+v", page.Jobs[0])
	}
	if page.Jobs[1].ParseErr == nil || page.Jobs[1].Raw != members[1] {
		t.Errorf("job 1 (not JSON): %+v", page.Jobs[1])
	}
	if page.Jobs[2].ParseErr == nil || page.Jobs[2].ID != "c" {
		t.Errorf("job 2 (no t): %+v", page.Jobs[2])
	}
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Jobs []struct {
			ID         string          `json:"id"`
			EnqueuedAt *int64          `json:"enqueued_at"`
			Args       json.RawMessage `json:"args"`
			Raw        *string         `json:"raw"`
			Error      string          `json:"error"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got := string(back.Jobs[0].Args); got != `{"to":"\u001b[2J","n":12345678901234567890}` {
		t.Errorf("args not kept as stored: %s", got)
	}
	if back.Jobs[0].EnqueuedAt == nil || *back.Jobs[0].EnqueuedAt != 1700000000 || back.Jobs[0].Raw != nil {
		t.Errorf("job 0 JSON: %s", b)
	}
	if back.Jobs[1].Raw == nil || *back.Jobs[1].Raw != members[1] || back.Jobs[1].Error == "" || string(back.Jobs[1].Args) != "null" {
		t.Errorf("job 1 JSON: %s", b)
	}
	if back.Jobs[2].EnqueuedAt != nil || back.Jobs[2].Raw != nil || string(back.Jobs[2].Args) != "null" {
		t.Errorf("job 2 JSON: %s", b)
	}
}

func TestReadQueuePageRefusals(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	keys := NewKeys("work")
	srv.Do("SET", keys.Queue("str"), "x")
	ctx := context.Background()
	if _, err := ReadQueuePage(ctx, c, keys, "str", 0, 10); err == nil || !strings.Contains(err.Error(), "not a list") {
		t.Errorf("string key: %v", err)
	}
	for _, tc := range []struct{ offset, limit int }{{0, 0}, {0, MaxQueuePage + 1}, {-1, 10}} {
		if _, err := ReadQueuePage(ctx, c, keys, "q", tc.offset, tc.limit); !errors.Is(err, ErrBadPage) {
			t.Errorf("offset %d limit %d: %v, want ErrBadPage", tc.offset, tc.limit, err)
		}
	}
	// The connection is still usable after the refusals.
	page, err := ReadQueuePage(ctx, c, keys, "empty", 0, 10)
	if err != nil || page.Length != 0 || len(page.Jobs) != 0 {
		t.Errorf("empty queue: %+v, %v", page, err)
	}
}
