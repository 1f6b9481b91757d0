package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// View is the whole screen: header, body, footer, exactly the window's
// height, no line wider than the window.
//
// The header and the footer are those relayout rendered at the end of the
// last Update.
func (m Model) View() string {
	header, footer := m.header, m.footer
	if m.lay.tooSmall {
		msg := fmt.Sprintf("terminal too small (%dx%d): workq-tui needs 80x24", m.width, m.height)
		return fitBlock(msg, m.width, max(m.height, 1))
	}
	return header + "\n" + m.renderBody() + "\n" + footer
}

func (m Model) renderBody() string {
	w, h := m.lay.width, m.lay.body
	if m.dialog != nil {
		return fitBlock(renderDialog(*m.dialog, w, h, m.st), w, h)
	}
	if m.snap == nil {
		text := "connecting to " + textsafe.Clean(m.opts.Address) + "…"
		if m.err != nil {
			text = "no data yet: " + oneLine(m.err.Error())
		}
		return fitBlock("\n  "+text, w, h)
	}
	return m.top().render(renderContext{st: m.st, now: m.opts.Now(), fetchedAt: m.fetchedAt, scan: m.scan})
}

// renderHeader is the header: what the screen is connected to, how fresh
// the data is, the counts and the view tabs; plus a line with the error
// while Redis fails.
func (m Model) renderHeader(now time.Time) string {
	follow, following := m.following()
	return renderHeader(headerData{
		target:     m.opts.Target,
		follow:     follow,
		following:  following,
		address:    m.opts.Address,
		namespace:  m.opts.Namespace,
		readOnly:   m.opts.ReadOnly,
		demo:       m.opts.Demo,
		snap:       m.snap,
		counts:     m.counts,
		fetchedAt:  m.fetchedAt,
		err:        m.err,
		inFlight:   m.inFlight,
		retryAt:    m.retryAt,
		tabs:       m.tabs,
		tab:        m.tab,
		crumb:      m.crumb(),
		scan:       m.scan,
		orphans:    len(m.orphanList),
		orphanList: m.orphanList,
		slowEvery:  slowEvery(m.pollEvery, m.opts.Interval),
		sweep:      m.sweep,
		health:     m.health,
	}, now, m.width, m.st)
}

// crumb is the title of the view on top of the focused tab, "" when
// none is pushed or it has none.
func (m Model) crumb() string {
	if !m.opened() {
		return ""
	}
	return m.top().title()
}

// slowEvery is the wait between polls when Redis is slow (longer than the
// interval), 0 otherwise.
func slowEvery(every, interval time.Duration) time.Duration {
	if every > interval {
		return every
	}
	return 0
}

// headerData is what the header shows.
type headerData struct {
	target             string
	address, namespace string
	readOnly, demo     bool
	snap               *model.Snapshot
	counts             snapCounts
	fetchedAt          time.Time
	err                error
	inFlight           bool
	retryAt            time.Time
	tabs               []view
	tab                int
	// crumb is the title of the view pushed on the focused tab, if any.
	crumb   string
	scan    scanStatus
	orphans int
	// orphanList is what the last orphan scan found.
	orphanList []model.InProgressList
	// follow is where Sentinel has the screen read, when following.
	follow    Following
	following bool
	slowEvery time.Duration
	sweep     sweepState
	health    *model.RedisHealth
}

