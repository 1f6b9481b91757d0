package tui

// This file owns the explanation view: e on a job type (the Job types
// view, its queue) or a pool (the Pools view, its detail) shows why it is
// not running, or why the pool is late or dead, as `workq-tui explain`
// says it: the verdict in one line, the evidence under it, and for each
// cause the command that fixes it and the key that does it here. It reads
// when it opens, on r and after every action. The keys act on what it
// explains: p unpauses the job type, L repairs its lock, x reaps the pool.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/internal/actions"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// Explainer explains a job type or a pool from one read of the namespace,
// by the same code as `workq-tui explain`; it only reads.
type Explainer interface {
	ExplainJob(ctx context.Context, job string) (model.Explanation, error)
	ExplainPool(ctx context.Context, id string) (model.PoolExplanation, error)
	// FixCommand is the command line of a cause's fix (its words after the
	// program's name), with the screen's connection flags; "" for none.
	FixCommand(fix []string) string
}

// explainSubject is what an explanation is of: a job type, or a pool.
type explainSubject struct {
	job, pool string
}

func (s explainSubject) name() string {
	if s.pool != "" {
		return "pool " + model.ShortID(s.pool)
	}
	return s.job
}

// explained is one read of an explanation, job's or pool's alike.
type explained struct {
	running bool
	verdict string
	facts   []string
	causes  []model.Cause
	fixes   []string // the command line of each cause's fix, "" for none
}

// explainMsg carries a read of the explanation view view.
type explainMsg struct {
	view, seq int
	x         explained
	err       error
}

func explainCmd(r Explainer, s explainSubject, view, seq int, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var x explained
		var causes []model.Cause
		var err error
		if s.pool != "" {
			var p model.PoolExplanation
			p, err = r.ExplainPool(ctx, s.pool)
			x, causes = explained{running: p.Running, verdict: p.Verdict, facts: p.Facts}, p.Causes
		} else {
			var j model.Explanation
			j, err = r.ExplainJob(ctx, s.job)
			x, causes = explained{running: j.Running, verdict: j.Verdict, facts: j.Facts}, j.Causes
		}
		x.causes = causes
		for _, c := range causes {
			x.fixes = append(x.fixes, r.FixCommand(c.Fix))
		}
		return explainMsg{view: view, seq: seq, x: x, err: err}
	}
}

// explainTarget is what e explains here: the job type or pool under the
// cursor, the job type of the queue shown, or what the explanation on
// screen explains.
func (m Model) explainTarget() (explainSubject, bool) {
	if v, ok := m.top().(aboutOne); ok {
		return v.explainSubject(), true
	}
	if jt, ok := m.selectedJobType(); ok {
		return explainSubject{job: jt.Name}, true
	}
	if p, ok := m.selectedPool(); ok {
		return explainSubject{pool: p.ID}, true
	}
	return explainSubject{}, false
}

// openExplain is e: the explanation of s pushed, or read again when it is
// on screen already.
func (m Model) openExplain(s explainSubject) (Model, tea.Cmd) {
	v := explainView{id: m.views, km: m.keys, reader: m.rd.Explain, timeout: m.opts.FetchTimeout, subject: s, readOnly: m.opts.ReadOnly}
	return m.pushOrReread(v.setSnapshot(m.snap, m.history))
}

// rereads is the explanation on screen (top) when it explains the same
// subject: it is read again rather than another pushed over it.
func (v explainView) rereads(top view) (view, bool) {
	if t, ok := top.(explainView); ok && t.subject == v.subject {
		return t, true
	}
	return nil, false
}

// explainNamed is :explain NAME: a job type, or a pool when NAME is a
// pool's ID and no job type's name (as `workq-tui explain` decides).
func (m Model) explainNamed(name string) (Model, tea.Cmd) {
	if m.rd.Explain == nil {
		return m.setStatus("explain is not available here", true)
	}
	s := explainSubject{job: name}
	if m.snap != nil {
		if _, ok := m.snap.Pool(name); ok && !slices.Contains(m.jobNames(), name) {
			s = explainSubject{pool: name}
		}
	}
	return m.openExplain(s)
}

