package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeAction(t *testing.T, d Dir, calls int) *Writer {
	t.Helper()
	w, err := d.Create(Header{Address: "127.0.0.1:6379", Namespace: "work", Op: OpRequeue, Command: "jobs dead requeue"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < calls; i++ {
		seq, err := w.Intent(Intent{RedisMs: 1700000000000, Items: []Item{{Set: "work:dead", Score: "1700000000", Old: []byte("{\"id\":\"a\n\x1b\"}"), Queue: "work:jobs:mail"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(seq, Commit{Codes: "m", Now: "1700000100"}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestWriteRead(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "journal")}
	w := writeAction(t, d, 3)
	if err := w.End(End{Done: 3, Result: "requeued 3"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := d.Read(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if a.Damage != "" || a.End == nil || a.End.Done != 3 || len(a.Calls) != 3 || a.Calls[2].Commit == nil || a.Calls[2].Commit.Now != "1700000100" {
		t.Fatalf("read back %+v", a)
	}
	if got := string(a.Calls[0].Intent.Items[0].Old); got != "{\"id\":\"a\n\x1b\"}" {
		t.Fatalf("bytes read back %q", got)
	}
	if a.Header.Namespace != "work" || a.Header.ID != w.ID() {
		t.Fatalf("header %+v", a.Header)
	}
	for _, p := range []string{d.Path, filepath.Join(d.Path, w.ID()+ext)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := os.FileMode(0o600); fi.Mode().IsDir() {
			if fi.Mode().Perm() != 0o700 {
				t.Fatalf("%s mode %v", p, fi.Mode())
			}
		} else if fi.Mode().Perm() != want {
			t.Fatalf("%s mode %v", p, fi.Mode())
		}
	}
	if _, err := d.Read("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := d.Read("../x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("path id: %v", err)
	}
}

// A file cut at any byte reads back up to its last whole record and says
// that the rest was left out; a byte changed anywhere does the same from
// the record that holds it.
func TestCutOrAlteredFile(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	w := writeAction(t, d, 2)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d.Path, w.ID()+ext)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// record boundaries
	var ends []int
	for off := 0; off < len(full); {
		size := int(full[off])<<24 | int(full[off+1])<<16 | int(full[off+2])<<8 | int(full[off+3])
		off += 8 + size
		ends = append(ends, off)
	}
	if len(ends) != 5 {
		t.Fatalf("%d records, want 5", len(ends))
	}
	whole := func(n int) int { // whole records in the first n bytes
		k := 0
		for _, e := range ends {
			if e <= n {
				k++
			}
		}
		return k
	}
	for n := 0; n < len(full); n++ {
		if err := os.WriteFile(path, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := d.Read(w.ID())
		k := whole(n)
		if k == 0 {
			if !errors.Is(err, ErrNoHeader) && n > 0 {
				t.Fatalf("cut at %d: %v, want no header", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		calls := (k - 1 + 1) / 2 // intents read
		if len(a.Calls) != calls {
			t.Fatalf("cut at %d: %d calls, want %d", n, len(a.Calls), calls)
		}
		if cut := n != ends[k-1]; cut != (a.Damage != "") {
			t.Fatalf("cut at %d: damage %q", n, a.Damage)
		}
		if a.Damage != "" && !strings.Contains(a.Damage, "read up to record") {
			t.Fatalf("cut at %d: damage %q", n, a.Damage)
		}
	}
	// an edited byte in the third record (the first commit)
	edited := append([]byte(nil), full...)
	edited[ends[1]+12] ^= 0x20
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := d.Read(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Calls) != 1 || a.Calls[0].Commit != nil || !strings.Contains(a.Damage, "checksum") {
		t.Fatalf("edited: %d calls, commit %v, damage %q", len(a.Calls), a.Calls[0].Commit, a.Damage)
	}
}

// Past Max bytes the oldest actions are dropped, never the one written.
func TestPrune(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	var ids []string
	for i := 0; i < 4; i++ {
		w := writeAction(t, d, 20)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID())
	}
	files, _, _ := d.files()
	one := files[0].size
	d.Max = 2*one + one/2
	w := writeAction(t, d, 20)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	acts, bad, err := d.List()
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	if len(acts) != 2 || acts[1].Header.ID != w.ID() || acts[0].Header.ID != ids[3] {
		var got []string
		for _, a := range acts {
			got = append(got, a.Header.ID)
		}
		t.Fatalf("kept %v of %v + %s", got, ids, w.ID())
	}
	d.Max = 1
	w = writeAction(t, d, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if acts, _, _ := d.List(); len(acts) != 1 || acts[0].Header.ID != w.ID() {
		t.Fatalf("tiny bound kept %d actions", len(acts))
	}
}
