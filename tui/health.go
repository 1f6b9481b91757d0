package tui

// This file owns what the screen says of the Redis under it: whether it
// is set up to lose jobs (an eviction policy, memory near its limit,
// changes not on disk, a replica behind) and how big the dead set has
// grown. It reads INFO with every sweep (and at start) when Reads.Health
// is set, and the header warns in a line of its own; these are
// warnings, not problems: the verdict does not count them, as snapshot's
// exit status does not (without --strict).

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
)

// HealthReader reads what INFO memory, persistence and replication say,
// and the dead set's size and age.
type HealthReader interface {
	Health(ctx context.Context) (*model.RedisHealth, error)
}

// healthMsg is one read of the health; a failed read keeps the last one.
type healthMsg struct {
	health *model.RedisHealth
	err    error
}

// healthCmd reads the health, nil without a reader.
func healthCmd(r HealthReader, timeout time.Duration) tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		h, err := r.Health(ctx)
		return healthMsg{health: h, err: err}
	}
}

func (m Model) onHealth(msg healthMsg) Model {
	if msg.err == nil && msg.health != nil {
		m.health = msg.health
	}
	return m
}

// healthLine is the header's warning about the Redis, "" when it has
// none: each finding in a few words, the worst first.
func healthLine(h *model.RedisHealth, now time.Time, width int, st styles) string {
	findings := model.HealthFindings(h, "redis", now)
	if len(findings) == 0 {
		return ""
	}
	parts := make([]string, 0, len(findings))
	for _, f := range findings {
		parts = append(parts, healthWords(f, h))
	}
	line := "⚠ Redis may lose jobs: " + strings.Join(parts, " · ")
	if more := line + "  (snapshot says more)"; lineWidth(more) <= width {
		line = more
	}
	return st.warn.Render(fitLine(line, width))
}

// healthWords is a health finding in the few words the header has room
// for; snapshot and explain give the whole of it.
func healthWords(f model.Finding, h *model.RedisHealth) string {
	switch f.Kind {
	case model.FindingEvictionPolicy:
		return oneLine(h.MaxmemoryPolicy) + " evicts jobs"
	case model.FindingMemory:
		return fmt.Sprintf("memory at %.0f%% of maxmemory", 100*float64(h.UsedMemory)/float64(h.Maxmemory))
	case model.FindingNotPersisted:
		return "changes not on disk"
	case model.FindingDeadSet:
		return fmt.Sprintf("dead set %d jobs, never trimmed", h.DeadSize)
	case model.FindingHealthUnread:
		return "INFO not readable with this user"
	}
	return oneLine(f.Detail)
}