func renderHeader(d headerData, now time.Time, width int, st styles) string {
	var seg []string
	if d.readOnly {
		seg = append(seg, st.badge.Render("[READ-ONLY]"))
	}
	if d.demo {
		seg = append(seg, st.demoBadge.Render("[DEMO]"))
	}
	verdictAt := -1
	if d.snap != nil {
		verdictAt = len(seg)
		seg = append(seg, verdictSegment(d.snap, d.orphanList, false, st))
	}
	// While the polls succeed the connection's state is the dot before
	// the data's age: the verdict, not the connection, is the green word.
	if d.err != nil || d.snap == nil {
		seg = append(seg, connState(d, now, st))
	}
	ageAt := -1
	if d.snap != nil {
		age := "updated " + model.FormatAge(now.Sub(d.fetchedAt)) + " ago"
		ageAt = len(seg)
		if d.err != nil {
			seg = append(seg, st.warn.Render("STALE, "+age))
		} else {
			seg = append(seg, "● "+age)
		}
	}
	if d.slowEvery > 0 {
		seg = append(seg, st.warn.Render("Redis slow: polling every "+model.FormatAge(d.slowEvery)))
	}
	if d.target != "" {
		seg = append(seg, st.bold.Render(oneLine(d.target)))
	}
	addrAt := len(seg)
	if d.following {
		seg = append(seg, nodeSegment(d.follow, st))
	} else {
		seg = append(seg, st.bold.Render(textsafe.Clean(d.address)))
	}
	seg = append(seg, "ns "+textsafe.Clean(d.namespace))
	line1, fits := fitFirstLine(d, slices.Clone(seg), ageAt, addrAt, now, width)
	if !fits && verdictAt >= 0 {
		// Still too long with the address cut: the verdict's kinds go
		// (the counts under it name them), the address comes back.
		seg[verdictAt] = verdictSegment(d.snap, d.orphanList, true, st)
		line1, _ = fitFirstLine(d, seg, ageAt, addrAt, now, width)
	}
	line1 = fitLine(line1, width)

	counts, compact := headerCounts(d, st)
	// A failed sweep counts; the age of a good one is the first to go.
	sweep := sweepText(d.sweep, now, st)
	if d.sweep.enabled && d.sweep.err != nil {
		counts, compact, sweep = append(counts, sweep), append(compact, sweep), ""
	}
	sets := ""
	if d.snap != nil {
		sets = setSizes(d.snap.Sets)
	}
	strips := []string{tabStrip(d.tabs, d.tab, d.crumb, false, st), tabStrip(d.tabs, d.tab, d.crumb, true, st)}
	line2, line3, line4 := countsLines(strings.Join(counts, " · "), strings.Join(compact, " · "), sets, sweep, strips, width)
	lines := []string{line1, fitLine(line2, width)}
	if pl := problemsLine(d.snap, width, st); pl != "" {
		lines = append([]string{pl}, lines...)
	}
	if d.snap != nil && d.snap.Jobs != nil {
		// The failures' shape goes second, under the words that name them.
		if sl := failureSparkline(d.snap.Jobs.Minutes, width, st); sl != "" {
			lines = append(lines[:1], append([]string{sl}, lines[1:]...)...)
		}
	}
	for _, l := range []string{line3, line4} {
		if l != "" {
			lines = append(lines, fitLine(l, width))
		}
	}
	if d.snap != nil {
		if hl := healthLine(d.health, d.snap.RedisTime, width, st); hl != "" {
			lines = append(lines, hl)
		}
	}
	if d.following {
		lines = append(lines, sentinelLine(d.follow, now, width, st))
	}
	if d.sweep.enabled && d.sweep.err != nil && d.err == nil {
		// While the polls fail, their error line says what is wrong.
		lines = append(lines, st.warn.Render(fitLine("sweep error: "+oneLine(d.sweep.err.Error()), width)))
	}
	if d.err != nil {
		// The error may wrap onto a second line: its end ("connection
		// refused") is the part that says what is wrong.
		wrapped := strings.Split(ansi.Wrap("error: "+oneLine(d.err.Error()), width, ""), "\n")
		if len(wrapped) > 2 {
			wrapped = []string{wrapped[0], strings.Join(wrapped[1:], " ")}
		}
		for _, part := range wrapped {
			lines = append(lines, st.statusErr.Render(fitLine(strings.TrimSpace(part), width)))
		}
	}
	return strings.Join(lines, "\n")
}

// fitFirstLine joins the header's first line, seg, to width: Redis's clock
// goes first, then the age's words; then the address is cut: the
// namespace's name stays whole, a typo in it is what the operator must be
// able to see. fits is whether it then fits.
func fitFirstLine(d headerData, seg []string, ageAt, addrAt int, now time.Time, width int) (line1 string, fits bool) {
	line1 = strings.Join(seg, "  ")
	if d.snap != nil {
		line1 += "  redis " + d.snap.RedisTime.UTC().Format("15:04:05Z")
	}
	if lineWidth(line1) > width && ageAt >= 0 && d.err == nil {
		seg[ageAt] = "● " + model.FormatAge(now.Sub(d.fetchedAt)) + " ago"
	}
	if lineWidth(line1) > width {
		line1 = strings.Join(seg, "  ")
	}
	if over := lineWidth(line1) - width; over > 0 && ageAt >= 0 && d.err == nil && lineWidth(seg[addrAt])-over < 8 {
		// Too narrow for the age too: the verdict says enough.
		seg = append(seg[:ageAt:ageAt], seg[ageAt+1:]...)
		addrAt--
		line1 = strings.Join(seg, "  ")
	}
	if over := lineWidth(line1) - width; over > 0 {
		seg[addrAt] = fitCell(seg[addrAt], max(lineWidth(seg[addrAt])-over, 6), false)
		line1 = strings.Join(seg, "  ")
	}
	return line1, lineWidth(line1) <= width
}

// tabStrip names the views, the focused one in brackets with what is open
// on it; short uses the views' short names.
func tabStrip(tabs []view, focused int, crumb string, short bool, st styles) string {
	parts := make([]string, len(tabs))
	for i, v := range tabs {
		t := v.title()
		if short {
			t = shortTitle(t)
		}
		if i == focused {
			if crumb != "" {
				t += " › " + crumb
			}
			parts[i] = st.tabActive.Render("[" + t + "]")
		} else {
			parts[i] = st.tabInactive.Render(" " + t + " ")
		}
	}
	return strings.Join(parts, " ")
}

