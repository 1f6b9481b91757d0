package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// badSets is a dead set whose members hold evil text in every field (name,
// id, err, args keys and values, unique_key; escaped the way encoders
// write it, and raw where JSON allows it), members that are not JSON at
// all, and scores that are not whole seconds.
func badSets() *fakeSets {
	f := newFakeSets()
	rt := fixture().RedisTime.Unix()
	for i, set := range jobSets {
		enc, _ := json.Marshal(map[string]any{
			"name": "job" + evil, "id": "id" + evil, "t": rt - 600, "err": "err" + evil, "fails": 2,
			"failed_at": rt - 60, "unique": true, "unique_key": "uk" + evil,
			"args": map[string]any{"k" + evil: "v" + evil, "nested": []any{evil, map[string]any{evil: 1}}},
		})
		f.add(set, string(enc), fmt.Sprint(rt-int64(i)-1))
		// Raw bidi, C1 and invalid UTF-8 inside JSON strings, which
		// encoding/json accepts as they are.
		f.add(set, "{\"name\":\"n\u202e\u009b\xff\",\"id\":\"i\u2066\u0085\",\"t\":1,\"args\":{\"\u202d\":\"\u061c\xfe\"},\"err\":\"e\u200f\u2028\"}", fmt.Sprint(rt-10))
		f.add(set, "raw"+evil, fmt.Sprint(rt-20))
		f.add(set, evil, fmt.Sprintf("%d.25", rt-30))
		f.add(set, `{"name":`+evil, "+inf")
	}
	return f
}

// TestSetsBadDataReachesNoScreenRaw renders the Jobs view's list, detail
// pane, full detail of every member, the summary, the dialog, the result,
// a typed filter and a failed read, at 80 and 140 columns, with an Ascii
// renderer, and finds no control, escape, bidi or invalid byte raw.
func TestSetsBadDataReachesNoScreenRaw(t *testing.T) {
	for _, width := range []int{80, 140} {
		f := badSets()
		var screens []string
		show := func(name string, m Model) {
			t.Helper()
			v := m.View()
			checkScreen(t, v, width, 30)
			if bad, ok := screenSafe(v, true); !ok {
				t.Errorf("%s at %d columns: %q reached the screen:\n%s", name, width, bad, v)
			}
			screens = append(screens, v)
		}
		m, d := openJobs(t, f, false, width, 30)
		for _, set := range jobSets {
			for m = drive(t, m, keyMsg("s")); jobsView(t, m).set != set; m = drive(t, m, keyMsg("s")) {
			}
			show(string(set)+" list", m)
			v := jobsView(t, m)
			if len(v.page) != 5 {
				t.Fatalf("%s: %d members shown, want 5", set, len(v.page))
			}
			for i := range v.page {
				show(fmt.Sprintf("%s detail pane %d", set, i), m)
				m = drive(t, m, keyMsg("enter"))
				show(fmt.Sprintf("%s full detail %d", set, i), m)
				m = drive(t, m, keyMsg("enter"), keyMsg(" "))
			}
			m = drive(t, m, keyMsg("S"))
			show(string(set)+" summary", m)
			m = drive(t, m, keyMsg("S"))
			m = drive(t, m, keyMsg("D"))
			if !dialogOpen(m) {
				t.Fatalf("%s: no dialog; status %q", set, statusOf(m))
			}
			show(string(set)+" delete dialog", m)
			m = drive(t, m, keyMsg("y"))
			show(string(set)+" delete result", m)
		}
		if len(d.audit.entries) != 3 {
			t.Errorf("%d audit lines", len(d.audit.entries))
		}
		for _, e := range d.audit.entries {
			if bad, ok := screenSafe(strings.Join(e.Targets, " ")+e.Result, false); !ok {
				t.Errorf("audit line holds %q raw: %+v", bad, e)
			}
		}
		msgs := keys("/")
		msgs = append(msgs, keyMsg("\x1b[31m\u202e"), keyMsg("enter"))
		m = drive(t, m, msgs...)
		show("filter typed", m)
		f.mu.Lock()
		f.pageErr = errors.New("read failed" + evil) // an error that quotes bad data
		f.mu.Unlock()
		m = drive(t, m, keyMsg("r"))
		if !strings.Contains(wideView(m), "read failed") {
			t.Fatalf("the failed read is not on screen:\n%s", wideView(m))
		}
		show("failed read", m)

		all := strings.Join(screens, "\n")
		for _, want := range []string{`\x1b[31m`, `\u202e`, `\u009b`, `\xff`, `\u2066`} {
			if !strings.Contains(all, want) {
				t.Errorf("no screen shows %s escaped: the bad data never reached a screen", want)
			}
		}
	}
}
