package sentinel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// switchChannel is where sentinels announce a new master:
// "<name> <old ip> <old port> <new ip> <new port>".
const switchChannel = "+switch-master"

// Event is a failover the watcher followed.
type Event struct {
	Old, New string
	// At is when the watcher confirmed the new master with ROLE.
	At time.Time
	// Via says how it learned of it: "+switch-master from <sentinel>" or
	// "asking the sentinels".
	Via string
}

// String is "failover: old -> new", fit for a status line once cleaned.
func (e Event) String() string { return fmt.Sprintf("failover: %s -> %s", e.Old, e.New) }

// Watcher owns the address of the current master and follows failovers:
// it listens on every sentinel's +switch-master channel (Run), and Check,
// called at every poll, asks the sentinels in case a message was missed.
// A new address is taken only after ROLE on it says master.
type Watcher struct {
	c      *Client
	events chan Event
	// pingEvery is how often a subscription is pinged; one that does not
	// answer within two pings is dialled again.
	pingEvery time.Duration

	mu        sync.Mutex // guards master and listening, orders the events
	master    string
	listening int
}

// NewWatcher starts from master, an address Master returned.
func NewWatcher(c *Client, master string) *Watcher {
	return &Watcher{c: c, master: master, events: make(chan Event, 16), pingEvery: 5 * time.Second}
}

// Master is the current master's address.
func (w *Watcher) Master() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.master
}

// Listening is how many sentinels the watcher is subscribed to right now,
// for a screen to say whether failovers are followed as they happen or only
// at the next Check.
func (w *Watcher) Listening() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.listening
}

func (w *Watcher) addListening(n int) {
	w.mu.Lock()
	w.listening += n
	w.mu.Unlock()
}

// Events delivers each followed failover once. It is buffered; when the
// reader falls behind the oldest event is dropped (Master is always
// current).
func (w *Watcher) Events() <-chan Event { return w.events }

// Check asks the sentinels for the master (Client.Master, which checks
// ROLE) and switches when the answer differs. It returns the current
// master and, when it switched, the event (also sent on Events).
func (w *Watcher) Check(ctx context.Context) (string, *Event, error) {
	m, err := w.c.Master(ctx)
	if err != nil {
		return w.Master(), nil, err
	}
	ev := w.adopt(ctx, m, "asking the sentinels")
	return w.Master(), ev, nil
}

// Run listens on every sentinel until ctx ends, dialling again with a
// back-off when a sentinel goes away. Run it in its own goroutine.
func (w *Watcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, addr := range w.c.Sentinels() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.listen(ctx, addr)
		}()
	}
	wg.Wait()
}

func (w *Watcher) listen(ctx context.Context, addr string) {
	backoff := 200 * time.Millisecond
	for attempt := 0; ctx.Err() == nil; attempt++ {
		subscribed := false
		_ = w.listenOnce(ctx, addr, func() {
			subscribed = true
			backoff = 200 * time.Millisecond
			if attempt > 0 {
				// A switch may have gone by while this sentinel was
				// away: ask once now rather than wait for the next poll.
				_, _, _ = w.Check(ctx)
			}
		})
		if ctx.Err() != nil {
			return
		}
		if !subscribed && backoff < 5*time.Second {
			backoff *= 2
		}
		if sleep(ctx, backoff) != nil {
			return
		}
	}
}

// listenOnce subscribes on one sentinel and handles messages until the
// connection fails or ctx ends.
func (w *Watcher) listenOnce(ctx context.Context, addr string, onSubscribed func()) error {
	conn, err := w.c.dialSentinel(ctx, addr, 0)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	psc := redis.PubSubConn{Conn: conn}
	if err := psc.Subscribe(switchChannel); err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(w.pingEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if psc.Ping("") != nil {
					return
				}
			}
		}
	}()
	// counted: this subscription is in Listening until listenOnce returns.
	counted := false
	defer func() {
		if counted {
			w.addListening(-1)
		}
	}()
	for {
		switch m := psc.ReceiveWithTimeout(2 * w.pingEvery).(type) {
		case error:
			return m
		case redis.Subscription:
			if m.Kind == "subscribe" && m.Channel == switchChannel && !counted {
				counted = true
				w.addListening(1)
				onSubscribed()
			}
		case redis.Message:
			if m.Channel != switchChannel {
				continue
			}
			f := strings.Fields(string(m.Data))
			if len(f) != 5 || f[0] != w.c.cfg.MasterName {
				continue
			}
			next, err := joinHostPort(f[3], f[4])
			if err != nil {
				continue
			}
			w.confirm(ctx, next, "+switch-master from "+addr)
		}
	}
}

// confirm checks with ROLE that next is a master, retrying briefly (the
// message follows the promotion, but a connection may still be on its
// way), then switches to it.
func (w *Watcher) confirm(ctx context.Context, next, via string) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		if w.Master() == next {
			return
		}
		r, _, err := w.c.roleOf(ctx, next, false)
		if err == nil && r.Name == "master" {
			w.adopt(ctx, next, via)
			return
		}
		if time.Now().After(deadline) || sleep(ctx, 100*time.Millisecond) != nil {
			// Not confirmed: the next Check asks the sentinels again.
			return
		}
	}
}

// adopt switches to next, a node whose ROLE said master, unless the current
// master was promoted from it. For about 10 s after a failover the old
// master still says master, and a sentinel that has not yet heard of the
// switch still names it: without this a poll could switch back.
func (w *Watcher) adopt(ctx context.Context, next, via string) *Event {
	cur := w.Master()
	if cur == next {
		return nil
	}
	if w.c.supersedes(ctx, cur, next) {
		return nil
	}
	return w.take(next, via)
}

// take makes next the master when it differs and sends the event.
func (w *Watcher) take(next, via string) *Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.master
	if old == next {
		return nil
	}
	w.master = next
	ev := Event{Old: old, New: next, At: time.Now(), Via: via}
	select {
	case w.events <- ev:
	default:
		select {
		case <-w.events:
		default:
		}
		select {
		case w.events <- ev:
		default:
		}
	}
	return &ev
}
