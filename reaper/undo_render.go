package reaper

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// undoSample is how many items an undo plan or result lists.
const undoSample = 20

// undoWhat says, for an action's Op, what its undo does to each item.
func undoWhat(op string) string {
	switch op {
	case journal.OpRequeue:
		return "take each requeued job out of its queue (one copy of the exact bytes pushed) and put it back into its set at its old score with its old bytes, only while it is still in the queue"
	case journal.OpDelete:
		return "put each deleted job back into its set at its old score, with its unique key where the delete took it (only while the key is absent, with what was left of its time to live)"
	case journal.OpQueueDelete:
		return "push each deleted job back onto the head of its queue (its place in the line is not kept), with its unique key where it was taken"
	case journal.OpRemoveLeaked:
		return "push each removed leaked entry back onto its in-progress list, unless the list holds it already"
	case journal.OpQueueDrain:
		return "put each job the delete by query took back into its queue just behind the job that was ahead of it while that job is still queued, else at the queue's head (the queue has moved past its place: it runs next), with its unique key where it was taken"
	case journal.OpQueuePark:
		return "take each parked job out of the dead set, only while it is still there, and put it back into its queue just behind the job that was ahead of it while that job is still queued, else at the queue's head (the queue has moved past its place: it runs next), with its unique key where it was taken"
	case journal.OpPause:
		return `lift each pause the action set, only while it is the "1" without expiry it wrote`
	case journal.OpThrottle:
		return "put back each max_concurrency value the throttle replaced, only while it still holds what the throttle wrote (a pool start since has written its own)"
	case journal.OpUnpause:
		return "put back each pause key the unpause deleted, with its value and what was left of its expiry, only while it is absent"
	case journal.OpEdit:
		return "put the edited job's old bytes back in place of the edited ones (taking a requeued one out of its queue, one copy of the exact bytes pushed, back into its set at its old score), with its unique key as it was, only while the edited job is still where the edit left it"
	case journal.OpDuplicate:
		return "take the copy out of its queue (one copy of the exact bytes pushed), with the unique key it set, only while it is still queued"
	case journal.OpDeleteUnique:
		return "put back each unique key the action deleted, with its value and what was left of its time to live, only while it is absent"
	}
	return op
}

// RenderUndoPlan writes an undo's plan as plain text.
func RenderUndoPlan(w io.Writer, p UndoPlan) {
	h := p.Of.Header
	fmt.Fprintf(w, "Undo of action %s (%s, %s, namespace %s on %s): %s.\n",
		textsafe.Clean(h.ID), textsafe.Clean(h.Command), h.Time.UTC().Format(time.RFC3339),
		textsafe.Clean(h.Namespace), textsafe.Clean(h.Address), undoWhat(p.Op))
	if p.Of.Damage != "" {
		fmt.Fprintf(w, "The journal is damaged: %s.\n", textsafe.Clean(p.Of.Damage))
	}
	if p.Of.End == nil {
		fmt.Fprintln(w, "The action did not reach its end (stopped or killed): what its journal holds is put back.")
	}
	fmt.Fprintf(w, "  to put back: %d (still where the action left it, read just now)\n", len(p.Items))
	if p.Maybe > 0 {
		fmt.Fprintf(w, "  of them from calls whose reply was never read: %d (put back only where the action changed them)\n", p.Maybe)
	}
	if isDrainOp(p.Op) {
		head := 0
		for _, it := range p.Items {
			if len(it.Item.Ahead) == 0 {
				head++
			}
		}
		if head > 0 {
			fmt.Fprintf(w, "  of them going to the head: %d (at the front when taken, or of calls whose reply was never read)\n", head)
		}
	}
	if p.NotFound > 0 {
		fmt.Fprintf(w, "  of them not in their queue now: %d (taken by a worker, or never pushed: left alone)\n", p.NotFound)
	}
	if p.Already > 0 {
		fmt.Fprintf(w, "  back where they were already: %d, left alone\n", p.Already)
	}
	if p.MovedOn > 0 {
		fmt.Fprintf(w, "  moved on since (%s): %d, left alone\n", movedOnWhy(p.Op), p.MovedOn)
	}
	if p.NotChanged > 0 {
		fmt.Fprintf(w, "  left alone by the action (gone or moved when it ran): %d, nothing to put back\n", p.NotChanged)
	}
	if len(p.Items) == 0 {
		fmt.Fprintln(w, "Nothing to put back.")
	} else {
		fmt.Fprintln(w, "First items:")
		for _, it := range p.Items[:min(len(p.Items), undoSample)] {
			fmt.Fprintf(w, "  %s\n", textsafe.Clean(DescribeUndoItem(it.Item)))
		}
	}
	if len(p.MovedOnItems) > 0 {
		fmt.Fprintln(w, "Moved on, to be left alone:")
		for _, it := range p.MovedOnItems[:min(len(p.MovedOnItems), undoSample)] {
			fmt.Fprintf(w, "  %s\n", textsafe.Clean(DescribeUndoItem(it)))
		}
		if n := p.MovedOn - int64(min(len(p.MovedOnItems), undoSample)); n > 0 {
			fmt.Fprintf(w, "  ... and %d more\n", n)
		}
	}
}

// movedOnWhy says where an item of op's undo that moved on went.
func movedOnWhy(op string) string {
	switch op {
	case journal.OpRequeue, journal.OpDuplicate:
		return "a worker took them from the queue"
	case journal.OpEdit:
		return "the edited job is not where the edit left it: a worker or a requeuer took it, or it was changed or deleted"
	}
	return "changed since"
}

// RenderUndoResult writes what an undo did.
func RenderUndoResult(w io.Writer, r UndoResult) {
	parts := []string{fmt.Sprintf("put back %d", r.Restored)}
	if r.Already > 0 {
		parts = append(parts, fmt.Sprintf("%d already back", r.Already))
	}
	if r.UniqueRestored > 0 {
		parts = append(parts, fmt.Sprintf("%d unique keys put back", r.UniqueRestored))
	}
	if r.UniqueExpired > 0 {
		parts = append(parts, fmt.Sprintf("%d unique keys expired since (not put back)", r.UniqueExpired))
	}
	if r.UniqueHeld > 0 {
		parts = append(parts, fmt.Sprintf("%d unique keys held by a newer copy (left alone)", r.UniqueHeld))
	}
	if r.PauseExpired > 0 {
		parts = append(parts, fmt.Sprintf("%d pauses would have expired since (not put back)", r.PauseExpired))
	}
	if r.MovedOn > 0 {
		parts = append(parts, fmt.Sprintf("%d moved on since the action (left alone)", r.MovedOn))
	}
	fmt.Fprintf(w, "Undo: %s.\n", strings.Join(parts, ", "))
	if len(r.MovedOnItems) > 0 {
		fmt.Fprintln(w, "Moved on, not touched:")
		for _, it := range r.MovedOnItems[:min(len(r.MovedOnItems), undoSample)] {
			fmt.Fprintf(w, "  %s\n", textsafe.Clean(DescribeUndoItem(it)))
		}
		if n := r.MovedOn - int64(min(len(r.MovedOnItems), undoSample)); n > 0 {
			fmt.Fprintf(w, "  ... and %d more\n", n)
		}
	}
}
