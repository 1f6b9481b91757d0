package cli

import (
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// The screen's two dependencies: what it reads and what it writes. The
// screen offers what these offer (see tui.Reader and tui.Actor); the
// program's offer everything, and the assertions below keep it so.

// screenReader is every read of the screen of one target.
type screenReader struct {
	tui.Poller
	tui.Sweeper
	tui.Peeker
	tui.QueueReader
	tui.QueueFilterReader
	tui.JobSetReader
	tui.SetPageFollower
	tui.SetScanner
	tui.OrphanScanner
	tui.HistoryReader
	tui.HealthReader
	tui.NamespaceFinder
	tui.Explainer
	tui.TimelineReader
	tui.Finder
	tui.CommandLiner
}

// followedReader is a screen's reader behind Sentinel: its polls check the
// deployment first, and it says where they read.
type followedReader struct {
	screenReader
	tui.Follower
}

// screenActor is every write of the screen of one target.
type screenActor struct {
	tui.Reaper
	tui.Requeuer
	tui.LockRepairer
	tui.Pauser
	tui.Throttler
	tui.JobsActor
	tui.Undoer
	tui.QueueDrainer
	tui.JobEditor
}

// fullReader and fullActor are what the program's reader and actor offer.
type fullReader interface {
	tui.Reader
	tui.Sweeper
	tui.Peeker
	tui.QueueReader
	tui.QueueFilterReader
	tui.JobSetReader
	tui.SetPageFollower
	tui.SetScanner
	tui.OrphanScanner
	tui.HistoryReader
	tui.HealthReader
	tui.NamespaceFinder
	tui.Explainer
	tui.TimelineReader
	tui.Finder
	tui.CommandLiner
}

type fullActor interface {
	tui.Actor
	tui.Requeuer
	tui.LockRepairer
	tui.Pauser
	tui.Throttler
	tui.JobsActor
	tui.Undoer
	tui.QueueDrainer
	tui.JobEditor
}

var (
	_ fullReader   = screenReader{}
	_ fullReader   = followedReader{}
	_ tui.Follower = followedReader{}
	_ fullActor    = screenActor{}
)

// screenReaderOf is the reader of target t. Regular polls read in-progress
// lists only where jobs can be, of the heartbeats they know heartbeat_at
// alone, and the workers' observations only while the Workers view is
// shown; the sweeps read every list, and the scans and the timeline run
// each on a connection of their own; the history is read from h;
// explanations mark jobs running over longAfter as explain's --long-after.
func screenReaderOf(client *redisq.Client, d *redisq.Dialer, t *target, h screenHistory, longAfter time.Duration) tui.Reader {
	r := screenReader{
		Poller:       throttleMarking(redisq.NewPoller(client), h),
		Sweeper:      client,
		HealthReader: client,
		Peeker:       redisq.RawPeeker{Client: client},
		QueueReader:  client,
		// A queue filtered by a query ('/' in the queue view).
		QueueFilterReader: client,
		JobSetReader:      client,
		SetScanner:        ScreenSetScanner(d.Dial, t.namespace),
		OrphanScanner:     ScreenScanner(d.Dial, t.namespace, redisq.DefaultScanCount),
		HistoryReader:     h,
		// The search for other namespaces, when this one is empty.
		NamespaceFinder: client,
		Finder:          ScreenFinder(d.Dial, t.namespace),
	}
	// A page of the Jobs view filtered by a query follows the polls
	// without a walk of the set.
	r.SetPageFollower = client
	// The explanations and the timeline read as explain and timeline do.
	r.Explainer = screenExplainer{client: client, prefix: screenFixPrefix(t), longAfter: longAfter}
	r.CommandLiner = screenCommands{prefix: commandWords(t)}
	r.TimelineReader = screenTimeline{dial: d.Dial, namespace: t.namespace, deadAfter: client.DeadAfter()}
	if f := t.sentinel.follower(r.Poller); f != nil {
		r.Poller = f
		return followedReader{screenReader: r, Follower: f}
	}
	return r
}

// screenActorOf is the actor of target t: r reaps, requeues and repairs
// the locks; every write is journalled in j (see screen_journal.go and
// screen_repairs.go; none when j is nil), and the undos of what h lists
// too (refused without j).
func screenActorOf(r *reaper.Reaper, pool *redis.Pool, t *target, batch int, j *screenJournal, h screenHistory) tui.Actor {
	a := screenActor{
		Reaper:       r,
		Requeuer:     r,
		LockRepairer: r,
		Pauser:       screenPauser(pool, j),
		Throttler:    screenThrottler{pool: pool, j: j},
		JobsActor:    screenJobsJournalled(pool, t.namespace, batch, j),
		Undoer:       screenUndoer{h: h, pool: pool, batch: batch, j: j},
		QueueDrainer: screenDrainer{pool: pool, keys: redisq.NewKeys(t.namespace), batch: batch, j: j},
		JobEditor:    screenEditor{pool: pool, keys: redisq.NewKeys(t.namespace), j: j},
	}
	if j != nil {
		rj := journalledRepairs{r: r, pool: pool, j: j}
		a.Reaper, a.Requeuer, a.LockRepairer = rj, rj, rj
	}
	return a
}
