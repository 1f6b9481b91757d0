package journal

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Headers gives each journal's header as Read does, whatever follows it
// (even records cut short), and counts a file without one among the
// errors, as List does.
func TestHeadersAreReadsHeaders(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "journal")}
	whole := writeAction(t, d, 50)
	if err := whole.Close(); err != nil {
		t.Fatal(err)
	}
	cut := writeAction(t, d, 3)
	if err := cut.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(d.File(cut.ID()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(d.File(cut.ID()), fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, "0000000000000000000000ff"+ext), []byte("not a journal"), 0o600); err != nil {
		t.Fatal(err)
	}
	heads, bad, err := d.Headers()
	if err != nil {
		t.Fatal(err)
	}
	all, listBad, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != len(all) || len(bad) != len(listBad) {
		t.Fatalf("%d headers and %d errors, List %d actions and %d errors", len(heads), len(bad), len(all), len(listBad))
	}
	for i, h := range heads {
		if !reflect.DeepEqual(h.Header, all[i].Header) || h.Size != all[i].Size {
			t.Errorf("header %d: %+v, Read's %+v", i, h.Header, all[i].Header)
		}
	}
}
