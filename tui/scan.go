package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// OrphanScanner starts orphan scans (in-progress lists whose pool is not in
// `<ns>:worker_pools`). Each scan holds a Redis connection of its own, so it
// never waits behind the regular poll, nor the poll behind it.
type OrphanScanner interface {
	StartScan(ctx context.Context) (OrphanScan, error)
}

// OrphanScan is one scan: Step makes one bounded SCAN call; once a Step
// reports Done, Finish returns the orphans. Close releases the connection;
// the screen calls it exactly once per scan, whatever happened.
type OrphanScan interface {
	Step(ctx context.Context) (ScanProgress, error)
	Finish(ctx context.Context) ([]model.InProgressList, error)
	Close() error
}

// ScanProgress is how far a scan has got: SCAN calls made, distinct
// in-progress keys seen, and whether the keyspace walk is over.
type ScanProgress struct {
	Steps, Keys int
	Done        bool
}

// The scan runs as a chain of commands of its own, beside the polls: each
// command makes one SCAN call (and, after the last, reads the lengths), and
// the next step starts only after Options.ScanPause of the step's duration
// (three times it in the program), so the scan holds Redis at most a
// quarter of the time. Every message of the chain carries the scan's
// generation: a message of an older scan is dropped (and its connection
// closed). There is never more than one step running.

// scanStepMsg is the result of one step.
type scanStepMsg struct {
	gen      uint64
	scan     OrphanScan // nil when the scan could not start
	progress ScanProgress
	orphans  []model.InProgressList // when progress.Done and err == nil
	err      error
	took     time.Duration
}

// scanWakeMsg ends the pause after a step: the next step may start.
type scanWakeMsg struct {
	gen  uint64
	scan OrphanScan
}

// scanTickMsg starts the periodic scan armed after the last one ended.
type scanTickMsg struct{ gen uint64 }

// scanStepCmd makes one step of a scan, starting it first when s is nil.
// When the scan ends (done or failed) its connection is closed here.
func scanStepCmd(sc OrphanScanner, s OrphanScan, gen uint64, timeout time.Duration, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		start := now()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		msg := scanStepMsg{gen: gen, scan: s}
		if s == nil {
			s, msg.err = sc.StartScan(ctx)
			if msg.err != nil {
				msg.took = now().Sub(start)
				return msg
			}
			msg.scan = s
		}
		msg.progress, msg.err = s.Step(ctx)
		if msg.err == nil && msg.progress.Done {
			msg.orphans, msg.err = s.Finish(ctx)
		}
		if msg.err != nil || msg.progress.Done {
			_ = s.Close()
			msg.scan = nil
		}
		msg.took = now().Sub(start)
		return msg
	}
}

// closeScanCmd releases the connection of a scan that was dropped.
func closeScanCmd(s OrphanScan) tea.Cmd {
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		_ = s.Close()
		return nil
	}
}

// startScan starts a scan now unless one runs: 'o', the periodic tick and
// the screen's start come here. A second 'o' while a scan runs does
// nothing.
func (m Model) startScan() (Model, tea.Cmd) {
	if m.rd.Scan == nil || m.scan.running {
		return m, nil
	}
	m.scanGen++
	m.scan.running, m.scan.steps, m.scan.keys = true, 0, 0
	m.scanStepping = true
	return m, scanStepCmd(m.rd.Scan, nil, m.scanGen, m.opts.FetchTimeout, m.opts.Now)
}

// restartScan starts a new scan, dropping the running one (an action just
// changed what it would find). While a step of the old scan is running,
// the new scan starts when that step returns: still one step at a time.
func (m Model) restartScan() (Model, tea.Cmd) {
	if m.rd.Scan == nil {
		return m, nil
	}
	if !m.scan.running {
		return m.startScan()
	}
	m.scanGen++
	m.scan.steps, m.scan.keys = 0, 0
	if m.scanStepping {
		return m, nil // onScanStep starts it
	}
	// Paused between steps: the wake message of the old scan will be
	// dropped and close its connection.
	m.scanStepping = true
	return m, scanStepCmd(m.rd.Scan, nil, m.scanGen, m.opts.FetchTimeout, m.opts.Now)
}

func (m Model) onScanStep(msg scanStepMsg) (Model, tea.Cmd) {
	m.scanStepping = false
	if msg.gen != m.scanGen {
		// A scan that was replaced: drop it, and start the one that
		// replaced it (restartScan waited for this step).
		closeOld := closeScanCmd(msg.scan)
		if !m.scan.running {
			return m, closeOld
		}
		m.scanStepping = true
		return m, tea.Batch(closeOld, scanStepCmd(m.rd.Scan, nil, m.scanGen, m.opts.FetchTimeout, m.opts.Now))
	}
	if msg.err != nil {
		m.scan.running = false
		m.scan.err = msg.err
		return m, m.scanTickCmd()
	}
	m.scan.steps, m.scan.keys = msg.progress.Steps, msg.progress.Keys
	if msg.progress.Done {
		m.scan.running, m.scan.err = false, nil
		m.scan.completed, m.scan.doneAt = true, m.opts.Now()
		m.scan.lastSteps, m.scan.lastKeys = msg.progress.Steps, msg.progress.Keys
		m = m.setOrphans(msg.orphans)
		return m, m.scanTickCmd()
	}
	// Pace: the pause grows with the time the step took.
	gen, s := msg.gen, msg.scan
	return m, m.after(m.opts.ScanPause(msg.took), func(time.Time) tea.Msg { return scanWakeMsg{gen: gen, scan: s} })
}

func (m Model) onScanWake(msg scanWakeMsg) (Model, tea.Cmd) {
	if msg.gen != m.scanGen || !m.scan.running {
		return m, closeScanCmd(msg.scan)
	}
	m.scanStepping = true
	return m, scanStepCmd(m.rd.Scan, msg.scan, msg.gen, m.opts.FetchTimeout, m.opts.Now)
}

// scanTickCmd arms the next periodic scan, ScanInterval after this one
// ended. A scan started before it fires ('o') makes it stale.
func (m Model) scanTickCmd() tea.Cmd {
	gen := m.scanGen
	return m.after(m.opts.ScanInterval, func(time.Time) tea.Msg { return scanTickMsg{gen: gen} })
}

// firstScan is Init's scan, with the generation New left; New marked the
// scan running.
func (m Model) firstScan() tea.Cmd {
	if m.rd.Scan == nil {
		return nil
	}
	return scanStepCmd(m.rd.Scan, nil, m.scanGen, m.opts.FetchTimeout, m.opts.Now)
}