// shortTitle is a view's name where the full names do not fit.
func shortTitle(t string) string {
	switch t {
	case "Job types":
		return "Types"
	case "Orphans":
		return "Orph"
	case "Workers":
		return "Work"
	}
	return t
}

// sweepText says how old the last full sweep is (the drift shown is its),
// or that the first one runs or that the last failed (the header's line
// under the counts says why).
func sweepText(s sweepState, now time.Time, st styles) string {
	switch {
	case !s.enabled:
		return ""
	case s.err != nil:
		return st.warn.Render("sweep failed")
	case s.at.IsZero():
		return st.faint.Render("sweeping…")
	}
	return st.faint.Render("swept " + model.FormatAge(now.Sub(s.at)) + " ago")
}

// setSizes is the header's job set sizes, the empty sets left out as the
// counts leave out zero late pools: "retry 3 · sched 1 · dead jobs 11,024", or
// "" when all three sets are empty.
func setSizes(c model.SetCounts) string {
	var parts []string
	for _, s := range []struct {
		label string
		n     int64
	}{{"retry", c.Retry}, {"sched", c.Scheduled}, {"dead jobs", c.Dead}} {
		if s.n != 0 {
			parts = append(parts, s.label+" "+groupDigits(s.n))
		}
	}
	return strings.Join(parts, " · ")
}

// groupDigits writes n with a comma between groups of three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

func connState(d headerData, now time.Time, st styles) string {
	switch {
	case d.err == nil && d.snap == nil:
		return st.faint.Render("connecting…")
	case d.err == nil:
		return "● connected"
	case d.inFlight:
		return st.warn.Render("reconnecting…")
	default:
		wait := d.retryAt.Sub(now)
		if wait < 0 {
			wait = 0
		}
		return st.dead.Render("✖ error, retry in " + model.FormatAge(wait.Round(time.Second)))
	}
}

// renderFooter is the status line (or the filter being typed, or the
// progress of a running action) and the help.
func (m Model) renderFooter() string {
	if f, ok := m.cmdFooter(); ok {
		return f
	}
	var status string
	follow, following := m.following()
	notice := failoverNotice(follow, following, m.opts.Now())
	switch {
	case m.filtering:
		status = m.filter.view(m.st)
	case m.running != nil:
		status = renderProgress(*m.running, m.width, m.st)
	case m.status.text != "":
		s := m.st.statusInfo
		if m.status.isErr {
			s = m.st.statusErr
		}
		status = s.Render(oneLine(m.status.text))
	case notice != "":
		status = m.st.warn.Render(notice)
	case m.namespaceNotice() != "":
		status = m.st.warn.Render(m.namespaceNotice())
	case m.currentFilter() != "" && !m.opened():
		status = m.st.faint.Render("filter: " + textsafe.Clean(m.currentFilter()) + "  (esc clears)")
	}
	var helpText string
	switch {
	case m.dialog != nil:
		helpText = m.help.View(dialogKeys{k: m.keys, d: *m.dialog})
	case m.filtering:
		helpText = m.help.View(filterKeys{})
	default:
		helpText = m.shortHelpFit(m.keyMap())
	}
	return fitLine(status, m.width) + "\n" + fitBlock(helpText, m.width, height(helpText))
}

// renderProgress is the running action with a bar of jobs moved.
func renderProgress(r runningAction, width int, st styles) string {
	label := r.title + "…"
	if r.stopping {
		label = "stopping after the call in flight: " + label
	}
	if r.total <= 0 {
		return label
	}
	counts := fmt.Sprintf(" %d/%d jobs", r.moved, r.total)
	if r.stop != nil && !r.stopping {
		counts += "  esc stops"
	}
	barWidth := min(max(width-lineWidth(label)-lineWidth(counts)-3, 10), 50)
	filled := int(int64(barWidth) * min(max(r.moved, 0), r.total) / r.total)
	bar := st.barFull.Render(strings.Repeat("#", filled)) + st.barEmpty.Render(strings.Repeat("-", barWidth-filled))
	return label + " [" + bar + "]" + counts
}

// oneLine cleans text from an error or from Redis into one line.
func oneLine(s string) string {
	return textsafe.Clean(strings.Join(strings.Fields(s), " "))
}

// snapCounts are the header's numbers, counted once per snapshot.
type snapCounts struct {
	pools, dead, late, jobTypes, drift, paused int
}

func countSnapshot(s *model.Snapshot) snapCounts {
	c := snapCounts{pools: len(s.Pools), jobTypes: len(s.JobTypes)}
	for i := range s.Pools {
		switch s.Pools[i].Status {
		case model.StatusDead:
			c.dead++
		case model.StatusLate:
			c.late++
		}
	}
	for i := range s.JobTypes {
		if s.JobTypes[i].Drift {
			c.drift++
		}
		if s.JobTypes[i].Paused {
			c.paused++
		}
	}
	return c
}
