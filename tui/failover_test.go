package tui

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeFollower is a Follower whose state a test changes between redraws.
type fakeFollower struct {
	mu sync.Mutex
	f  Following
}

func (f *fakeFollower) Following() Following {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.f
}

func (f *fakeFollower) set(fn func(*Following)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.f)
}

func TestFollowerHeaderAndFailoverNotice(t *testing.T) {
	for _, width := range []int{80, 120} {
		fol := &fakeFollower{f: Following{MasterName: "m", Node: "10.0.0.1:6379", Sentinels: 3, Listening: 3}}
		o, _ := testOptions(staticSource(fixture()))
		o.Reads.Follow = fol
		m := newTest(t, o, width, 24)

		view := m.View()
		lines := strings.Split(view, "\n")
		if len(lines) != 24 {
			t.Fatalf("width %d: %d lines, want 24", width, len(lines))
		}
		if !strings.Contains(lines[0], "10.0.0.1:6379 master") || strings.Contains(lines[0], "redis.internal") {
			t.Fatalf("width %d: the header does not name the master the sentinels gave:\n%s", width, lines[0])
		}
		if !strings.Contains(strings.Join(lines[2:4], "\n"), "sentinel m  no failover seen  3/3 sentinels announcing") {
			t.Fatalf("width %d: no sentinel line:\n%s", width, view)
		}

		// A failover, with a control sequence in the address as a hostile
		// sentinel could send: shown cleaned (escaped), in the header and
		// the message area, without a new poll.
		fol.set(func(f *Following) {
			f.Node = "10.0.0.2:6379"
			f.Failover = &Failover{Old: "10.0.0.1:6379", New: "10.0.0.2:6379\x1b[2J", At: fixedNow.Add(-2 * time.Second)}
		})
		m = step(t, m, clockMsg{})
		view = m.View()
		lines = strings.Split(view, "\n")
		if len(lines) != 24 {
			t.Fatalf("width %d: %d lines after the failover, want 24", width, len(lines))
		}
		if strings.Contains(view, "\x1b") {
			t.Fatalf("width %d: an escape sequence reached the screen: %q", width, view)
		}
		if !strings.Contains(lines[0], "10.0.0.2:6379 master") {
			t.Fatalf("width %d: the header does not show the new master:\n%s", width, lines[0])
		}
		if head := strings.Join(lines[2:4], "\n"); !strings.Contains(head, `failover: 10.0.0.1:6379 -> 10.0.0.2:6379\x1b[2J 2s ago`) {
			t.Fatalf("width %d: the sentinel line does not say failover:\n%s", width, head)
		}
		if !strings.Contains(lines[len(lines)-2], `failover: 10.0.0.1:6379 -> 10.0.0.2:6379\x1b[2J (the screen`) {
			t.Fatalf("width %d: the message area does not say failover:\n%s", width, view)
		}

		// Long after, the message area is free again; the header keeps it.
		fol.set(func(f *Following) { f.Failover.At = fixedNow.Add(-time.Hour) })
		view = step(t, m, clockMsg{}).View()
		lines = strings.Split(view, "\n")
		if strings.Contains(lines[len(lines)-2], "failover") || !strings.Contains(strings.Join(lines[2:4], "\n"), "failover") {
			t.Fatalf("width %d: an old failover in the message area, or gone from the header:\n%s", width, view)
		}
	}
}

func TestFollowerReplicaHeader(t *testing.T) {
	fol := &fakeFollower{f: Following{MasterName: "m", Node: "10.0.0.3:6379", Replica: true, LagKnown: true, LagBytes: 12345, LagSeconds: 1, Sentinels: 3}}
	o, _ := testOptions(staticSource(fixture()))
	o.Reads.Follow, o.ReadOnly = fol, true
	m := newTest(t, o, 120, 24)
	lines := strings.Split(m.View(), "\n")
	if !strings.Contains(lines[0], "10.0.0.3:6379 replica lag 12.3 kB 1s") {
		t.Fatalf("the header does not say replica and lag:\n%s", lines[0])
	}
	if !strings.Contains(lines[2], "reading a replica") || strings.Contains(lines[2], "announcing") {
		t.Fatalf("sentinel line of a replica:\n%s", lines[2])
	}
	fol.set(func(f *Following) { f.Problem = "no usable replica of \"m\"" })
	lines = strings.Split(step(t, m, clockMsg{}).View(), "\n")
	if !strings.Contains(lines[2], "no usable replica") {
		t.Fatalf("the sentinel line does not show the problem:\n%s", lines[2])
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 12345: "12.3 kB", 4_200_000: "4.2 MB", 7_000_000_000: "7.0 GB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
