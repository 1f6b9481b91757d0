package tui

import (
	"strings"
	"testing"
)

// TestSavedQueryInTheProgram: :where @<TAB> completes a saved query's name
// and filters by it; / takes @NAME too; an unknown name is one line
// listing the known ones; a quoted regular expression with spaces is one
// term on the screen.
func TestSavedQueryInTheProgram(t *testing.T) {
	saved := func() Options {
		o, _ := setsOptions(deadFixture())
		o.Queries = map[string]string{"images": `job:resize_image err:'too large'`, "mail": "job:send_email"}
		o.QueriesFrom = "/home/u/.config/workq-tui/config.toml"
		return o
	}
	t.Run(":where @ and tab", func(t *testing.T) {
		view := runProgram(t, saved(), 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("jobs dead"), keyMsg("enter"), waitText("i/o timeout"),
			keyMsg(":"), keyMsg("where @im"), keyMsg("tab"), waitText(":where @images"),
			keyMsg("enter"), waitText("too large"))
		if strings.Contains(view, "i/o timeout") || !strings.Contains(view, "resize_image") {
			t.Errorf("@images did not filter the dead set:\n%s", view)
		}
	})
	t.Run("/ with @", func(t *testing.T) {
		view := runProgram(t, saved(), 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("jobs dead"), keyMsg("enter"), waitText("i/o timeout"),
			keyMsg("/"), keyMsg("@mail"), keyMsg("enter"), waitText("job:send_email"))
		if strings.Contains(view, "too large") {
			t.Errorf("@mail did not filter the dead set:\n%s", view)
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		view := runProgram(t, saved(), 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("where @outage"), keyMsg("enter"),
			waitText(`unknown saved query "@outage": the saved ones are @images, @mail`))
		if strings.Contains(view, "y: run it") {
			t.Errorf("an unknown name opened a dialog:\n%s", view)
		}
	})
	t.Run("a quoted regular expression", func(t *testing.T) {
		view := runProgram(t, saved(), 100, 30, waitText("worker-a"),
			keyMsg(":"), keyMsg("jobs dead"), keyMsg("enter"), waitText("i/o timeout"),
			keyMsg(":"), keyMsg(`where err~'(image|video) 0x[0-9a-f]+ too'`), keyMsg("enter"), waitText("1-12 of 12"))
		if strings.Contains(view, "i/o timeout") {
			t.Errorf("the regular expression did not filter:\n%s", view)
		}
	})
}
