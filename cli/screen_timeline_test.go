package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// pastedCommand is the command line the screen shows from the line
// holding start: that line and those after it up to the one that closes
// its quotes and ends without a backslash, as a person would select and
// paste them.
func pastedCommand(t *testing.T, screen, start string) string {
	t.Helper()
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if !strings.Contains(l, start) {
			continue
		}
		var out []string
		for _, l := range lines[i:] {
			l = strings.TrimRight(l, " ")
			out = append(out, strings.TrimLeft(l, " │"))
			text := strings.Join(out, "\n")
			if strings.Count(text, "'")%2 == 0 && !strings.HasSuffix(l, `\`) {
				return text
			}
		}
		t.Fatalf("the command from %q does not end on the screen:\n%s", start, screen)
	}
	t.Fatalf("the screen shows no line with %q:\n%s", start, screen)
	return ""
}

// runPasted runs a command line the program printed in sh, with the
// program on the PATH as workq-tui, and returns its output and status.
func runPasted(t *testing.T, line string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(redistest.Binary(t), filepath.Join(dir, "workq-tui")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(redistest.Env(), "PATH="+dir+":"+os.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return string(out), code
}

// T opens the Timeline view fitted to a 10-minute-old incident, on its
// bucket; the command that lists the bucket's jobs names the Redis and
// the namespace on screen, fits the terminal without a cut, and, pasted
// into a shell, lists the bucket's deaths.
func TestScreenTimelineCommandPastes(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := redistest.Start(t)
			c := srv.Dial()
			now := redistest.Time(t, c).Unix()
			redistest.Do(t, c, "SADD", "shop:known_jobs", "charge")
			for i := range 3 {
				at := now - 600
				redistest.Do(t, c, "ZADD", "shop:dead", at, fmt.Sprintf(`{"name":"charge","id":"dead%d","t":%d,"args":{},"fails":25,"err":"card declined","failed_at":%d}`, i, at-100, at))
			}
			s := redistest.StartTmux(t, size[0], size[1], []string{"NO_COLOR=1"}, redistest.Binary(t),
				"--redis", srv.Addr(), "-n", "shop", "--read-only", "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
			s.WaitText(15*time.Second, "dead jobs 3")
			s.Keys("T")
			// The window is fitted to the incident, the cursor on its
			// bucket, labelled with seconds.
			screen := s.WaitText(10*time.Second, "(fitted", "UTC: 3 dead")
			if !regexp.MustCompile(`\d\d:\d\d:\d\d–\d\d:\d\d:\d\d UTC: 3 dead`).MatchString(screen) {
				t.Errorf("the incident's bucket is not labelled with seconds:\n%s", screen)
			}
			line := pastedCommand(t, screen, "workq-tui --redis")
			if strings.Contains(line, "…") {
				t.Errorf("the command is cut:\n%s", line)
			}
			if !strings.Contains(line, srv.Addr()) || !strings.Contains(line, "shop") {
				t.Errorf("the command lacks the Redis %s or the namespace shop:\n%s", srv.Addr(), line)
			}
			out, code := runPasted(t, line)
			if code != 0 || !strings.Contains(out, "dead0") || !strings.Contains(out, "dead2") {
				t.Errorf("pasted, the command exits %d and prints:\n%s\nthe screen:\n%s", code, out, screen)
			}
			s.Keys("q")
			s.WaitText(5*time.Second, "EXITED 0")
		})
	}
}
