package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFile(t *testing.T) {
	e := Entry{Time: time.Date(2026, 11, 29, 15, 30, 0, 0, time.UTC), Address: "redis:6379", Namespace: "work",
		Action: "reap", Targets: []string{"a1", "b2"}, Moved: 14, Result: "reaped 2 pools"}
	line := Format("ops", e)
	want := "2026-11-29T15:30:00Z user=ops redis=redis:6379 namespace=work action=reap targets=a1,b2 moved=14 result=\"reaped 2 pools\"\n"
	if line != want {
		t.Fatalf("audit line\n%q, want\n%q", line, want)
	}
	e.Targets = []string{"evil\nid"}
	if l := Format("ops", e); strings.Count(l, "\n") != 1 {
		t.Fatalf("a newline in a target splits the line: %q", l)
	}
	dir := t.TempDir()
	f := &File{Path: filepath.Join(dir, "state", "workq-tui", "audit.log"), User: "ops"}
	for i := 0; i < 2; i++ {
		if err := f.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "\n") != 2 {
		t.Fatalf("log holds %q, want two lines", b)
	}
	if fi, _ := os.Stat(f.Path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit log mode %v", fi.Mode())
	}
	env := map[string]string{"XDG_STATE_HOME": "/x/state"}
	if p, _ := DefaultPath(func(k string) string { return env[k] }, "/home/u"); p != "/x/state/workq-tui/audit.log" {
		t.Fatalf("with XDG_STATE_HOME: %s", p)
	}
	if p, _ := DefaultPath(func(string) string { return "" }, "/home/u"); p != "/home/u/.local/state/workq-tui/audit.log" {
		t.Fatalf("default: %s", p)
	}
}

func TestFormatTarget(t *testing.T) {
	e := Entry{Time: time.Date(2026, 11, 29, 15, 30, 0, 0, time.UTC), Target: "eu west", Address: "redis:6379", Namespace: "work",
		Action: "reap", Targets: []string{"a1"}, Moved: 1, Result: "ok"}
	want := "2026-11-29T15:30:00Z user=ops target=\"eu west\" redis=redis:6379 namespace=work action=reap targets=a1 moved=1 result=ok\n"
	if line := Format("ops", e); line != want {
		t.Fatalf("audit line\n%q, want\n%q", line, want)
	}
}
