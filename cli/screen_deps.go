package cli

import (
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// The screen's two dependencies, what it reads and what it writes, as the
// plain structs tui.Reads and tui.Writes: the program fills every field
// (a test of the screen fills only what it needs).

// screenReadsOf is what the screen of target t reads. Regular polls read
// in-progress lists only where jobs can be, of the heartbeats they know
// heartbeat_at alone, and the workers' observations only while the Workers view is
// shown; the sweeps read every list, and the scans and the timeline run
// each on a connection of their own; the history is read from h;
// explanations mark jobs running over longAfter as explain's --long-after.
func screenReadsOf(client *redisq.Client, d *redisq.Dialer, t *target, h screenHistory, longAfter time.Duration) tui.Reads {
	r := tui.Reads{
		Poll:   throttleMarking(redisq.NewPoller(client), h),
		Sweep:  client,
		Health: client,
		Peek:   redisq.RawPeeker{Client: client},
		Queue:  client,
		// A queue filtered by a query ('/' in the queue view).
		QueueFilter: client,
		Sets:        client,
		SetScan:     ScreenSetScanner(d.Dial, t.namespace),
		// A page of the Jobs view filtered by a query follows the polls
		// without a walk of the set.
		SetFollow: client,
		Scan:      ScreenScanner(d.Dial, t.namespace, redisq.DefaultScanCount),
		History:   h,
		// The search for other namespaces, when this one is empty.
		Namespaces: client,
		Find:       ScreenFinder(d.Dial, t.namespace),
		// The explanations and the timeline read as explain and timeline do.
		Explain:  screenExplainer{client: client, prefix: screenFixPrefix(t), longAfter: longAfter},
		Commands: screenCommands{prefix: commandWords(t)},
		Timeline: screenTimeline{dial: d.Dial, namespace: t.namespace, deadAfter: client.DeadAfter()},
	}
	if f := t.sentinel.follower(r.Poll); f != nil {
		r.Poll, r.Follow = f, f
	}
	return r
}

// screenWritesOf is what the screen of target t writes: r reaps, requeues
// and repairs the locks; every write is journalled in j (see screen_journal.go and
// screen_repairs.go; none when j is nil), and the undos of what h lists
// too (refused without j); getenv finds the operator's editor.
func screenWritesOf(r *reaper.Reaper, pool *redis.Pool, t *target, batch int, j *screenJournal, h screenHistory, getenv func(string) string) tui.Writes {
	a := tui.Writes{
		Reap:     r,
		Requeue:  r,
		Repair:   r,
		Pause:    screenPauser(pool, j),
		Throttle: screenThrottler{pool: pool, j: j},
		Jobs:     screenJobsJournalled(pool, t.namespace, batch, j),
		Undo:     screenUndoer{h: h, pool: pool, batch: batch, j: j},
		Edit:     screenEditor{pool: pool, keys: redisq.NewKeys(t.namespace), j: j, getenv: getenv},
		Drain:    screenDrainer{pool: pool, keys: redisq.NewKeys(t.namespace), batch: batch, j: j},
	}
	if j != nil {
		rj := journalledRepairs{r: r, pool: pool, j: j}
		a.Reap, a.Requeue, a.Repair = rj, rj, rj
	}
	return a
}
