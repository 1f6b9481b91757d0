package journal

import "time"

// Header is the first record of an action's file: which action, by whom,
// on which Redis and namespace.
type Header struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	User string    `json:"user,omitempty"`
	// Address is the Redis address as the audit log names it; Target the
	// configuration target it came from ("" without one).
	Address   string `json:"address"`
	Target    string `json:"target,omitempty"`
	Namespace string `json:"namespace"`
	// Op is what the action does (one of the Op constants); Command the
	// words of the command as the audit log names it.
	Op      string   `json:"op"`
	Command string   `json:"command"`
	Targets []string `json:"targets,omitempty"`
	// UndoOf is the ID of the action an undo puts back.
	UndoOf string `json:"undo_of,omitempty"`
}

// The operations an action's calls do.
const (
	OpRequeue     = "requeue"      // set members onto their queues
	OpDelete      = "delete"       // set members deleted
	OpQueueDelete = "queue-delete" // jobs deleted from a queue
	// OpQueueDrain and OpQueuePark take the jobs a query matched out of a
	// queue: deleted, or parked in the dead set.
	OpQueueDrain  = "queue-delete-where"
	OpQueuePark   = "queue-park"
	OpPause       = "pause"
	OpUnpause     = "unpause"
	OpThrottle    = "throttle"        // a job type's max_concurrency set
	OpReap        = "reap"            // dead pools' jobs back to their queues
	OpOrphans     = "requeue-orphans" // in-progress lists of gone pools (command requeue)
	OpRepairLocks = "repair-locks"    // lock and lock_info reset
	// OpRemoveLeaked: leaked in-progress entries removed from their lists;
	// its items are those of OpQueueDelete (Queue the list, Old the bytes)
	// and its undo the same push back.
	OpRemoveLeaked = "remove-leaked"
	// OpDeleteUnique: unique keys deleted; each item's Key is the key as
	// it was (value and time to live), and its undo sets it again while
	// it is absent, as an unpause's does.
	OpDeleteUnique = "delete-unique"
	// OpEdit: a set member's args replaced (its bytes New, same score), or
	// the edited job requeued (Queue, NewBefore, NewAfter and the commit's
	// Now, as a requeue's); OpDuplicate: a copy pushed onto the job's queue
	// with a new id, the member left where it is. Unique is the unique key
	// the call moves or sets, as it was before, its Mode "move" or "set".
	OpEdit      = "edit"
	OpDuplicate = "duplicate"
	OpUndo      = "undo"
)

// Intent is what one script call will change, written before it is sent.
type Intent struct {
	// RedisMs is Redis's clock, in milliseconds, when the values before
	// were read (remaining TTLs count from it).
	RedisMs int64  `json:"redis_ms,omitempty"`
	Items   []Item `json:"items"`
}

// Item is one thing a call changes, with what is needed to put it back.
type Item struct {
	// Set is the job set key a member leaves (requeue, delete) or comes
	// back to (undo); Score its score there, as Redis wrote it; Old its
	// exact bytes there.
	Set   string `json:"set,omitempty"`
	Score string `json:"score,omitempty"`
	Old   []byte `json:"old,omitempty"`
	// Queue is the queue a requeue pushes onto, or that a queue delete
	// removes from. A requeued job's new bytes are NewBefore, Redis's
	// clock in seconds as the script read it (the commit's Now), NewAfter.
	Queue     string `json:"queue,omitempty"`
	NewBefore []byte `json:"new_before,omitempty"`
	NewAfter  []byte `json:"new_after,omitempty"`
	// New is the exact bytes an undo takes out of a queue.
	New []byte `json:"new,omitempty"`
	// Count is how many copies of Old a queue held.
	Count int64 `json:"count,omitempty"`
	// Position is, for a job a query took out of a queue, the furthest
	// from the head it can have been (0 runs next); Ahead, in an undo's
	// plan, the bytes of the job just ahead of it when it was taken.
	Position int64  `json:"position,omitempty"`
	Ahead    []byte `json:"ahead,omitempty"`
	// Unique is the member's unique key as it was before the call.
	Unique *Key `json:"unique,omitempty"`
	// Key is a key a pause or unpause writes, or a key a reap, orphan
	// requeue or lock repair changes, as it was before.
	Key *Key `json:"key,omitempty"`
	// Lists are lists a reap or orphan requeue moves from, with their
	// lengths before; Fields a hash's fields before (lock_info).
	Lists  map[string]int64  `json:"lists,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
	// Undo is, in an undo's journal, what the item puts back: the Op of
	// the action it undoes.
	Undo string `json:"undo,omitempty"`
	// Deadline is, in an undo's journal, when the unique or pause key put
	// back expires: Redis's clock in milliseconds (0: never).
	Deadline int64 `json:"deadline,omitempty"`
}

// Key is a key's value before a call: Exists false for a key that was not
// there; PTTL its remaining time to live in milliseconds (-1: none).
// Mode is how a delete treats a unique key: "a" always, "o" only when it
// names the job; for an edit or a duplicate, "move" (the key moves to the
// edited job's) or "set" (the new job's key is set as EnqueueUnique does).
type Key struct {
	Name   string `json:"name"`
	Exists bool   `json:"exists"`
	Value  []byte `json:"value,omitempty"`
	PTTL   int64  `json:"pttl,omitempty"`
	Mode   string `json:"mode,omitempty"`
}

// Commit is what a script call reported, written after its reply.
type Commit struct {
	// Codes has one character per item of the intent, as the script
	// returned it.
	Codes string `json:"codes,omitempty"`
	// Now is Redis's clock, in seconds, as the script read it.
	Now string `json:"now,omitempty"`
	// Counts are per-item numbers a script returned (copies removed).
	Counts []int64 `json:"counts,omitempty"`
	// Aheads are, for jobs a query took out of a queue, the bytes of the
	// job just ahead of each when it was taken (empty: it was at the head).
	Aheads [][]byte `json:"aheads,omitempty"`
	// Statuses are per-item words a script returned (pause).
	Statuses []string `json:"statuses,omitempty"`
	// Error is the call's error, when it failed.
	Error string `json:"error,omitempty"`
}

// End closes an action that ran to its end (with or without an error).
type End struct {
	Done   int64  `json:"done"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}
