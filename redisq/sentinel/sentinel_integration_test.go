package sentinel

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

func dialPlain(ctx context.Context, addr string) (redis.Conn, error) {
	return redis.DialContext(ctx, "tcp", addr, redis.DialReadTimeout(2*time.Second), redis.DialWriteTimeout(2*time.Second))
}

func newClient(t *testing.T, set *redistest.SentinelSet, user, pass string) *Client {
	t.Helper()
	c, err := New(Config{Addrs: set.Addrs(), MasterName: set.Name, User: user, Password: pass, Timeout: 2 * time.Second, DialData: dialPlain})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// failover forces a failover and returns when ROLE on the replica says
// master: the moment of the promotion as a client can see it.
func failover(t *testing.T, set *redistest.SentinelSet) time.Time {
	t.Helper()
	if v := set.Sentinels[0].Do("SENTINEL", "FAILOVER", set.Name); v != "OK" {
		t.Fatalf("SENTINEL FAILOVER: %v", v)
	}
	deadline := time.Now().Add(15 * time.Second)
	for set.Role(t, set.Replica) != "master" {
		if time.Now().After(deadline) {
			t.Fatal("the replica was not promoted within 15s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Now()
}

// waitListening waits until the watcher is subscribed on every sentinel,
// so a failover cannot outrun its subscriptions.
func waitListening(t *testing.T, w *Watcher, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.Listening() != n {
		if time.Now().After(deadline) {
			t.Fatalf("watcher listens on %d sentinels, want %d", w.Listening(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMasterFoundAndSentinelAuthAndAllDown(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{User: "watch", Password: "s3cret"})
	c := newClient(t, set, "watch", "s3cret")
	ctx := context.Background()
	m, err := c.Master(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m != set.Master.Addr() {
		t.Fatalf("master: got %s, want %s", m, set.Master.Addr())
	}

	// The watcher subscribes with the same auth, notices a sentinel that
	// goes away and subscribes again when it is back.
	wctx, cancel := context.WithCancel(ctx)
	w := NewWatcher(c, m)
	runDone := make(chan struct{})
	go func() { w.Run(wctx); close(runDone) }()
	waitListening(t, w, 3)
	set.Sentinels[1].Stop()
	waitListening(t, w, 2)
	set.Sentinels[1].Restart()
	waitListening(t, w, 3)
	cancel()
	<-runDone
	if n := w.Listening(); n != 0 {
		t.Fatalf("after Run returned the watcher still listens on %d sentinels", n)
	}

	bad := newClient(t, set, "watch", "wrong")
	_, err = bad.Master(ctx)
	if !errors.Is(err, ErrNoSentinel) || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong sentinel password: got %v, want ErrNoSentinel without the password", err)
	}

	for _, s := range set.Sentinels {
		s.Stop()
	}
	for name, call := range map[string]func() error{
		"Master":             func() error { _, err := c.Master(ctx); return err },
		"DialMasterForWrite": func() error { _, _, err := c.DialMasterForWrite(ctx); return err },
		"Replica":            func() error { _, err := c.Replica(ctx); return err },
	} {
		err := call()
		if !errors.Is(err, ErrNoSentinel) {
			t.Fatalf("%s with every sentinel down: got %v, want ErrNoSentinel", name, err)
		}
		msg := err.Error()
		if strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("%s: error is not one line: %q", name, msg)
		}
		for _, a := range set.Addrs() {
			if !strings.Contains(msg, a) {
				t.Fatalf("%s: error does not name sentinel %s: %s", name, a, msg)
			}
		}
		t.Logf("%s, all sentinels down: %s", name, msg)
	}
}

func TestWatcherFollowsSwitchMasterAndWritesGoToTheNewMaster(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{})
	c := newClient(t, set, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, err := c.Master(ctx)
	if err != nil {
		t.Fatal(err)
	}
	oldAddr, newAddr := set.Master.Addr(), set.Replica.Addr()
	w := NewWatcher(c, m)
	runDone := make(chan struct{})
	go func() { w.Run(ctx); close(runDone) }()
	defer func() { cancel(); <-runDone }()
	waitListening(t, w, len(set.Sentinels))

	// The pre-write check runs all through the failover. Each result is
	// kept with the time its call started.
	type result struct {
		started time.Time
		addr    string
		err     error
	}
	var (
		mu      sync.Mutex
		results []result
	)
	stopWrites := make(chan struct{})
	writesDone := make(chan struct{})
	go func() {
		defer close(writesDone)
		for {
			select {
			case <-stopWrites:
				return
			default:
			}
			start := time.Now()
			conn, addr, err := c.DialMasterForWrite(ctx)
			if conn != nil {
				conn.Close()
			}
			mu.Lock()
			results = append(results, result{start, addr, err})
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()

	promoted := failover(t, set)
	var ev Event
	select {
	case ev = <-w.Events():
	case <-time.After(5*time.Second - time.Since(promoted)):
		t.Fatalf("no failover event within 5s of the promotion")
	}
	t.Logf("failover event %v via %q, %v after ROLE on the new master said master", ev, ev.Via, ev.At.Sub(promoted))
	if ev.Old != oldAddr || ev.New != newAddr || !strings.HasPrefix(ev.Via, "+switch-master") {
		t.Fatalf("event: got %+v, want %s -> %s via +switch-master", ev, oldAddr, newAddr)
	}
	if w.Master() != newAddr {
		t.Fatalf("watcher master: got %s, want %s", w.Master(), newAddr)
	}
	// The old master still says master for a while; a sentinel that has
	// not heard of the switch would name it. The watcher does not go back.
	if role := set.Role(t, set.Master); role != "master" {
		t.Fatalf("the old master already says %q; the check below would prove nothing", role)
	}
	if ev := w.adopt(ctx, oldAddr, "a stale sentinel"); ev != nil || w.Master() != newAddr {
		t.Fatalf("watcher went back to the old master: %+v, now %s", ev, w.Master())
	}

	// The check succeeds on the new master once the sentinels agree.
	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := len(results)
		last := result{}
		if n > 0 {
			last = results[n-1]
		}
		mu.Unlock()
		if last.err == nil && last.addr == newAddr && last.started.After(promoted) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pre-write check did not return the new master within 15s; last: %+v", last)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(stopWrites)
	<-writesDone
	var refused, toNew, toOldBefore int
	var firstNew time.Duration
	for i, r := range results {
		if r.err == nil && r.addr == newAddr && firstNew == 0 {
			firstNew = r.started.Sub(promoted)
		}
		switch {
		case r.err != nil:
			if !errors.Is(r.err, ErrNotMaster) && !errors.Is(r.err, ErrNoSentinel) {
				t.Fatalf("pre-write check: unexpected error %v", r.err)
			}
			refused++
			if refused == 1 || i == len(results)-1 || results[i+1].err == nil {
				t.Logf("refused at %v after the promotion: %v", r.started.Sub(promoted), r.err)
			}
		case r.started.After(promoted) && r.addr != newAddr:
			t.Fatalf("pre-write check started %v after the promotion returned %s, not the new master %s", r.started.Sub(promoted), r.addr, newAddr)
		case r.addr == newAddr:
			toNew++
		default:
			toOldBefore++
		}
	}
	t.Logf("pre-write checks: %d to the old master before the promotion, %d refused during the failover, %d to the new master (the first started %v after the promotion)", toOldBefore, refused, toNew, firstNew)
	if toNew == 0 {
		t.Fatal("no pre-write check returned the new master")
	}
}

func TestCheckFollowsFailoverWithoutSubscription(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{})
	c := newClient(t, set, "", "")
	ctx := context.Background()
	m, err := c.Master(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(c, m)
	promoted := failover(t, set)
	deadline := time.Now().Add(5 * time.Second)
	for {
		cur, ev, err := w.Check(ctx)
		if err == nil && ev != nil {
			t.Logf("Check saw %v %v after the promotion", ev, time.Since(promoted))
			if cur != set.Replica.Addr() || ev.Old != set.Master.Addr() || ev.Via != "asking the sentinels" {
				t.Fatalf("Check: got %s, %+v", cur, ev)
			}
			got := <-w.Events()
			if got.New != ev.New {
				t.Fatalf("Events: got %+v, want %+v", got, *ev)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Check did not see the new master within 5s of the promotion (last: %s, %v)", cur, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func TestReplicaAndLag(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{})
	c := newClient(t, set, "", "")
	ctx := context.Background()
	set.Master.Do("SET", "work:probe", "from-master")
	r, err := c.Replica(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Addr != set.Replica.Addr() || r.Master != set.Master.Addr() {
		t.Fatalf("replica: got %+v, want %s of %s", r, set.Replica.Addr(), set.Master.Addr())
	}
	before := masterOffset(t, set.Master)
	l, err := c.Lag(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	after := masterOffset(t, set.Master)
	t.Logf("lag: %+v", l)
	if !l.LinkUp || l.ReplicaOffset <= 0 || l.MasterOffset < before || l.MasterOffset > after || l.Bytes != l.MasterOffset-l.ReplicaOffset || l.Bytes < 0 {
		t.Fatalf("lag: got %+v (master offset %d before, %d after)", l, before, after)
	}
	// Reads sent to the chosen replica see the master's data.
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := dialPlain(ctx, r.Addr)
		if err != nil {
			t.Fatal(err)
		}
		v, err := redis.String(conn.Do("GET", "work:probe"))
		conn.Close()
		if err == nil && v == "from-master" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never had the master's key: %q, %v", v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A replica whose ROLE is master (promoted by hand, behind the
	// sentinels' back) is not chosen.
	set.Replica.Do("REPLICAOF", "NO", "ONE")
	if _, err := c.Replica(ctx); !errors.Is(err, ErrNoReplica) {
		t.Fatalf("replica that says master: got %v, want ErrNoReplica", err)
	}
	// And the pre-write check refuses while it says master.
	if _, _, err := c.DialMasterForWrite(ctx); !errors.Is(err, ErrNotMaster) {
		t.Fatalf("pre-write check with a replica that says master: got %v, want ErrNotMaster", err)
	}
}

func masterOffset(t *testing.T, s *redistest.Server) int64 {
	t.Helper()
	info, err := redis.String(s.Do("INFO", "replication"), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(infoFields(info)["master_repl_offset"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTLSSentinelsAndNodes(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{TLS: true})
	conf := set.ClientTLS(t)
	dialTLS := func(ctx context.Context, addr string) (redis.Conn, error) {
		host, _, _ := strings.Cut(addr, ":")
		c := conf.Clone()
		c.ServerName = host
		return redis.DialContext(ctx, "tcp", addr, redis.DialUseTLS(true), redis.DialTLSConfig(c), redis.DialReadTimeout(2*time.Second))
	}
	c, err := New(Config{Addrs: set.Addrs(), MasterName: set.Name, TLS: conf, Timeout: 2 * time.Second, DialData: dialTLS})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := c.Master(ctx)
	if err != nil || m != set.Master.Addr() {
		t.Fatalf("master over TLS: got %s, %v; want %s", m, err, set.Master.Addr())
	}
	r, err := c.Replica(ctx)
	if err != nil || r.Addr != set.Replica.Addr() {
		t.Fatalf("replica over TLS: got %+v, %v", r, err)
	}
	if _, err := c.Lag(ctx, r); err != nil {
		t.Fatalf("lag over TLS: %v", err)
	}
	conn, addr, err := c.DialMasterForWrite(ctx)
	if err != nil || addr != set.Master.Addr() {
		t.Fatalf("pre-write check over TLS: got %s, %v", addr, err)
	}
	conn.Close()

	plain := newClient(t, set, "", "")
	if _, err := plain.Master(ctx); !errors.Is(err, ErrNoSentinel) {
		t.Fatalf("plain client to TLS sentinels: got %v, want ErrNoSentinel", err)
	}
}
