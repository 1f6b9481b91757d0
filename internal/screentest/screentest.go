// Package screentest drives the program's screen in-process, as an
// operator would: keys in, screen text out. The screen is the one the
// program opens (cli.ScreenOptions: the program's own reader and actor,
// audit log, keys and columns) on a real Redis, run by bubbletea's own
// event loop at a fixed size, with the screen's clock in the test's hands.
// Tests read only what is drawn: the whole screen, the status line, a
// dialog's title and footer.
package screentest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/cli"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/tui"
)

// Width and Height are the size of the terminal the screen draws in.
const (
	Width  = 80
	Height = 24
)

// Timeout bounds every wait: a screen that has not shown what a test
// waits for by then fails the test with what it shows. It is a bound on
// a wait, never a measure.
const Timeout = 15 * time.Second

// Screen is a running screen.
type Screen struct {
	t     testing.TB
	p     *tea.Program
	clock *Clock
	// Audit is the audit log the screen's actions are recorded in; State
	// the directory of the user's state (command line history, journals).
	Audit string
	State string

	mu      sync.Mutex
	view    string
	changed chan struct{} // closed and replaced at every update
	ended   bool
	final   tea.Model    // the model the screen ended with
	clip    bytes.Buffer // what the screen wrote to the terminal: OSC 52
	// statuses are the last status lines drawn, oldest first, for the
	// message of a wait that failed.
	statuses []string
}

// Start opens the screen of the Redis srv with the program's flags args
// after --redis (for example "-n", "app" or "--read-only"), at
// Width x Height, and waits for its first data. The screen polls every
// 250 ms (--interval's least); an --interval in args wins. It stops when
// the test ends.
func Start(t testing.TB, srv *redistest.Server, args ...string) *Screen {
	t.Helper()
	return StartWith(t, srv, nil, args...)
}

// StartWith is Start with environment variables of the program's besides
// its own (VISUAL, say, for an editor the test provides; XDG_STATE_HOME, a
// State of an earlier screen, for the state a run leaves to the next).
func StartWith(t testing.TB, srv *redistest.Server, extra map[string]string, args ...string) *Screen {
	t.Helper()
	s, env := newScreen(t, extra)
	flags := append([]string{"--redis", srv.Addr(), "--audit-log", s.Audit, "--interval", "250ms"}, args...)
	opts, done, err := cli.ScreenOptions(context.Background(), flags, func(k string) string { return env[k] }, (*clipboard)(s))
	if err != nil {
		t.Fatalf("screen options %q: %v", flags, err)
	}
	opts.Now = s.clock.Now
	s.run(tui.New(opts), done)
	return s
}

// StartFleet opens the fleet screen of the program's flags args, which
// name several targets (--all-targets with a Config, --target repeated),
// as Start does the screen of one, and waits for its first frame.
func StartFleet(t testing.TB, args ...string) *Screen {
	t.Helper()
	s, env := newScreen(t, nil)
	flags := append([]string{"--audit-log", s.Audit, "--interval", "250ms"}, args...)
	opts, done, err := cli.FleetOptions(context.Background(), flags, func(k string) string { return env[k] }, (*clipboard)(s))
	if err != nil {
		t.Fatalf("fleet options %q: %v", flags, err)
	}
	opts.Now = s.clock.Now
	s.run(tui.NewFleet(opts), done)
	return s
}

// newScreen is a screen not yet running, with its own home, state and
// configuration directories, and the environment the program sees.
func newScreen(t testing.TB, extra map[string]string) (*Screen, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	s := &Screen{t: t, clock: &Clock{}, changed: make(chan struct{}),
		Audit: filepath.Join(dir, "audit.log"), State: filepath.Join(dir, "state")}
	env := map[string]string{
		"HOME":            dir,
		"XDG_STATE_HOME":  s.State,
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"NO_COLOR":        "1",
		"USER":            "tester",
	}
	for k, v := range extra {
		env[k] = v
	}
	s.State = env["XDG_STATE_HOME"]
	return s, env
}

