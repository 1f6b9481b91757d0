package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// theme is the screen's semantic colours. Every style is built from it in
// newStyles, so there is one place to change a colour.
type theme struct {
	ok, warn, dead, faint, accent, text lipgloss.TerminalColor
}

func defaultTheme() theme {
	return theme{
		ok:     lipgloss.AdaptiveColor{Light: "#1a7f37", Dark: "#3fb950"},
		warn:   lipgloss.AdaptiveColor{Light: "#9a6700", Dark: "#d29922"},
		dead:   lipgloss.AdaptiveColor{Light: "#cf222e", Dark: "#f85149"},
		faint:  lipgloss.AdaptiveColor{Light: "#6e7781", Dark: "#8b949e"},
		accent: lipgloss.AdaptiveColor{Light: "#0969da", Dark: "#58a6ff"},
		text:   lipgloss.AdaptiveColor{Light: "#1f2328", Dark: "#e6edf3"},
	}
}

// styles are every style the screen uses, from one renderer: a test passes
// a renderer with the Ascii profile and gets plain text. Nothing here may
// carry meaning by colour alone: every coloured thing also has a text
// marker (DEAD, LATE, ok, DRIFT, the '>' cursor).
type styles struct {
	ok, warn, dead, faint, accent lipgloss.Style
	bold                          lipgloss.Style
	selected                      lipgloss.Style
	// cursor is the selected row's '>' marker: only the marker is
	// painted, so the row keeps its status colours (DEAD red, DRIFT).
	cursor                 lipgloss.Style
	colHeader              lipgloss.Style
	badge, demoBadge       lipgloss.Style
	tabActive, tabInactive lipgloss.Style
	statusInfo, statusErr  lipgloss.Style
	dialog                 lipgloss.Style
	dialogTitle            lipgloss.Style
	barFull, barEmpty      lipgloss.Style
	help                   help.Styles
}

func newStyles(r *lipgloss.Renderer, t theme) styles {
	s := styles{
		ok:          r.NewStyle().Foreground(t.ok),
		warn:        r.NewStyle().Foreground(t.warn),
		dead:        r.NewStyle().Foreground(t.dead).Bold(true),
		faint:       r.NewStyle().Foreground(t.faint),
		accent:      r.NewStyle().Foreground(t.accent),
		bold:        r.NewStyle().Bold(true),
		selected:    r.NewStyle().Reverse(true),
		cursor:      r.NewStyle().Foreground(t.accent).Bold(true).Reverse(true),
		colHeader:   r.NewStyle().Foreground(t.faint).Bold(true),
		badge:       r.NewStyle().Foreground(t.warn).Bold(true),
		demoBadge:   r.NewStyle().Foreground(t.accent).Bold(true),
		tabActive:   r.NewStyle().Foreground(t.accent).Bold(true).Underline(true),
		tabInactive: r.NewStyle().Foreground(t.faint),
		statusInfo:  r.NewStyle().Foreground(t.ok),
		statusErr:   r.NewStyle().Foreground(t.dead).Bold(true),
		dialog:      r.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(t.warn).Padding(0, 1),
		dialogTitle: r.NewStyle().Bold(true).Foreground(t.warn),
		barFull:     r.NewStyle().Foreground(t.accent),
		barEmpty:    r.NewStyle().Foreground(t.faint),
	}
	key := r.NewStyle().Foreground(t.text).Bold(true)
	desc := r.NewStyle().Foreground(t.faint)
	sep := r.NewStyle().Foreground(t.faint)
	s.help = help.Styles{
		Ellipsis: sep, ShortKey: key, ShortDesc: desc, ShortSeparator: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep,
	}
	return s
}

// selectRow is row under the cursor: the marker painted, the row's own
// colours kept.
func (s styles) selectRow(row string) string { return s.cursor.Render(">") + " " + row }
