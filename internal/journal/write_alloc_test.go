package journal

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// A writer encodes each intent and commit into one buffer it keeps: a bulk
// requeue writes one of each per script call, 5 MB of them for 10,000
// jobs, and a fresh buffer for each record (and a second for its header)
// was a fifth of the command's allocations.
func TestWriterReusesItsBuffer(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "journal")}
	w, err := d.Create(Header{Address: "127.0.0.1:6379", Namespace: "work", Op: OpRequeue, Command: "jobs dead requeue"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	items := make([]Item, 100)
	for i := range items {
		items[i] = Item{Set: "work:dead", Score: "1700000000", Old: bytes.Repeat([]byte(fmt.Sprintf(`{"id":"%d"}`, i)), 20), Queue: "work:jobs:mail"}
	}
	in := Intent{RedisMs: 1700000000000, Items: items}
	if _, err := w.Intent(in); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		seq, err := w.Intent(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(seq, Commit{Codes: "m", Now: "1700000100"}); err != nil {
			t.Fatal(err)
		}
	})
	// The records themselves (Intent's and Commit's copies of their
	// arguments) and nothing of their size.
	if allocs > 4 {
		t.Errorf("%v allocations an intent and its commit, want at most 4", allocs)
	}
}
