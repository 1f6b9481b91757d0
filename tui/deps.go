package tui

// Reads are what the screen reads, one small interface for each view or
// action that reads: a nil field is a read that is not here, and the view
// or key that would use it says so. Poll alone is required.
type Reads struct {
	// Poll is the regular poll behind every view.
	Poll Poller
	// Sweep reads every in-progress list at a pace (the drift).
	Sweep Sweeper
	// Peek reads a pool's in-progress jobs (its detail).
	Peek Peeker
	// Queue reads pages of a queue (the queue view); QueueFilter the jobs
	// of a queue a query matches (/ there).
	Queue       QueueReader
	QueueFilter QueueFilterReader
	// Sets, SetScan and SetFollow read the retry, scheduled and dead sets
	// (the Jobs view: its pages, its summary, a filtered page between
	// polls).
	Sets      JobSetReader
	SetScan   SetScanner
	SetFollow SetPageFollower
	// Scan walks the namespace for orphaned in-progress lists.
	Scan OrphanScanner
	// Follow says where the polls read behind Sentinel.
	Follow Follower
	// Health reads what INFO says of memory, persistence and replication.
	Health HealthReader
	// History reads the journal of the actions run (u).
	History HistoryReader
	// Namespaces searches for the namespaces holding gocraft/work keys
	// when this one holds none.
	Namespaces NamespaceFinder
	// Find finds a job by its id or its arguments.
	Find Finder
	// Explain and Timeline read the explanations and the timeline.
	Explain  Explainer
	Timeline TimelineReader
	// Commands makes the command lines the screen prints to be run.
	Commands CommandLiner
}

// Writes are what the screen writes, one small interface for each kind of
// write: a nil field is a write that is not here (the key says so), and
// all are nil for a screen that cannot write.
type Writes struct {
	Reap     Reaper
	Requeue  Requeuer
	Repair   LockRepairer
	Pause    Pauser
	Throttle Throttler
	// Jobs requeues and deletes jobs of the retry, scheduled and dead
	// sets (the Jobs view).
	Jobs JobsActor
	// Undo undoes an action of the history.
	Undo Undoer
	// Drain deletes or parks the jobs of a queue a query matches (D and P
	// in the queue view).
	Drain QueueDrainer
	// Edit edits a job's args in a set, or queues a copy of it (e and d
	// on a job of the Jobs view).
	Edit JobEditor
}