// explainView is one explanation.
type explainView struct {
	id      int
	km      keyMap
	reader  Explainer
	timeout time.Duration
	subject explainSubject
	// readOnly leaves out the keys of the fixes: they write.
	readOnly bool
	// jobType and pool are the subject in the last snapshot, for the
	// actions its keys run; nil when the snapshot does not hold it.
	jobType *model.JobType
	pool    *model.Pool

	loader
	x explained
	// offset is the first line shown: a long explanation scrolls.
	offset int

	width, height int
}

func (v explainView) title() string { return "explain " + textsafe.Clean(v.subject.name()) }

func (v explainView) setSnapshot(s *model.Snapshot, _ queueHistory) view {
	v.jobType, v.pool = nil, nil
	if s == nil {
		return v
	}
	if v.subject.pool != "" {
		if p, ok := s.Pool(v.subject.pool); ok {
			c := *p
			v.pool = &c
		}
	} else if jt, ok := s.JobType(v.subject.job); ok {
		c := *jt
		v.jobType = &c
	}
	return v
}

// pickedPool and pickedJobType are the subject, so that the keys of its
// fixes act on it.
func (v explainView) pickedPool() (model.Pool, bool) {
	if v.pool == nil {
		return model.Pool{}, false
	}
	return *v.pool, true
}

func (v explainView) pickedJobType() (model.JobType, bool) {
	if v.jobType == nil {
		return model.JobType{}, false
	}
	return *v.jobType, true
}

// explainSubject is what the view explains: e reads it again.
func (v explainView) explainSubject() explainSubject { return v.subject }

func (v explainView) update(msg tea.Msg) (view, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotShown:
		return v.setSnapshot(msg.snap, msg.hist), nil
	case loadMsg:
		v.loader = v.start()
		return v, explainCmd(v.reader, v.subject, v.id, v.seq, v.timeout)
	case explainMsg:
		var ok bool
		if v.loader, ok = v.take(v.id, msg.view, msg.seq, msg.err); !ok || msg.err != nil {
			return v, nil
		}
		v.x = msg.x
		v.offset = min(v.offset, v.maxOffset())
	case tea.KeyMsg:
		l := listState{cursor: v.offset, offset: v.offset}
		l, _ = l.navigate(msg, v.km, v.maxOffset()+1, 1)
		v.offset = l.cursor
	}
	return v, nil
}

func (v explainView) setSize(w, h int) view {
	v.width, v.height = w, h
	v.offset = min(v.offset, v.maxOffset())
	return v
}

// keys: the lines scroll; esc goes back.
func (v explainView) keys(k keyMap) keyMap {
	k.enable(actions.Enter, false)
	k.enable(actions.Filter, false)
	k.enable(actions.Back, true)
	k.setHelp(actions.Back, "esc", "back")
	return k
}

func (v explainView) maxOffset() int {
	return max(len(v.body(styles{}))-(v.height-1), 0)
}

// fixKey is the key that removes a cause on the screen, and what it does;
// "" when no key does.
func (v explainView) fixKey(kind string) string {
	k := func(b key.Binding, what string) string { return b.Help().Key + " " + what }
	switch kind {
	case model.CausePaused:
		return k(v.km.get(actions.Pause), "unpauses it")
	case model.CauseLockDrift:
		return k(v.km.get(actions.RepairLocks), "repairs the lock")
	case model.CauseDeadPoolLocks, model.CauseHeldDead:
		return k(v.km.get(actions.ReapAll), "reaps the dead pools (the plan lists them)")
	case model.FindingDeadPool:
		return k(v.km.get(actions.Reap), "reaps it")
	case model.CauseOrphaned, "not_in_worker_pools":
		return k(v.km.get(actions.Requeue), "requeues them from the Orphans view")
	case model.CauseWaitingRetry:
		return "the Jobs view (:jobs retry) requeues them"
	case model.CauseRecentDeaths:
		return "the Jobs view (:jobs dead) requeues them"
	}
	return ""
}

