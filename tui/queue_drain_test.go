package tui

import (
	"strings"
	"testing"
	"time"
)

// topJobLine is the first line of the queue view's viewport.
func topJobLine(q queueView) string {
	return strings.SplitN(q.vp.View(), "\n", 2)[0]
}

// TestQueueReloadKeepsPlace: the re-read that follows an action (and r)
// keeps the job at the top of the viewport there, though the jobs before
// it have gone.
func TestQueueReloadKeepsPlace(t *testing.T) {
	f := queueFixture()
	q := newQueueView(1, "send_email", fixture(), defaultKeyMap(), f, time.Second)
	v, _ := q.setSize(80, 20).(queueView)
	nv, cmd := v.update(loadMsg{})
	nv, _ = nv.update(cmd())
	v = nv.(queueView)
	_, starts := queueJobLines(v.page, v.job, v.redisTime, v.width)
	v.vp.SetYOffset(starts[6])
	if got := topJobLine(v); !strings.Contains(got, "job06") {
		t.Fatalf("the viewport's top is %q, want job06", got)
	}
	f.mu.Lock()
	f.jobs["send_email"] = f.jobs["send_email"][4:] // four jobs ran, or were taken
	f.mu.Unlock()
	nv, cmd = v.update(loadMsg{})
	nv, _ = nv.update(cmd())
	v = nv.(queueView)
	if got := topJobLine(v); !strings.Contains(got, "#3 ") || !strings.Contains(got, "job06") {
		t.Fatalf("after the re-read the viewport's top is %q, want job06, now #3", got)
	}
}
