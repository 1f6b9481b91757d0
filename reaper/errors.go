// The sentinel errors of reaper, checked with errors.Is.

package reaper

import (
	"errors"
	"strings"
)

// Errors of planning.
var (
	// ErrUnknownPool: a target pool ID is not in the snapshot.
	ErrUnknownPool = errors.New("unknown pool")
	// ErrPoolAlive: a target pool is not dead (at plan time).
	ErrPoolAlive = errors.New("pool is not dead")
	// ErrNothingToDo: no dead pool to reap.
	ErrNothingToDo = errors.New("nothing to reap")
	// ErrNotInProgressKey: a key is not an in-progress list key of the
	// namespace.
	ErrNotInProgressKey = errors.New("not an in-progress list of the namespace")
	// ErrNoSuchList: an in-progress list does not exist (or is empty, which
	// in Redis is the same).
	ErrNoSuchList = errors.New("no such in-progress list")
	// ErrUnknownJob: a job type has no key at all and is not in known_jobs.
	ErrUnknownJob = errors.New("unknown job type")
	// ErrSetChanged: <ns>:worker_pools changed between plan and execution;
	// the script changed nothing.
	ErrSetChanged = errors.New("worker_pools changed since the plan")
	// ErrUnlistedLeaks: a lock repair planned without looking for leaked
	// in-progress entries (the screen's poll) found some when it ran.
	ErrUnlistedLeaks = errors.New("leaked in-progress entries the plan did not list")
)

// Errors of data that gocraft/work never writes, found by a plan or by a
// script before its first write (so nothing was written). Every one of them
// is also ErrBadData.
var (
	// ErrBadData: a key holds data gocraft/work never writes there.
	ErrBadData = errors.New("unexpected data in redis")
	// ErrWrongType: a key holds a Redis type gocraft/work never writes
	// there.
	ErrWrongType error = badDataKind("key of the wrong type")
	// ErrBadValue: a counter that should hold an integer does not.
	ErrBadValue error = badDataKind("not an integer")
)

// badDataKind is a kind of ErrBadData.
type badDataKind string

func (k badDataKind) Error() string        { return string(k) }
func (k badDataKind) Is(target error) bool { return target == ErrBadData }

// dataError is bad data a reap script reported: its text is the script's
// reason after "unexpected data in redis: ", and it is its kind.
type dataError struct {
	kind   error
	reason string
}

func (e *dataError) Error() string { return ErrBadData.Error() + ": " + e.reason }
func (e *dataError) Unwrap() error { return e.kind }

// scriptDataError reads a script's reason, "wrongtype:<why>" or
// "badvalue:<why>", as a dataError (ErrBadData alone for another reason).
func scriptDataError(reason string) error {
	switch {
	case strings.HasPrefix(reason, "wrongtype:"):
		return &dataError{kind: ErrWrongType, reason: strings.TrimPrefix(reason, "wrongtype:")}
	case strings.HasPrefix(reason, "badvalue:"):
		return &dataError{kind: ErrBadValue, reason: strings.TrimPrefix(reason, "badvalue:")}
	}
	return &dataError{kind: ErrBadData, reason: reason}
}

// joinErrors joins the errors of the items of a result (nil when none).
func joinErrors[T any](items []T, errOf func(T) error) error {
	var errs []error
	for _, it := range items {
		if err := errOf(it); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
