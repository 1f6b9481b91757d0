package tui

// This file owns the arguments view: enter on a busy worker in the Workers
// view shows its job's arguments, pretty-printed, over the whole body. It
// follows the worker across polls by ID and closes when the worker's job
// ends.

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/model"
)

// argsView is a worker's job's arguments, scrolled by top.
type argsView struct {
	km     keyMap
	worker model.Worker
	// readAt is the Redis time of the snapshot that last brought the
	// workers, latest that of the last snapshot: the workers are read only
	// while they are on show, so the view says how old they are.
	readAt, latest time.Time
	top            int
	width, height  int
}

// newArgsView shows w, read at readAt (Redis's clock) by the Workers view
// whose last snapshot is of latest.
func newArgsView(w model.Worker, readAt, latest time.Time, k keyMap) argsView {
	return argsView{km: k, worker: w, readAt: readAt, latest: latest}
}

// title is empty: the tab stays "Workers".
func (argsView) title() string { return "" }

func (v argsView) update(msg tea.Msg) (view, tea.Cmd) {
	if s, ok := msg.(snapshotShown); ok {
		return v.setSnapshot(s.snap, s.hist), nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return v, nil
	}
	k := v.km
	switch {
	case key.Matches(km, k.get(actions.Up)):
		v.top = max(v.top-1, 0)
	case key.Matches(km, k.get(actions.Down)):
		v.top++
	case key.Matches(km, k.get(actions.PageUp)):
		v.top = max(v.top-max(v.height-2, 1), 0)
	case key.Matches(km, k.get(actions.PageDown)):
		v.top += max(v.height-2, 1)
	case key.Matches(km, k.get(actions.Top)):
		v.top = 0
	}
	return v, nil
}

// setSnapshot follows the worker; a snapshot that read the workers and
// does not have it busy closes the view.
func (v argsView) setSnapshot(s *model.Snapshot, _ queueHistory) view {
	v.latest = s.RedisTime
	if s.Workers == nil {
		return v
	}
	for _, w := range model.BusyWorkers(s.Workers) {
		if w.WorkerID == v.worker.WorkerID {
			v.worker, v.readAt = w, s.RedisTime
			return v
		}
	}
	return nil
}

func (v argsView) setSize(w, h int) view {
	v.width, v.height = w, h
	return v
}

func (argsView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Back, true)
	return k
}

func (v argsView) render(c renderContext) string {
	if v.readAt.Equal(v.latest) {
		return renderWorkerArgs(v.worker, v.top, v.width, v.height, c.st)
	}
	age := max(c.now.Sub(c.fetchedAt)+v.latest.Sub(v.readAt), 0)
	note := c.st.warn.Render(fitLine("workers as of "+model.FormatAge(age)+" ago: reading them again…", v.width)) + "\n"
	return fitBlock(note+renderWorkerArgs(v.worker, v.top, v.width, v.height-1, c.st), v.width, v.height)
}

// showsWorkers: the polls read the workers while the arguments are on
// show, to close them when the job ends.
func (argsView) showsWorkers() bool { return true }