// run runs root at Width x Height until the test ends, then done, and
// waits for its first data.
func (s *Screen) run(root tea.Model, done func()) {
	t := s.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// The input is a pipe nothing is written to: keys come by Send. nil
	// would do until the screen runs the operator's editor, when bubbletea
	// reads its input again; and an os pipe, not an io one, so that the
	// editor gets it as its stdin without a copy that never ends.
	in, inW, err := os.Pipe()
	if err != nil {
		t.Fatalf("the screen's input: %v", err)
	}
	s.p = tea.NewProgram(probe{inner: root, s: s}, tea.WithInput(in), tea.WithOutput(io.Discard),
		tea.WithoutRenderer(), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		final, _ := s.p.Run()
		s.mu.Lock()
		if pr, ok := final.(probe); ok {
			s.final = pr.inner
		}
		s.ended = true
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}()
	t.Cleanup(func() {
		defer func() { _ = in.Close() }() // a pipe: nothing to lose
		defer func() { _ = inW.Close() }()
		s.p.Quit()
		select {
		case <-ran:
		case <-time.After(Timeout):
			cancel()
			<-ran
		}
		cancel()
		done()
	})
	s.p.Send(tea.WindowSizeMsg{Width: Width, Height: Height})
	s.WaitFor("the first poll", func(screen string) bool {
		return screen != "" && !strings.Contains(screen, "connecting to")
	})
}

// probe runs the screen's model and keeps the text of every frame: View
// runs after every update, as bubbletea draws.
type probe struct {
	inner tea.Model
	s     *Screen
}

func (p probe) Init() tea.Cmd {
	cmd := p.inner.Init()
	p.s.publish(p.inner.View())
	return cmd
}

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := p.inner.Update(msg)
	p.inner = m
	p.s.publish(m.View())
	return p, cmd
}

func (p probe) View() string { return p.inner.View() }

