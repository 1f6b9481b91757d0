package tui

import "github.com/workq-tui/workq-tui/redisq"

// reads are what the screen's Reader offers, found once by New: a nil
// field is a read the reader does not offer, and the view that would show
// it says so. names are the namespace's key names.
type reads struct {
	poll  Poller
	sweep Sweeper
	peek  Peeker
	queue QueueReader
	// queueFilter reads the jobs of a queue a query matches.
	queueFilter QueueFilterReader
	sets        JobSetReader
	setScan     SetScanner
	scan        OrphanScanner
	follow      Follower
	health      HealthReader
	history     HistoryReader
	// namespaces searches for the namespaces holding gocraft/work keys
	// (namespace.go).
	namespaces NamespaceFinder
	names      redisq.Keys
	find       Finder

	// explain and timeline are the explanations and the timeline.
	explain  Explainer
	timeline TimelineReader

	// setFollow follows a filtered page of the Jobs view (sets_reread.go).
	setFollow SetPageFollower
	// commands makes the command lines the screen prints to be run.
	commands CommandLiner
}

// offered finds what r offers.
func offered(r Reader, namespace string) reads {
	rd := reads{poll: r, names: redisq.NewKeys(namespace)}
	rd.sweep, _ = r.(Sweeper)
	rd.peek, _ = r.(Peeker)
	rd.queue, _ = r.(QueueReader)
	rd.queueFilter, _ = r.(QueueFilterReader)
	rd.sets, _ = r.(JobSetReader)
	rd.setScan, _ = r.(SetScanner)
	rd.scan, _ = r.(OrphanScanner)
	rd.follow, _ = r.(Follower)
	rd.health, _ = r.(HealthReader)
	rd.history, _ = r.(HistoryReader)
	rd.namespaces, _ = r.(NamespaceFinder)
	rd.explain, _ = r.(Explainer)
	rd.timeline, _ = r.(TimelineReader)
	rd.find, _ = r.(Finder)
	rd.setFollow, _ = r.(SetPageFollower)
	rd.commands, _ = r.(CommandLiner)
	return rd
}

// writes are what the screen's Actor offers, found once by New; all nil
// without an actor.
type writes struct {
	reap     Reaper
	requeue  Requeuer
	repair   LockRepairer
	pause    Pauser
	throttle Throttler
	jobs     JobsActor
	undo     Undoer
	// drain deletes and parks the jobs of a queue a query matches.
	drain QueueDrainer
	edit  JobEditor
}

// offeredWrites finds what a offers.
func offeredWrites(a Actor) writes {
	if a == nil {
		return writes{}
	}
	w := writes{reap: a}
	w.requeue, _ = a.(Requeuer)
	w.repair, _ = a.(LockRepairer)
	w.pause, _ = a.(Pauser)
	w.throttle, _ = a.(Throttler)
	w.jobs, _ = a.(JobsActor)
	w.undo, _ = a.(Undoer)
	w.drain, _ = a.(QueueDrainer)
	w.edit, _ = a.(JobEditor)
	return w
}
