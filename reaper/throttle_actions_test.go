package reaper

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// ThrottleActions reads whole exactly the actions of the directory that
// MarkThrottled would take from all of them (dir.List): the throttles of
// one job type of the namespace and the address, and no other journal
// (here a large requeue's, whose records after the header are damaged:
// reading it whole would say so).
func TestThrottleActionsAreTheThrottlesOfList(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	dir := journal.Dir{Path: t.TempDir()}
	srv.Do("SET", "work:jobs:mail:max_concurrency", 1)
	_, mine, err := throttleJournalled(t, c, dir, ThrottlePlan{Name: "mail", Key: "work:jobs:mail:max_concurrency", Before: 1, New: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []journal.Header{
		{Address: "r2", Namespace: "work", Op: journal.OpThrottle, Targets: []string{"mail"}},
		{Address: "r1", Namespace: "other", Op: journal.OpThrottle, Targets: []string{"mail"}},
		{Address: "r1", Namespace: "work:", Op: journal.OpThrottle, Targets: []string{"sms"}},
		{Address: "r1", Namespace: "work", Op: journal.OpThrottle, Targets: []string{"a", "b"}},
	} {
		w, err := dir.Create(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	w, err := dir.Create(journal.Header{Address: "r1", Namespace: "work", Op: journal.OpRequeue, Command: "jobs dead requeue"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := w.Intent(journal.Intent{Items: []journal.Item{{Set: "work:dead", Old: []byte(fmt.Sprintf(`{"id":"%d"}`, i)), Queue: "work:jobs:mail"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(dir.File(w.ID()), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	if _, err := f.WriteAt([]byte("garbage!"), fi.Size()-200); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	all, _, err := dir.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, address := range []string{"r1", "r2", ""} {
		var want []*journal.Action
		for _, a := range all {
			if throttleOf(a.Header, "work:", address) {
				want = append(want, a)
			}
		}
		got, err := ThrottleActions(dir, "work", address)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("address %q: %d actions, List's throttles %d", address, len(got), len(want))
		}
		for _, a := range got {
			if a.Header.Op != journal.OpThrottle || a.Damage != "" {
				t.Errorf("address %q: read %s (%s, damage %q)", address, a.Header.ID, a.Header.Op, a.Damage)
			}
		}
	}
	if got, _ := ThrottleActions(dir, "work", "r1"); len(got) != 2 || got[0].Header.ID != mine.Header.ID && got[1].Header.ID != mine.Header.ID {
		t.Errorf("the throttle of mail at r1 not among %d actions", len(got))
	}
}
