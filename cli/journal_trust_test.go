//go:build unix

package cli

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// plantUnpause writes, in dir, the journal of an unpause whose undo would
// SET key to value: what an attacker plants.
func plantUnpause(t *testing.T, dir journal.Dir, addr, namespace, key, value string) string {
	t.Helper()
	w, err := dir.Create(journal.Header{Address: addr, Namespace: namespace, Op: journal.OpUnpause, Command: "unpause mail"})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := w.Intent(journal.Intent{Items: []journal.Item{{Key: &journal.Key{Name: key, Exists: true, Value: []byte(value), PTTL: -1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(seq, journal.Commit{Statuses: []string{"unpaused"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.End(journal.End{Done: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.ID()
}

// rewriteHeader changes the header record of a journal file with edit and
// gives it a checksum that matches: an edit no check of the record sees.
func rewriteHeader(t *testing.T, path string, edit func(h map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := binary.BigEndian.Uint32(b[0:4])
	var rec map[string]any
	if err := json.Unmarshal(b[8:8+size], &rec); err != nil {
		t.Fatal(err)
	}
	edit(rec["header"].(map[string]any))
	payload, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 8, 8+len(payload)+len(b))
	binary.BigEndian.PutUint32(out[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(out[4:8], crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
	out = append(append(out, payload...), b[8+size:]...)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Undo trusts no journal it did not write for this namespace: a planted
// journal (of another user, or writable by others, or in a directory
// others can write to) is not read; an item naming a key outside the
// namespace refuses the undo; a header edited from namespace k1 to k2
// cannot make an undo on k2 move k1's keys. Each is one line, exit 1, and
// Redis is untouched.
func TestUndoTrustsNoPlantedJournal(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	redistest.Do(t, c, "SADD", "k1:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "k2:known_jobs", "mail")
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	dir := journal.Dir{Path: journal.DirBeside(auditPath)}
	before := redistest.Dump(t, c, "*")
	refused := func(what string, args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, input{}, append([]string{addr, al}, args...)...)
		if code != 1 || errorLines(stderr) != 1 {
			t.Fatalf("%s: exit %d: %q\n%s", what, code, stderr, out)
		}
		if got := redistest.Dump(t, c, "*"); !reflect.DeepEqual(got, before) {
			t.Fatalf("%s changed Redis: %v", what, got)
		}
		return stderr
	}

	// An item outside the namespace, in a journal of the user's own.
	id := plantUnpause(t, dir, srv.Addr(), "work", "some-other-app:config:admin_token", "attacker-value")
	if stderr := refused("key outside the namespace", "undo", "--yes"); !strings.Contains(stderr, "outside namespace") {
		t.Fatalf("key outside the namespace: %q", stderr)
	}
	path := dir.File(id)
	// The same file writable by others; of another user (as root).
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if stderr := refused("journal writable by others", "undo", "--yes", id); !strings.Contains(stderr, "can be written by other users") {
		t.Fatalf("journal writable by others: %q", stderr)
	}
	if os.Geteuid() == 0 {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if stderr := refused("journal of another user", "undo", "--yes", id); !strings.Contains(stderr, "owned by another user") {
			t.Fatalf("journal of another user: %q", stderr)
		}
		if err := os.Chown(path, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// The directory writable by others.
	if err := os.Chmod(dir.Path, 0o777); err != nil {
		t.Fatal(err)
	}
	if stderr := refused("journal directory writable by others", "undo", "--yes", id); !strings.Contains(stderr, "can be written by other users") {
		t.Fatalf("journal directory writable by others: %q", stderr)
	}
	if err := os.Chmod(dir.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}

	// A pause on k1, its header edited to k2.
	if out, stderr, code := runCLI(t, input{}, addr, al, "-n", "k1", "pause", "--yes", "mail"); code != 0 {
		t.Fatalf("pause: exit %d: %s\n%s", code, stderr, out)
	}
	before = redistest.Dump(t, c, "*")
	k1 := journalIDRe.FindStringSubmatch(auditLines(t, auditPath)[0])[1]
	rewriteHeader(t, dir.File(k1), func(h map[string]any) { h["namespace"] = "k2" })
	if stderr := refused("header edited to k2", "-n", "k2", "undo", "--yes", k1); !strings.Contains(stderr, "outside namespace") {
		t.Fatalf("header edited to k2: %q", stderr)
	}
	if stderr := refused("header edited to k2, the last action", "-n", "k2", "undo", "--yes"); !strings.Contains(stderr, "outside namespace") {
		t.Fatalf("header edited to k2: %q", stderr)
	}
}

// A symbolic link planted as the audit log is not followed: the write is
// refused before anything changes, and the file it points to is untouched.
func TestAuditLogLinkRefused(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auditPath := filepath.Join(dir, "audit.log")
	if err := os.Symlink(victim, auditPath); err != nil {
		t.Fatal(err)
	}
	before := redistest.Dump(t, c, "*")
	_, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "--audit-log="+auditPath, "jobs", "dead", "requeue", "--all", "--yes")
	if code != 1 || !strings.Contains(stderr, "symbolic link") || errorLines(stderr) != 1 {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if !reflect.DeepEqual(redistest.Dump(t, c, "*"), before) {
		t.Fatal("a refused write changed Redis")
	}
}

// A FIFO as a journal, as the audit log, as a password file or as the
// configuration file is refused at once: nothing waits for a writer.
func TestFIFOsDoNotHang(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	auditPath := filepath.Join(dir, "audit.log")
	fifo(filepath.Join(filepath.Base(journal.DirBeside(auditPath)), "20991231-000000-001.wqj"))
	for _, tc := range []struct {
		name string
		code int
		want string
		args []string
	}{
		{"history", 0, "not a regular file", []string{addr, "--audit-log=" + auditPath, "history"}},
		{"undo", 1, "not a regular file", []string{addr, "--audit-log=" + auditPath, "undo", "--yes", "20991231-000000-001"}},
		{"audit log", 1, "not a regular file", []string{addr, "--audit-log=" + fifo("fifo.log"), "jobs", "dead", "requeue", "--all", "--yes"}},
		{"password file", 1, "not a regular file", []string{addr, "--password-file=" + fifo("pw"), "snapshot"}},
		{"config", 2, "not a regular file", []string{"--config=" + fifo("config.toml"), "snapshot"}},
	} {
		done := make(chan struct{})
		var stderr string
		var code int
		go func() {
			defer close(done)
			_, stderr, code = runCLI(t, input{}, tc.args...)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still waiting on the FIFO", tc.name)
		}
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Fatalf("%s: exit %d: %q", tc.name, code, stderr)
		}
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 40 {
		t.Fatalf("%d dead jobs left, want 40", n)
	}
}

// A file named as a journal but for escape bytes and a command
// substitution is never read, never offered by completion, and history
// names it escaped.
func TestForeignJournalNames(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "dead", "requeue", "--all", "--yes"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	dir := journal.DirBeside(auditPath)
	id := journalIDRe.FindStringSubmatch(auditLines(t, auditPath)[0])[1]
	full, err := os.ReadFile(filepath.Join(dir, id+".wqj"))
	if err != nil {
		t.Fatal(err)
	}
	evil := "20991231-000000-001\x1b]0;T\a$(touch x).wqj"
	if err := os.WriteFile(filepath.Join(dir, evil), full, 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, input{}, addr, al, "history")
	if code != 0 || strings.ContainsAny(out+stderr, "\x1b\a") || !strings.Contains(stderr, "not a journal's name") || !strings.Contains(out, id) {
		t.Fatalf("history: exit %d: %q\n%q", code, stderr, out)
	}
	for _, cmd := range []string{"undo", "history"} {
		out, _, code := runCLI(t, input{}, completeRequest, addr, al, cmd, "")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], id+"\t") || strings.ContainsAny(out, "\x1b\a$") {
			t.Fatalf("complete %s: exit %d: %q", cmd, code, out)
		}
	}
}

// A flipped byte in a record makes undo fail naming the file, exit 1,
// rather than say there is nothing to put back; records repeated in the
// file do not double the plan.
func TestUndoDamagedOrRepeatedJournal(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "dead", "requeue", "--all", "--yes", "--batch", "40"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	id := journalIDRe.FindStringSubmatch(auditLines(t, auditPath)[0])[1]
	path := filepath.Join(journal.DirBeside(auditPath), id+".wqj")
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := redistest.Dump(t, c, "*")
	flipped := append([]byte(nil), full...)
	header := 8 + int(binary.BigEndian.Uint32(full[0:4]))
	flipped[header+40] ^= 1 // in the intent record
	if err := os.WriteFile(path, flipped, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes", id)
	if code != 1 || !strings.Contains(stderr, path) || !strings.Contains(stderr, "changed after it was written") {
		t.Fatalf("undo of a flipped byte: exit %d: %q", code, stderr)
	}
	if !reflect.DeepEqual(redistest.Dump(t, c, "*"), before) {
		t.Fatal("a refused undo changed Redis")
	}
	if err := os.WriteFile(path, append(append([]byte(nil), full...), full[header:]...), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes", id)
	if code != 0 || !strings.Contains(out, "put back 40") || !strings.Contains(out, "to put back: 40 ") {
		t.Fatalf("undo of repeated records: exit %d: %s\n%s", code, stderr, out)
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 40 {
		t.Fatalf("%d dead jobs after the undo, want 40", n)
	}
}

// A killed undo's DONE in history counts what its committed calls put
// back.
func TestHistoryDoneOfKilledUndo(t *testing.T) {
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	dir := journal.Dir{Path: journal.DirBeside(auditPath)}
	w, err := dir.Create(journal.Header{Address: "127.0.0.1:1", Namespace: "work", Op: journal.OpUndo, Command: "undo x", UndoOf: "20260101-000000-001"})
	if err != nil {
		t.Fatal(err)
	}
	for _, codes := range []string{"rrub", "kr"} {
		seq, err := w.Intent(journal.Intent{Items: make([]journal.Item, len(codes))})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(seq, journal.Commit{Codes: codes}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Intent(journal.Intent{Items: make([]journal.Item, 3)}); err != nil { // in flight when killed
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // no end record
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, input{}, "--redis=127.0.0.1:1", "--audit-log="+auditPath, "history", "--json")
	var rows []journal.Summary
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].Done != 5 {
		t.Fatalf("history: exit %d: %s\n%s", code, stderr, out)
	}
}

// With --audit-log outside the program's own directory, the journal goes
// to <log>.journal beside it, never to a directory named journal (in
// /var/log, systemd's); history names the old place when it holds
// journals.
func TestJournalBesideAuditLogOfItsOwn(t *testing.T) {
	if got := journal.DirBeside("/var/log/x.log"); got != "/var/log/x.log.journal" {
		t.Fatalf("beside /var/log/x.log: %s", got)
	}
	if got := journal.DirBeside("/home/u/.local/state/workq-tui/audit.log"); got != "/home/u/.local/state/workq-tui/journal" {
		t.Fatalf("beside the default log: %s", got)
	}
	srv := redistest.Start(t)
	undoState(t, srv.Dial())
	logDir := t.TempDir()
	auditPath := filepath.Join(logDir, "x.log")
	if out, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "--audit-log="+auditPath, "jobs", "dead", "requeue", "--all", "--yes"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	if _, err := os.Stat(filepath.Join(logDir, "journal")); !os.IsNotExist(err) {
		t.Fatalf("a directory named journal beside the log: %v", err)
	}
	if err := os.Rename(auditPath+".journal", filepath.Join(logDir, "journal")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "--audit-log="+auditPath, "history")
	if code != 0 || !strings.Contains(stderr, "earlier versions") || !strings.Contains(stderr, filepath.Join(logDir, "journal")) {
		t.Fatalf("history: exit %d: %q", code, stderr)
	}
}

// history on a Sentinel target whose sentinels accept connections but never
// answer lists the local journal within a bound, with a warning.
func TestHistorySentinelsSilent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // open, never answered
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
		}
	}()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	plantUnpause(t, journal.Dir{Path: journal.DirBeside(auditPath)}, "10.0.0.1:6379", "work", "work:jobs:mail:paused", "1")
	start := time.Now()
	out, stderr, code := runCLI(t, input{}, "--sentinel="+ln.Addr().String(), "--sentinel-master=m", "--audit-log="+auditPath, "history")
	took := time.Since(start)
	if code != 0 || !strings.Contains(stderr, "sentinels did not name the master") || !strings.Contains(out, "unpause mail") {
		t.Fatalf("history: exit %d: %q\n%s", code, stderr, out)
	}
	if took > 3*time.Second {
		t.Fatalf("history waited %s for silent sentinels", took)
	}
}

// A write past --journal-max names the journals it dropped, on one line;
// an undo never drops the journal it puts back, even past the bound.
func TestJournalPruneNamedAndUndoSourceKept(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "dead", "requeue", "--all", "--yes"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	first := journalIDRe.FindStringSubmatch(auditLines(t, auditPath)[0])[1]
	out, stderr, code := runCLI(t, input{}, addr, al, "--journal-max=1", "jobs", "retry", "requeue", "--all", "--yes")
	if code != 0 || !strings.Contains(out, "Journal: dropped the journals of 1 older action to keep the directory within --journal-max: "+first+".") {
		t.Fatalf("requeue past the bound: exit %d: %s\n%s", code, stderr, out)
	}
	second := journalIDRe.FindStringSubmatch(auditLines(t, auditPath)[1])[1]
	out, stderr, code = runCLI(t, input{}, addr, al, "--journal-max=1", "undo", "--yes", second)
	if code != 0 || !strings.Contains(out, "put back 40") {
		t.Fatalf("undo past the bound: exit %d: %s\n%s", code, stderr, out)
	}
	if _, err := os.Stat(filepath.Join(journal.DirBeside(auditPath), second+".wqj")); err != nil {
		t.Fatalf("the undone action's journal: %v", err)
	}
}
