package journal

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// readBytes reads b as a journal's bytes, as Read does.
func readBytes(b []byte) (*Action, error) {
	return readAction(bytes.NewReader(b), int64(len(b)))
}

// readSlack is what reading any file costs besides its bytes: the reader,
// the action and the errors' text.
const readSlack = 16 << 10

// A record whose length says more than the file holds costs no more memory
// than the file: ten such 650-byte files cost kilobytes, not the 256 MB
// each length claims. A skim of a large journal reads its header and end,
// not its calls.
func TestDamagedLengthsBoundedByFileSize(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	id := closed(t, d, 1)
	path := filepath.Join(d.Path, id+ext)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, recordEnds(full)[0]} { // the header's length, the intent's
		bad := append([]byte(nil), full...)
		binary.BigEndian.PutUint32(bad[at:], maxRecord)
		bad = append(bad, make([]byte, 650)...)
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		got := allocated(func() {
			for i := 0; i < 10; i++ {
				_, _ = d.Read(id)
				_, _ = d.Skim(id)
			}
		})
		if limit := uint64(10 * 2 * (len(bad) + readSlack + 64<<10)); got > limit {
			t.Fatalf("length at %d: reading 10 times a %d-byte file allocated %d bytes, more than %d", at, len(bad), got, limit)
		}
	}

	big := Dir{Path: t.TempDir()}
	w := writeAction(t, big, 8000)
	if err := w.End(End{Done: 8000}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(big.Path, w.ID()+ext))
	if err != nil {
		t.Fatal(err)
	}
	var a *Action
	got := allocated(func() { a, err = big.Skim(w.ID()) })
	if err != nil || a.End == nil || a.End.Done != 8000 || a.Header.ID != w.ID() {
		t.Fatalf("skim: %v %+v", err, a)
	}
	if got > 128<<10 {
		t.Fatalf("a skim of a %d-byte journal allocated %d bytes", fi.Size(), got)
	}
}

// FuzzReadAction: any bytes read as a journal give an action or an error,
// never a panic, and never cost more memory than a small multiple of
// their size until a record passes its checksum. Seeds: a whole journal,
// and the same with a length field raised.
func FuzzReadAction(f *testing.F) {
	d := Dir{Path: f.TempDir()}
	w, err := d.Create(Header{Address: "a:1", Namespace: "work", Op: OpRequeue})
	if err != nil {
		f.Fatal(err)
	}
	seq, _ := w.Intent(Intent{Items: []Item{{Set: "work:dead", Old: []byte("{}"), Queue: "work:jobs:x"}}})
	_ = w.Commit(seq, Commit{Codes: "m", Now: "1"})
	_ = w.End(End{Done: 1})
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	full, err := os.ReadFile(filepath.Join(d.Path, w.ID()+ext))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	raised := append([]byte(nil), full...)
	binary.BigEndian.PutUint32(raised[recordEnds(full)[0]:], 0x7fffffff)
	f.Add(raised)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var a *Action
		var err error
		got := allocated(func() { a, err = readBytes(b) })
		if (a == nil) == (err == nil) {
			t.Fatalf("action %v and error %v", a, err)
		}
		if a != nil && a.Size != int64(len(b)) {
			t.Fatalf("size %d of %d bytes", a.Size, len(b))
		}
		// Past the checksum, decoding JSON costs what JSON costs; before
		// it, what is allocated is bounded by the bytes.
		if a == nil || a.Altered != "" || len(a.Calls) == 0 {
			if limit := uint64(4*len(b) + readSlack + 64<<10); got > limit {
				t.Fatalf("%d bytes read allocated %d bytes", len(b), got)
			}
		}
	})
}
