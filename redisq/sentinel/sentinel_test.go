package sentinel

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
)

func noDial(context.Context, string) (redis.Conn, error) {
	return nil, errors.New("no dial in this test")
}

func TestNewRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no address", Config{MasterName: "m", DialData: noDial}, "no sentinel address"},
		{"no port", Config{Addrs: []string{"localhost"}, MasterName: "m", DialData: noDial}, "want host:port"},
		{"bad port", Config{Addrs: []string{"localhost:99999"}, MasterName: "m", DialData: noDial}, "1 to 65535"},
		{"control in host", Config{Addrs: []string{"a\x1b(0b:26379"}, MasterName: "m", DialData: noDial}, "not a host name"},
		{"no name", Config{Addrs: []string{"h:1"}, DialData: noDial}, "no sentinel master name"},
		{"space in name", Config{Addrs: []string{"h:1"}, MasterName: "my master", DialData: noDial}, "invalid sentinel master name"},
		{"no dial", Config{Addrs: []string{"h:1"}, MasterName: "m"}, "no dial function"},
		{"user without password", Config{Addrs: []string{"h:1"}, MasterName: "m", User: "u", DialData: noDial}, "without a sentinel password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\n\x1b") {
				t.Fatalf("got %v, want one line with %q", err, tc.want)
			}
		})
	}
}

func TestNewKeepsOrderAndDropsDuplicates(t *testing.T) {
	c, err := New(Config{Addrs: []string{"b:2", " a:1", "b:2", "[::1]:3"}, MasterName: "m", DialData: noDial})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Sentinels(), ","); got != "b:2,a:1,[::1]:3" {
		t.Fatalf("sentinels: %s", got)
	}
	c.toFront("[::1]:3")
	if got := strings.Join(c.Sentinels(), ","); got != "[::1]:3,b:2,a:1" {
		t.Fatalf("after toFront: %s", got)
	}
}

func TestParseRole(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reply   []interface{}
		want    Role
		wantErr string
	}{
		{"master", []interface{}{[]byte("master"), int64(3129659), []interface{}{[]interface{}{[]byte("127.0.0.1"), []byte("9001"), []byte("3129242")}}},
			Role{Name: "master", Offset: 3129659}, ""},
		{"replica", []interface{}{[]byte("slave"), []byte("127.0.0.1"), int64(9000), []byte("connected"), int64(3167038)},
			Role{Name: "slave", Offset: 3167038, MasterAddr: "127.0.0.1:9000", State: "connected"}, ""},
		{"sentinel", []interface{}{[]byte("sentinel"), []interface{}{[]byte("m")}}, Role{Name: "sentinel"}, ""},
		{"short replica", []interface{}{[]byte("slave"), []byte("127.0.0.1")}, Role{}, "short replica reply"},
		{"bad master host", []interface{}{[]byte("slave"), []byte("\x1b]0;x\a"), int64(1), []byte("connected"), int64(1)}, Role{}, "bad master address"},
		{"unknown", []interface{}{[]byte("leader")}, Role{}, "unknown role"},
		{"empty", nil, Role{}, "empty reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRole(tc.reply)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestInfoFields(t *testing.T) {
	f := infoFields("# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nslave_repl_offset:42\r\nmaster_link_status:up\r\n\r\n")
	if f["role"] != "slave" || f["slave_repl_offset"] != "42" || f["master_link_status"] != "up" || f["master_host"] != "127.0.0.1" {
		t.Fatalf("fields: %v", f)
	}
}

func TestEventString(t *testing.T) {
	ev := Event{Old: "10.0.0.1:6379", New: "10.0.0.2:6379"}
	if got := ev.String(); got != "failover: 10.0.0.1:6379 -> 10.0.0.2:6379" {
		t.Fatalf("got %q", got)
	}
}

func TestTakeSendsOneEventPerChangeAndDropsTheOldestWhenFull(t *testing.T) {
	c, err := New(Config{Addrs: []string{"h:1"}, MasterName: "m", DialData: noDial})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(c, "a:1")
	if w.take("a:1", "x") != nil {
		t.Fatal("same address made an event")
	}
	for i := 0; i < cap(w.events)+1; i++ {
		next := "b:1"
		if i%2 == 1 {
			next = "a:1"
		}
		if w.take(next, "x") == nil {
			t.Fatalf("change %d made no event", i)
		}
	}
	if len(w.events) != cap(w.events) {
		t.Fatalf("events: %d queued, want %d", len(w.events), cap(w.events))
	}
	first := <-w.events
	if first.Old != "b:1" {
		t.Fatalf("oldest event was not dropped: first is %+v", first)
	}
	if w.Master() != "b:1" {
		t.Fatalf("master: %s", w.Master())
	}
}