// body is the explanation's lines, wrapped to the view's width: the
// facts, then each cause with its evidence, its fix and its key.
func (v explainView) body(st styles) []string {
	var lines []string
	for _, f := range v.x.facts {
		lines = append(lines, "  "+textsafe.Clean(f))
	}
	for i, c := range v.x.causes {
		if len(v.x.causes) > 1 || c.Verdict != v.x.verdict {
			lines = append(lines, fmt.Sprintf("  %d. %s", i+1, textsafe.Clean(c.Verdict)))
		}
		for _, ev := range c.Evidence {
			lines = append(lines, "     "+textsafe.Clean(ev))
		}
		if i < len(v.x.fixes) && v.x.fixes[i] != "" {
			for j, l := range pasteLines(textsafe.Clean(v.x.fixes[i]), max(v.width, 20)-len("     fix: ")) {
				lead := "     fix: "
				if j > 0 {
					lead = "            "
				}
				lines = append(lines, lead+st.bold.Render(l))
			}
		}
		if c.FixText != "" {
			lines = append(lines, "     "+textsafe.Clean(c.FixText))
		}
		if k := v.fixKey(c.Kind); k != "" && !v.readOnly {
			lines = append(lines, "     "+st.accent.Render("here: "+k))
		}
	}
	return wrapPlan(lines, max(v.width, 20))
}

func (v explainView) render(c renderContext) string {
	lines := []string{fitLine(v.verdictLine(c.st), v.width)}
	body := v.body(c.st)
	if v.loaded {
		lines = append(lines, body[min(v.offset, len(body)):]...)
	}
	return fitBlock(strings.Join(lines, "\n"), v.width, v.height)
}

// verdictLine is the verdict, or why there is none yet.
func (v explainView) verdictLine(st styles) string {
	switch {
	case v.err != nil:
		return st.statusErr.Render("could not explain " + textsafe.Clean(v.subject.name()) + ": " + oneLine(v.err.Error()))
	case !v.loaded:
		return st.faint.Render("reading " + textsafe.Clean(v.subject.name()) + "…")
	}
	text := textsafe.Clean(v.x.verdict)
	if v.x.running {
		text = st.ok.Render("ok ") + text
	} else {
		text = st.dead.Render("! ") + st.bold.Render(text)
	}
	if v.loading {
		text += st.faint.Render(" (reading…)")
	}
	return text
}

// explainCommand is :explain [NAME]: NAME's explanation, or what e
// explains here without one.
func (m Model) explainCommand(args []string) (Model, tea.Cmd) {
	if len(args) == 0 {
		return m.pressBinding(m.keys.get(actions.Explain))
	}
	return m.explainNamed(args[0])
}

// pasteLines breaks a command line into lines of at most width columns at
// the spaces outside quotes, each but the last ending in a backslash, so
// that the lines still paste into a shell as one command (the lines after
// the first are indented two columns by their caller, and may be
// two narrower). A word wider than width is a line of its own.
func pasteLines(cmd string, width int) []string {
	var words []string
	start, quoted := 0, false
	for i, r := range cmd {
		switch {
		case r == '\'':
			quoted = !quoted
		case r == ' ' && !quoted:
			words = append(words, cmd[start:i])
			start = i + 1
		}
	}
	words = append(words, cmd[start:])
	var lines []string
	cur := ""
	for _, w := range words {
		room := width - 2 // " \\"
		if len(lines) > 0 {
			room -= 2
		}
		if cur != "" && textsafe.Width(cur)+1+textsafe.Width(w) > room {
			lines = append(lines, cur+" \\")
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(lines, cur)
}
