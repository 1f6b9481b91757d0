package tui

// This file owns the full sweeps: at most one runs, at start, on r and
// SweepInterval after the last one; the drift the screen shows is the
// last sweep's.

import (
	"slices"
	"sort"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// sweepState is the state of the full sweeps: at most one runs; again is
// set when r asked for one while one ran. drift holds the drift findings
// of the last sweep by job type, leaked the leaked in-progress entries it
// found (the polls do not look for them); at is when it ended (the
// screen's clock).
type sweepState struct {
	enabled, running, again bool
	gen                     uint64
	drift                   map[string]model.Finding
	leaked                  []model.LeakedEntry
	// variant is which build wrote the namespace, as the last sweep told
	// (nil when it did not).
	variant *model.Variant
	at      time.Time
	err     error
}

// driftJobs are the job types the last sweep found drifted, sorted.
func (s sweepState) driftJobs() []string {
	out := make([]string, 0, len(s.drift))
	for job := range s.drift {
		out = append(out, job)
	}
	sort.Strings(out)
	return out
}

// startSweep starts a sweep of a new generation, or asks for one more when
// one runs.
func (m Model) startSweep() (Model, tea.Cmd) {
	if !m.sweep.enabled {
		return m, nil
	}
	if m.sweep.running {
		m.sweep.again = true
		return m, nil
	}
	m.sweep.gen++
	m.sweep.running, m.sweep.again = true, false
	return m, tea.Batch(sweepCmd(m.rd.Sweep, m.sweep.gen, m.opts.SweepTimeout, m.opts.Now), healthCmd(m.rd.Health, m.opts.FetchTimeout))
}

// onSweep keeps a sweep's drift, shows it on the current snapshot, and
// arms the next sweep.
func (m Model) onSweep(msg sweepMsg) (Model, tea.Cmd) {
	if msg.gen != m.sweep.gen {
		return m, nil
	}
	m.sweep.running = false
	m.sweep.err = msg.err
	if msg.err == nil {
		drift := map[string]model.Finding{}
		for _, f := range msg.snap.Findings {
			if f.Kind == model.FindingDrift {
				drift[f.Subject] = f
			}
		}
		m.sweep.drift, m.sweep.at = drift, msg.at
		m.sweep.leaked, m.sweep.variant = msg.snap.Leaked, msg.snap.Variant
		if m.snap != nil {
			m = m.setSnap(m.adjusted(m.snap))
		}
	}
	if m.sweep.again {
		return m.startSweep()
	}
	gen := m.sweep.gen
	return m, m.after(m.opts.SweepInterval, func(time.Time) tea.Msg { return sweepTickMsg{gen: gen} })
}

// adjusted is a poll's snapshot as the screen shows it: its long-running
// cut-off the screen's (Options.LongAfter) and, when the screen sweeps,
// its drift the last sweep's. The sweep is then the one owner of the
// drift: the polls are asked for none (redisq.PollRequest.NoDrift).
func (m Model) adjusted(snap *model.Snapshot) *model.Snapshot {
	var drift map[string]model.Finding
	if m.sweep.enabled {
		drift = m.sweep.drift
		if drift == nil {
			drift = map[string]model.Finding{}
		}
	}
	return adjustSnapshot(snap, m.opts.LongAfter, drift)
}

// adjustSnapshot is snap with the cut-off longAfter (when positive) and,
// unless drift is nil, the job types and the drift findings a sweep
// confirmed, nothing else: snap itself when that changes nothing, else a
// copy. The findings are listed again only when the cut-off or a job
// type's drift changes: at thousands of pools and workers listing them is
// most of a poll's cost on screen.
func adjustSnapshot(snap *model.Snapshot, longAfter time.Duration, drift map[string]model.Finding) *model.Snapshot {
	out := *snap
	changed := false
	if longAfter > 0 && out.LongAfter != longAfter {
		out.LongAfter, changed = longAfter, true
	}
	if drift != nil {
		cloned := false
		for i := range out.JobTypes {
			if _, d := drift[out.JobTypes[i].Name]; d != out.JobTypes[i].Drift {
				if !cloned {
					out.JobTypes, cloned = slices.Clone(snap.JobTypes), true
				}
				out.JobTypes[i].Drift, changed = d, true
			}
		}
	}
	if changed {
		out.Findings = model.Findings(&out)
	}
	findingsCopied := changed
	for i, f := range out.Findings {
		if sf, ok := drift[f.Subject]; ok && f.Kind == model.FindingDrift && sf != f {
			if !findingsCopied {
				out.Findings, findingsCopied = slices.Clone(out.Findings), true
			}
			out.Findings[i], changed = sf, true
		}
	}
	if !changed {
		return snap
	}
	return &out
}
