package tui

import (
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// checkinAge is how long before at (the Redis time the workers were read
// at) the worker's last check-in came; ok is false without a checkin_at.
func checkinAge(w *model.Worker, at time.Time) (time.Duration, bool) {
	if !w.HasCheckin || w.CheckinAt <= 0 || at.IsZero() {
		return 0, false
	}
	return max(at.Sub(time.Unix(w.CheckinAt, 0)), 0), true
}

// checkinCell is the Workers view's check-in: its text, then its age
// ("40% done (3m00s ago)"; the text first, as a narrow column keeps it),
// or "-" when the job never checked in.
func checkinCell(w *model.Worker, at time.Time) string {
	if !w.HasCheckin {
		return "-"
	}
	text := textsafe.Clean(w.Checkin)
	if age, ok := checkinAge(w, at); ok {
		return text + " (" + model.FormatAge(age) + " ago)"
	}
	return text
}

// staleCheckin reports whether the last check-in is older than longAfter:
// the handler has said nothing for as long as a job may run.
func staleCheckin(w *model.Worker, at time.Time, longAfter time.Duration) bool {
	age, ok := checkinAge(w, at)
	return ok && longAfter > 0 && age > longAfter
}