func (s *Screen) publish(view string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.view = view
	if lines := strings.Split(view, "\n"); len(lines) >= 2 {
		if st := strings.TrimSpace(lines[len(lines)-2]); st != "" && (len(s.statuses) == 0 || s.statuses[len(s.statuses)-1] != st) {
			s.statuses = append(s.statuses, st)
			if len(s.statuses) > 30 {
				s.statuses = s.statuses[1:]
			}
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// Text is the whole screen as drawn now.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// Lines are the screen's lines, trailing blanks cut.
func (s *Screen) Lines() []string {
	lines := strings.Split(s.Text(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// Clock is the screen's clock (status timers, data age): now, moved on by
// Advance.
func (s *Screen) Clock() *Clock { return s.clock }

// WaitFor waits until the screen satisfies cond and returns that screen;
// after Timeout it fails the test with what was awaited and the screen.
func (s *Screen) WaitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		view, changed, ended := s.view, s.changed, s.ended
		seen := strings.Join(s.statuses, "\n  ")
		s.mu.Unlock()
		if cond(view) {
			return view
		}
		if ended {
			s.t.Fatalf("the screen ended before it showed %s; it shows:\n%s", what, view)
		}
		select {
		case <-changed:
		case <-deadline.C:
			s.t.Fatalf("the screen did not show %s within %s; it shows:\n%s\nthe last status lines drawn:\n  %s", what, Timeout, view, seen)
		}
	}
}

// Wait waits until the screen shows every text, and returns it.
func (s *Screen) Wait(texts ...string) string {
	s.t.Helper()
	return s.WaitFor(fmt.Sprintf("%q", texts), func(screen string) bool {
		for _, text := range texts {
			if !strings.Contains(screen, text) {
				return false
			}
		}
		return true
	})
}

// WaitGone waits until the screen shows none of texts, and returns it.
func (s *Screen) WaitGone(texts ...string) string {
	s.t.Helper()
	return s.WaitFor(fmt.Sprintf("no %q", texts), func(screen string) bool {
		for _, text := range texts {
			if strings.Contains(screen, text) {
				return false
			}
		}
		return true
	})
}

// Ended reports whether the screen has ended (q).
func (s *Screen) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// WaitEnded waits until the screen has ended and returns the model it
// ended with, as the program gets it back (a tui.Model).
func (s *Screen) WaitEnded() tea.Model {
	s.t.Helper()
	s.WaitFor("its end", func(string) bool { return s.Ended() })
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.final
}

// Press sends keys, in order, as the terminal would: a key's name
// ("enter", "esc", "tab", "shift+tab", "up", "down", "pgdown", "ctrl+x",
// "space") or text, typed one character at a time (":where x" is ':'
// then the line; the enter that runs it is a key of its own).
func (s *Screen) Press(keys ...string) {
	for _, k := range keys {
		if msg, ok := named[k]; ok {
			s.p.Send(msg)
			continue
		}
		for _, r := range k {
			s.p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
}

// Run types a command line and runs it: ':' line enter.
func (s *Screen) Run(line string) {
	s.Press(":"+line, "enter")
}

// Confirm answers the dialog on screen with y, as an operator who has
// read it: once its footer offers "y: run it", which it does only after
// the dialog has been on screen for tui.DialogReadTime.
func (s *Screen) Confirm() {
	s.t.Helper()
	s.ConfirmWith("y", "y: run it")
}

// ConfirmWith presses key once the dialog's footer shows offer.
func (s *Screen) ConfirmWith(key, offer string) {
	s.t.Helper()
	s.WaitFor(fmt.Sprintf("a dialog offering %q", offer), func(string) bool {
		return strings.Contains(s.DialogFooter(), offer)
	})
	s.Press(key)
}

// Resize tells the screen the terminal's new size.
func (s *Screen) Resize(w, h int) { s.p.Send(tea.WindowSizeMsg{Width: w, Height: h}) }

// Clipboard is what the screen wrote to the terminal for the clipboard:
// the text of every OSC 52 sequence, decoded, in order.
func (s *Screen) Clipboard() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return decodeOSC52(s.clip.String())
}

// clipboard is the screen's terminal as its clipboard writes see it.
type clipboard Screen

func (c *clipboard) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clip.Write(b)
}

var named = map[string]tea.KeyMsg{
	"enter":     {Type: tea.KeyEnter},
	"esc":       {Type: tea.KeyEsc},
	"tab":       {Type: tea.KeyTab},
	"shift+tab": {Type: tea.KeyShiftTab},
	"up":        {Type: tea.KeyUp},
	"down":      {Type: tea.KeyDown},
	"left":      {Type: tea.KeyLeft},
	"right":     {Type: tea.KeyRight},
	"pgdown":    {Type: tea.KeyPgDown},
	"pgup":      {Type: tea.KeyPgUp},
	"home":      {Type: tea.KeyHome},
	"end":       {Type: tea.KeyEnd},
	"backspace": {Type: tea.KeyBackspace},
	"space":     {Type: tea.KeySpace, Runes: []rune{' '}},
	"ctrl+a":    {Type: tea.KeyCtrlA},
	"ctrl+u":    {Type: tea.KeyCtrlU},
	"ctrl+x":    {Type: tea.KeyCtrlX},
	"ctrl+c":    {Type: tea.KeyCtrlC},
	"ctrl+d":    {Type: tea.KeyCtrlD},
	"ctrl+r":    {Type: tea.KeyCtrlR},
}

// Clock is a clock the test moves: now, plus what Advance added.
type Clock struct {
	mu  sync.Mutex
	off time.Duration
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// Config writes a configuration file holding toml for the screen and
// returns the flags that name it (--config FILE), for Start's args.
func Config(t testing.TB, toml string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--config", path}
}
