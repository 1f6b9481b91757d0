package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/demo"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/redisq"
)

// target is where a command connects: the Redis address and credentials,
// TLS, the timeout of each call, the read-only guard and the namespace; or,
// with --demo, an embedded Redis running a simulated deployment; or a named
// target of the configuration file (--target), whose keys stand in for the
// flags not given (config.go). Every command that talks to Redis embeds one,
// so these flags are declared, read and checked in one place, and its
// address names Redis in the command's errors (see withAddress).
type target struct {
	redis        redisq.Options
	passwordFile string
	namespace    string
	demo         bool
	demoSeed     int64
	configPath   string   // --config
	names        []string // --target, in the order given
	// redisAll and namespaceAll are every --redis and --namespace given, in
	// order (the screen pairs them into several targets); redis.Address and
	// namespace hold the last one.
	redisAll     []string
	namespaceAll []string

	// fs is the command's flag set: which flags the command line gave.
	fs *pflag.FlagSet
	// from is the configuration target the settings came from (nil: the
	// flags alone); deadAfter the merged --dead-after (0 when the command
	// has no such flag).
	from      *config.Target
	deadAfter time.Duration
	sentinel  sentinelFlags

	// endpoint is the address as shown, once open has a dialer.
	endpoint string
}

func (t *target) addFlags(fs *pflag.FlagSet) {
	t.redis.Address, t.namespace = "localhost:6379", "work"
	fs.Var(&repeated{last: &t.redis.Address, all: &t.redisAll}, "redis", "Redis `address`: host:port, or a redis:// or rediss:// URL (no password in it)")
	fs.VarP(&repeated{last: &t.namespace, all: &t.namespaceAll}, "namespace", "n", "gocraft/work `namespace`")
	fs.IntVar(&t.redis.DB, "db", 0, "Redis database `number`")
	fs.StringVar(&t.redis.User, "user", "", "Redis ACL user `name` (the password comes from REDIS_PASSWORD or --password-file)")
	fs.StringVar(&t.passwordFile, "password-file", "", "read the Redis password from `FILE` (else from REDIS_PASSWORD)")
	fs.BoolVar(&t.redis.TLS, "tls", false, "connect with TLS")
	fs.StringVar(&t.redis.TLSCAFile, "tls-ca", "", "trust the CA certificates in `FILE` (PEM) for TLS")
	fs.BoolVar(&t.redis.TLSSkipVerify, "tls-skip-verify", false, "do not verify the server's TLS certificate")
	fs.DurationVar(&t.redis.Timeout, "timeout", 5*time.Second, "timeout of each Redis call")
	fs.BoolVar(&t.redis.ReadOnly, "read-only", false, "never write to Redis: every write command is refused before it is sent")
	fs.BoolVar(&t.demo, "demo", false, "run on an embedded Redis with a simulated gocraft/work deployment")
	fs.Int64Var(&t.demoSeed, "demo-seed", 1, "seed of the --demo simulation")
	fs.StringVar(&t.configPath, "config", "", "the configuration `FILE` of the targets (default $XDG_CONFIG_HOME/workq-tui/config.toml)")
	fs.StringArrayVarP(&t.names, "target", "t", nil, "connect to the target `NAME` of the configuration file (the screen, snapshot and exporter take several); flags given here win over its keys")
	t.fs = fs
	t.sentinel.addFlags(fs)
}

// check applies the --target (one at most) and the flags, validates them
// and reads the password.
func (t *target) check(e env) error {
	if len(t.names) > 1 {
		return usageErrorf("--target is given %d times: this command works on one target", len(t.names))
	}
	if n := max(len(t.redisAll), len(t.namespaceAll)); n > 1 {
		return usageErrorf("--redis or --namespace is given %d times: this command works on one target", n)
	}
	f, err := t.loadConfig(e)
	if err != nil {
		return err
	}
	name := ""
	if len(t.names) == 1 {
		name = t.names[0]
	}
	if err := t.merge(e, f, name); err != nil {
		return err
	}
	if err := t.sentinel.check(e, t.redis.ReadOnly, t.demo); err != nil {
		return err
	}
	// The command's own --dead-after follows the target's dead_after.
	if fl := t.fs.Lookup("dead-after"); fl != nil && t.deadAfter > 0 {
		if err := fl.Value.Set(t.deadAfter.String()); err != nil {
			return usageErrorf("--dead-after: %v", err)
		}
	}
	return nil
}

// validate checks the merged settings.
func (t *target) validate() error {
	switch {
	case t.redis.Timeout <= 0:
		return usageErrorf("--timeout must be positive")
	case t.redis.DB < 0:
		return usageErrorf("--db must not be negative")
	case t.namespace == "":
		return usageErrorf("--namespace must not be empty")
	}
	// A bad --redis (a password in the URL, a scheme, a port) is a usage
	// error, found before anything connects.
	if !t.demo {
		if _, err := t.redis.Endpoint(); err != nil {
			return usageErrorf("%v", err)
		}
	}
	return nil
}

// address is where the command connects, as shown ("" before open).
func (t *target) address() string { return t.endpoint }

// open builds the Redis dialer. With --demo it first starts the embedded
// Redis and the simulation and points the dialer at it; stop ends them. It
// does not connect yet: the first command sent does.
func (t *target) open(ctx context.Context) (*redisq.Dialer, func(), error) {
	stop := func() {}
	if t.demo {
		srv, err := demo.Start(ctx, demo.Options{Namespace: t.namespace, Seed: t.demoSeed})
		if err != nil {
			return nil, nil, localErrorf("start demo: %w", err)
		}
		t.redis.Address = srv.Addr()
		t.redis.Password = ""
		t.redis.TLS, t.redis.TLSCAFile, t.redis.TLSSkipVerify = false, "", false
		stop = srv.Stop
	}
	d, err := redisq.NewDialer(t.redis)
	if err == nil && t.sentinel.enabled() {
		d, stop, err = t.sentinel.open(ctx, d)
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	t.endpoint = d.Endpoint().String()
	return d, stop, nil
}

// dial connects once; done closes the connection (and stops the demo).
func (t *target) dial(ctx context.Context) (redis.Conn, func(), error) {
	d, stop, err := t.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	conn, err := d.Dial(ctx)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return conn, func() { conn.Close(); stop() }, nil
}

// refuseWrite refuses a command that writes to Redis under --read-only,
// before connecting. A dry run is let through: it only reads, and its
// connection refuses writes anyway.
func (t *target) refuseWrite(name string, dryRun bool) error {
	if !t.redis.ReadOnly || dryRun {
		return nil
	}
	if t.from != nil && t.from.ReadOnly {
		return fmt.Errorf("%s writes to Redis and target %s is read-only (read_only = true in %s:%d); add --dry-run to see its plan",
			name, t.from.Name, textsafe.Clean(t.from.File), t.from.Line)
	}
	return fmt.Errorf("%s writes to Redis and is refused with --read-only (add --dry-run to see its plan)", name)
}

// repeated is a string flag that may be given several times: last holds the
// last value (what a command of one target uses), all every value in order.
type repeated struct {
	last *string
	all  *[]string
}

func (r *repeated) String() string {
	if r.last == nil {
		return ""
	}
	return *r.last
}

func (r *repeated) Set(v string) error {
	*r.last = v
	*r.all = append(*r.all, v)
	return nil
}

func (r *repeated) Type() string { return "string" }
