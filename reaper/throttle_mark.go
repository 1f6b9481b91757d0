package reaper

// This file owns telling which job types are throttled: the last throttle
// of each job type recorded in the journal, kept while Redis still holds
// the value it wrote. Pools' own settings are not in Redis, so the journal
// is the only witness of who set a cap, and a pool start since (which
// writes its own) ends the mark.

import (
	"strconv"

	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// MarkThrottled sets Throttled on each job type of snap whose last
// throttle in actions (of snap's namespace, and of address unless it is
// "") wrote the cap Redis holds now; it clears it on the others. A reset
// (a cap of 0) marks nothing.
func MarkThrottled(snap *model.Snapshot, actions []*journal.Action, address string) {
	if snap == nil {
		return
	}
	last := lastThrottles(actions, redisq.NewKeys(snap.Namespace).Prefix(), address)
	for i := range snap.JobTypes {
		jt := &snap.JobTypes[i]
		jt.Throttled = nil
		t, ok := last[jt.Name]
		if ok && t.Value > 0 && t.Value == jt.MaxConcurrency {
			jt.Throttled = &t
		}
	}
}

// ThrottleActions are the actions of dir that MarkThrottled looks at for
// namespace (and address unless it is ""): the throttles of one job type
// there. Only every journal's header is read, and only those throttles
// whole, so that a read command does not read the whole journal
// directory (up to --journal-max, 256 MB by default) to mark its job
// types. Journals that cannot be read are left out, as by dir.List.
func ThrottleActions(dir journal.Dir, namespace, address string) ([]*journal.Action, error) {
	heads, _, err := dir.Headers()
	if err != nil {
		return nil, err
	}
	prefix := redisq.NewKeys(namespace).Prefix()
	var out []*journal.Action
	for _, s := range heads {
		if !throttleOf(s.Header, prefix, address) {
			continue
		}
		if a, err := dir.Read(s.Header.ID); err == nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// throttleOf reports whether h is a throttle of one job type of the
// namespace of prefix (and of address unless it is "").
func throttleOf(h journal.Header, prefix, address string) bool {
	return h.Op == journal.OpThrottle && len(h.Targets) == 1 && redisq.NewKeys(h.Namespace).Prefix() == prefix && (address == "" || h.Address == address)
}

// lastThrottles is, per job type, the last throttle that wrote its cap.
func lastThrottles(actions []*journal.Action, prefix, address string) map[string]model.Throttled {
	out := map[string]model.Throttled{}
	for _, a := range actions {
		h := a.Header
		if !throttleOf(h, prefix, address) {
			continue
		}
		t, ok := throttleWritten(a)
		if !ok {
			continue
		}
		prev, seen := out[h.Targets[0]]
		if seen && prev.At.After(h.Time) {
			continue
		}
		if seen && t.Before == strconv.FormatInt(prev.Value, 10) {
			t.Pools = prev.Pools // it replaced the throttle before it
		}
		out[h.Targets[0]] = t
	}
	return out
}

// throttleWritten is what a throttle action wrote, when its call reported
// writing it (or was cut short before its reply: Redis's value decides).
func throttleWritten(a *journal.Action) (model.Throttled, bool) {
	for _, c := range a.Calls {
		if len(c.Intent.Items) != 1 || c.Intent.Items[0].Key == nil {
			continue
		}
		if c.Commit != nil && (len(c.Commit.Statuses) == 0 || c.Commit.Statuses[0] != ThrottleDone) {
			continue
		}
		it := c.Intent.Items[0]
		v, err := strconv.ParseInt(string(it.New), 10, 64)
		if err != nil {
			continue
		}
		return model.Throttled{Value: v, Before: string(it.Key.Value), Pools: string(it.Key.Value), By: a.Header.User, At: a.Header.Time, Action: a.Header.ID}, true
	}
	return model.Throttled{}, false
}
