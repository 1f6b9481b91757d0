// Where the screen reads when Redis Sentinel decides it: the node, its role,
// a replica's lag, and the last failover the program followed; the header
// line and the message that say so.

package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// Follower reports where the screen reads now. It is read once per redraw
// (at least once a second), like the clock: the program follows the
// sentinels in the background and on every poll, and the screen shows the
// state it gives at that moment.
type Follower interface {
	Following() Following
}

// Following is the state a Follower reports. Addresses come from the
// sentinels and are cleaned before they are shown.
type Following struct {
	// MasterName is the name the sentinels monitor.
	MasterName string
	// Node is the host:port the polls read from now.
	Node string
	// Replica is set when Node is a replica (read-only monitoring).
	Replica bool
	// LagKnown is set once a replica's lag was read: LagBytes is the
	// master's replication offset minus the replica's, LagSeconds the
	// seconds since the replica last heard from its master (-1 unknown).
	LagKnown   bool
	LagBytes   int64
	LagSeconds int
	// Problem is why the last check of the deployment failed ("" when it
	// did not): the polls go on with the last known node.
	Problem string
	// Sentinels is how many sentinels were given, Listening how many of
	// them announce failovers to the program right now.
	Sentinels, Listening int
	// Failover is the last failover followed ("" none): Old -> New at At.
	Failover *Failover
}

// Failover is a change of master the program followed.
type Failover struct {
	Old, New string
	At       time.Time
}

// String is the line the screen shows: "failover: old -> new", cleaned.
func (f Failover) String() string {
	return "failover: " + textsafe.Clean(f.Old) + " -> " + textsafe.Clean(f.New)
}

// failoverNoticeFor is how long the message area repeats a failover; the
// header line keeps it until the next one.
const failoverNoticeFor = 30 * time.Second

// following is the follower's state now; ok is false without one.
func (m Model) following() (Following, bool) {
	if m.rd.Follow == nil {
		return Following{}, false
	}
	return m.rd.Follow.Following(), true
}

// nodeSegment is the header's "where": the node and its role, with a
// replica's lag.
func nodeSegment(f Following, st styles) string {
	s := st.bold.Render(textsafe.Clean(f.Node))
	if !f.Replica {
		return s + " master"
	}
	s += " " + st.warn.Render("replica")
	if f.LagKnown {
		s += fmt.Sprintf(" lag %s", formatBytes(f.LagBytes))
		if f.LagSeconds >= 0 {
			s += fmt.Sprintf(" %ds", f.LagSeconds)
		}
	}
	return s
}

// sentinelLine is the header line under the counts while Sentinel decides
// where the screen reads: the last failover, else how it is followed.
func sentinelLine(f Following, now time.Time, width int, st styles) string {
	seg := []string{"sentinel " + textsafe.Clean(f.MasterName)}
	switch {
	case f.Problem != "":
		seg = append(seg, st.dead.Render(oneLine(f.Problem)))
	case f.Failover != nil:
		seg = append(seg, st.warn.Render(f.Failover.String())+" "+model.FormatAge(now.Sub(f.Failover.At).Round(time.Second))+" ago")
	case f.Replica:
		seg = append(seg, "reading a replica")
	default:
		seg = append(seg, "no failover seen")
	}
	if !f.Replica {
		seg = append(seg, st.faint.Render(fmt.Sprintf("%d/%d sentinels announcing", f.Listening, f.Sentinels)))
	}
	return fitLine(strings.Join(seg, "  "), width)
}

// failoverNotice is the message area's line for a recent failover, "" when
// there is none.
func failoverNotice(f Following, ok bool, now time.Time) string {
	if !ok || f.Failover == nil || now.Sub(f.Failover.At) > failoverNoticeFor {
		return ""
	}
	return f.Failover.String() + " (the screen now reads the new master)"
}

// formatBytes is a byte count for the header: 0 B, 512 B, 12.3 kB, 4.0 MB.
func formatBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
